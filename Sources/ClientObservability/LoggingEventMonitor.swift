// swift-log for Lariat requests: one `.debug` line per request, details at `.trace`, nothing at
// `.info` or above (a client's traffic is not the application's news).

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Client
public import Dispatch
public import Logging

/// An ``EventMonitor`` that logs each request through swift-log.
///
/// - `.debug`: one line when a request finished: method, URL (without credentials), status or
///   error, duration and retries, with the request's id in the metadata (`lariat.request.id`,
///   the ``Request/id``, the same on every line of that request).
/// - `.trace`: one line per step (URLRequest made, task resumed, response head, redirect, retry,
///   metrics, attempt complete).
/// - Nothing at `.info` or above: a failed request is the caller's to report.
///
/// Messages and metadata are built only when the logger's level lets the line through (swift-log
/// takes both as autoclosures; each event checks the level first), so with the usual `.info`
/// level the monitor costs one comparison per event.
///
/// ```swift
/// var logger = Logger(label: "api")
/// logger.logLevel = .debug
/// let session = Session(eventMonitors: [LoggingEventMonitor(logger: logger)])
/// ```
public struct LoggingEventMonitor: EventMonitor, SelectiveEventMonitor {
    /// The metadata key holding the request's id.
    public static let requestIDKey = "lariat.request.id"

    /// The logger every line goes to.
    public let logger: Logger
    /// The queue events are handled on (a serial queue of the monitor's own by default).
    public let queue: DispatchQueue

    /// Creates a monitor logging to `logger`.
    ///
    /// - Parameters:
    ///   - logger: The logger; its `logLevel` decides what is built and emitted.
    ///   - queue: Where events are handled. By default a private serial queue, which takes each
    ///     event with `sync` on the thread that produced it (no thread hop: the monitor's work is
    ///     short). A queue you pass gets each event with `async`, as Alamofire's monitors do.
    public init(logger: Logger, queue: DispatchQueue = MonitorQueue.make(label: "org.lariat.observability.logging")) {
        self.logger = logger
        self.queue = queue
        deliversInline = MonitorQueue.isPrivate(queue)
    }

    // MARK: Delivery (package access: see Client's SelectiveEventMonitor.swift)

    /// The events that can write a line; no other is built for this monitor.
    package var handledEvents: MonitoredEvents {
        [.didFinish, .didCreateURLRequest, .didFailToAdaptURLRequest, .didResumeTask, .dataTaskDidReceiveResponse,
         .taskWillPerformHTTPRedirection, .isRetrying, .didGatherMetrics, .didCompleteTask, .didCancel]
    }

    /// Whether the logger's level lets `event`'s line through (`.debug` for `requestDidFinish`,
    /// `.trace` for the others): checked before the event is delivered, so at `.info` none is.
    package func isHandling(_ event: MonitoredEvents) -> Bool {
        logger.logLevel <= (event == .didFinish ? .debug : .trace)
    }

    /// With its own queue, the monitor takes events on the producing thread (through
    /// `queue.sync`): it only formats and hands lines to the log handler.
    package let deliversInline: Bool

    private var traces: Bool { logger.logLevel <= .trace }

    // MARK: .debug: one line per request

    /// Logs the request's one `.debug` line.
    public func requestDidFinish(_ request: Request) {
        guard logger.logLevel <= .debug else { return }
        logger.debug("\(RequestSummary.method(of: request)) \(RequestSummary.redacted(request.request?.url)) \(Self.outcome(of: request))",
                     metadata: Self.summaryMetadata(of: request))
    }

    /// The status code, or `failed: <error>`.
    private static func outcome(of request: Request) -> String {
        if let error = request.error { return "failed: \(error.localizedDescription)" }
        return request.response.map { String($0.statusCode) } ?? "no response"
    }

    private static func summaryMetadata(of request: Request) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            requestIDKey: "\(request.id.uuidString)",
            "http.request.method": "\(method(of: request))",
            "url.full": "\(RequestSummary.redacted(request.request?.url))",
        ]
        if let status = request.response?.statusCode { metadata["http.response.status_code"] = "\(status)" }
        if let type = RequestSummary.errorType(statusCode: request.response?.statusCode, error: request.error) {
            metadata["error.type"] = "\(type)"
        }
        if let duration = request.metrics?.taskInterval.duration {
            metadata["lariat.duration_ms"] = "\(Int((duration * 1000).rounded()))"
        }
        if request.retryCount > 0 { metadata["lariat.retries"] = "\(request.retryCount)" }
        return metadata
    }

    private static func method(of request: Request) -> String { RequestSummary.method(of: request) }

    // MARK: .trace: the steps

    private func trace(_ request: Request, _ message: @autoclosure () -> String, _ extra: @autoclosure () -> Logger.Metadata = [:]) {
        guard traces else { return }
        logger.trace("\(message())", metadata: extra().merging([Self.requestIDKey: "\(request.id.uuidString)"]) { $1 })
    }

    /// Traces the URLRequest made for an attempt.
    public func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        trace(request, "URLRequest \(urlRequest.httpMethod ?? "GET") \(RequestSummary.redacted(urlRequest.url))",
              ["lariat.header_count": "\(urlRequest.headers.count)"])
    }

    /// Traces an adapter's failure.
    public func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) {
        trace(request, "adapter failed: \(error.localizedDescription)")
    }

    /// Traces the start of an attempt's task.
    public func request(_ request: Request, didResumeTask task: URLSessionTask) {
        trace(request, "task resumed", ["lariat.attempt": "\(request.retryCount + 1)"])
    }

    /// Traces a response head.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) {
        guard traces else { return }
        let http: HTTPURLResponse = response  // URLResponse is HTTPURLResponse in Lariat
        logger.trace("response head \(http.statusCode)", metadata: ["http.response.status_code": "\(http.statusCode)",
                                                                    "lariat.header_count": "\(http.headers.count)"])
    }

    /// Traces a followed redirect.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        guard traces else { return }
        logger.trace("redirect \(response.statusCode) to \(RequestSummary.redacted(request.url))")
    }

    /// Traces a retry.
    public func requestIsRetrying(_ request: Request) {
        trace(request, "retrying", ["lariat.retries": "\(request.retryCount)"])
    }

    /// Traces an attempt's metrics.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        trace(request, "metrics", [
            "lariat.duration_ms": "\(Int((metrics.taskInterval.duration * 1000).rounded()))",
            "lariat.redirects": "\(metrics.redirectCount)",
            "lariat.reused_connection": "\(metrics.transactionMetrics.last?.isReusedConnection ?? false)",
        ])
    }

    /// Traces the end of an attempt.
    public func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        trace(request, error.map { "attempt failed: \($0.localizedDescription)" } ?? "attempt complete")
    }

    /// Traces a cancellation.
    public func requestDidCancel(_ request: Request) {
        trace(request, "cancelled")
    }
}
