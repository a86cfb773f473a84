// swift-distributed-tracing for Lariat requests: one client span per request, with
// OpenTelemetry's HTTP client semantic conventions, and the span's context injected into the
// request's header fields.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Client
public import Dispatch
public import Tracing
import Synchronization

/// An ``EventMonitor`` and ``RequestInterceptor`` that traces each request as one client span,
/// with a child span for each HTTP exchange (every redirect hop and every retry).
///
/// Use the same instance as both, so the span that the events describe is the one whose
/// context goes out in the request's header fields (`traceparent` with a W3C tracer):
///
/// ```swift
/// let tracing = TracingEventMonitor()
/// let session = Session(interceptor: tracing, eventMonitors: [tracing])
/// ```
///
/// An event monitor only observes; it cannot change a request. The injection is therefore done
/// by the interceptor side (`adapt`), through the tracer's `inject(_:into:using:)`, on every
/// attempt, retries included. Without the interceptor the spans are still recorded.
///
/// The span (kind `.client`, named after the method) starts when the request is first made or
/// adapted, whichever comes first, and ends when the request finished, with the attributes
/// `http.request.method`, `url.full` (without user or password), `server.address`,
/// `server.port`, `http.response.status_code`, `http.request.resend_count` (retries) and, for a
/// failure or a 4xx/5xx, `error.type` and an error status.
///
/// **Exchanges**: each HTTP exchange the request made (the first, every redirect hop, every
/// retry) is a child span of the request's, timed from the task's metrics and carrying the same
/// attributes for that hop, with `http.request.resend_count` counting redirects and retries
/// alike. The context sent in the header fields is the request's span (an exchange's span
/// exists only once its metrics are in, after it was sent).
///
/// **Parent span**: events arrive on a dispatch queue, outside the task that made the request,
/// so the task's `ServiceContext.current` is not seen there. Call ``bind(_:to:)`` right after
/// making the request (before adding a response handler) to parent its span; otherwise the
/// span starts from `ServiceContext.topLevel`.
public final class TracingEventMonitor: EventMonitor, RequestInterceptor, SelectiveEventMonitor {
    /// The queue events are handled on (a serial queue of the monitor's own by default).
    public let queue: DispatchQueue
    private let tracer: any Tracer
    /// Live spans, and the parent contexts bound to requests not started yet, by request id.
    private let spans = Mutex<[UUID: SpanEntry]>([:])

    private enum SpanEntry {
        case parent(ServiceContext)
        /// The request's span and how many exchanges (child spans) it has had so far.
        case span(any Span, exchanges: Int)
    }

    /// Creates a monitor recording spans with `tracer`.
    ///
    /// - Parameters:
    ///   - tracer: The tracer; `InstrumentationSystem.tracer` (the bootstrapped one) by default.
    ///   - queue: Where events are handled. By default a private serial queue, which takes each
    ///     event with `sync` on the thread that produced it (no thread hop: the monitor's work is
    ///     short). A queue you pass gets each event with `async`, as Alamofire's monitors do.
    public init(tracer: any Tracer = InstrumentationSystem.tracer,
                queue: DispatchQueue = MonitorQueue.make(label: "org.lariat.observability.tracing")) {
        self.tracer = tracer
        self.queue = queue
        deliversInline = MonitorQueue.isPrivate(queue)
    }

    /// The events that start, annotate and end spans; no other is built for this monitor
    /// (package access: see Client's SelectiveEventMonitor.swift).
    package var handledEvents: MonitoredEvents { [.didCreateInitialURLRequest, .isRetrying, .didGatherMetrics, .didFinish] }
    /// With its own queue, the monitor takes events on the producing thread (through
    /// `queue.sync`, which still runs one event at a time): span state is behind a mutex, and
    /// starting or ending a span is the tracer's quick, thread-safe work.
    package let deliversInline: Bool

    /// Parents `request`'s span with `context` (by default the calling task's current context).
    /// Call it before the request starts: right after making it, before adding a handler.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The parent context; `ServiceContext.current`, or `.topLevel`, by default.
    public func bind(_ request: Request, to context: ServiceContext = .current ?? .topLevel) {
        spans.withLock { entries in
            if entries[request.id] == nil { entries[request.id] = .parent(context) }
        }
    }

    /// The request's span, started now if it has none.
    private func span(for id: UUID, method: String) -> any Span {
        spans.withLock { entries in
            if case .span(let span, _) = entries[id] { return span }
            let parent: ServiceContext
            if case .parent(let context) = entries[id] { parent = context } else { parent = .topLevel }
            let span = tracer.startSpan(method, context: parent, ofKind: .client)
            entries[id] = .span(span, exchanges: 0)
            return span
        }
    }

    // MARK: RequestInterceptor: context injection

    /// Injects the request's span context into its header fields through the tracer's injector.
    public func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState,
                      completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        let span = span(for: state.requestID, method: urlRequest.httpMethod ?? "GET")
        var request = urlRequest
        var headers = request.headers
        tracer.inject(span.context, into: &headers, using: HTTPHeadersInjector())
        request.headers = headers
        completion(.success(request))
    }

    /// As ``adapt(_:using:completion:)``, for callers without a request id (a span of its own
    /// cannot be found): passes the request on unchanged.
    public func adapt(_ urlRequest: URLRequest, for session: Session,
                      completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(urlRequest))
    }

    // MARK: EventMonitor: the span's life

    /// Starts the span (if adaptation has not) when the first URLRequest is made.
    public func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        _ = span(for: request.id, method: urlRequest.httpMethod ?? "GET")
    }

    /// Records a retry as a span event.
    public func requestIsRetrying(_ request: Request) {
        span(for: request.id, method: RequestSummary.method(of: request))
            .addEvent(SpanEvent(name: "retry", attributes: ["http.request.resend_count": .int64(Int64(request.retryCount))]))
    }

    /// Records each HTTP exchange of a finished task as a child of the request's span: one per
    /// redirect hop and one per retry, timed from the task's metrics (fetch start to the last
    /// response byte), with the hop's method, URL, status and `http.request.resend_count`
    /// (the exchange's place among the request's exchanges: redirects and retries both count,
    /// as the semantic conventions say). Responses served from the cache are not exchanges.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        let exchanges = metrics.transactionMetrics.filter { $0.resourceFetchType != .localCache }
        guard !exchanges.isEmpty else { return }
        let claimed: (parent: any Span, first: Int)? = spans.withLock { entries in
            guard case .span(let span, let count) = entries[request.id] else { return nil }
            entries[request.id] = .span(span, exchanges: count + exchanges.count)
            return (span, count)
        }
        guard let claimed else { return }
        for (offset, exchange) in exchanges.enumerated() {
            record(exchange, resendCount: claimed.first + offset, parent: claimed.parent.context)
        }
    }

    /// One exchange's child span.
    private func record(_ exchange: URLSessionTaskTransactionMetrics, resendCount: Int, parent: ServiceContext) {
        let method = exchange.request.httpMethod ?? "GET"
        let start = exchange.fetchStartDate ?? exchange.requestStartDate ?? Date()
        let end = max(start, exchange.responseEndDate ?? exchange.responseStartDate ?? exchange.requestEndDate ?? start)
        let child = tracer.startSpan(method, context: parent, ofKind: .client, at: DateInstant(start))
        let url = exchange.request.url
        let status = exchange.response?.statusCode
        child.updateAttributes { attributes in
            attributes["http.request.method"] = SpanAttribute.string(method)
            attributes["url.full"] = SpanAttribute.string(RequestSummary.redacted(url))
            if let host = url?.host { attributes["server.address"] = SpanAttribute.string(host) }
            if let port = url?.port ?? Self.defaultPort(url?.scheme) { attributes["server.port"] = SpanAttribute.int64(Int64(port)) }
            if let status { attributes["http.response.status_code"] = SpanAttribute.int64(Int64(status)) }
            if resendCount > 0 { attributes["http.request.resend_count"] = SpanAttribute.int64(Int64(resendCount)) }
            // No head at all: the exchange failed in a way only the request's error names
            // (semconv's fallback value).
            if let status, status >= 400 {
                attributes["error.type"] = SpanAttribute.string(String(status))
            } else if status == nil {
                attributes["error.type"] = SpanAttribute.string("_OTHER")
            }
        }
        if status.map({ $0 >= 400 }) ?? true { child.setStatus(SpanStatus(code: .error)) }
        child.end(at: DateInstant(end))
    }

    /// Ends the span with the request's outcome.
    public func requestDidFinish(_ request: Request) {
        let span = span(for: request.id, method: RequestSummary.method(of: request))
        spans.withLock { _ = $0.removeValue(forKey: request.id) }
        let url = request.request?.url
        let status = request.response?.statusCode
        span.updateAttributes { attributes in
            attributes["http.request.method"] = SpanAttribute.string(RequestSummary.method(of: request))
            attributes["url.full"] = SpanAttribute.string(RequestSummary.redacted(url))
            if let host = url?.host { attributes["server.address"] = SpanAttribute.string(host) }
            if let port = url?.port ?? Self.defaultPort(url?.scheme) { attributes["server.port"] = SpanAttribute.int64(Int64(port)) }
            if let status { attributes["http.response.status_code"] = SpanAttribute.int64(Int64(status)) }
            if request.retryCount > 0 { attributes["http.request.resend_count"] = SpanAttribute.int64(Int64(request.retryCount)) }
            if let type = RequestSummary.errorType(statusCode: status, error: request.error) {
                attributes["error.type"] = SpanAttribute.string(type)
            }
        }
        if let error = request.error {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.localizedDescription))
        } else if let status, status >= 400 {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// 80 or 443 for http(s).
    private static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}

/// A `Date` as a tracing instant (the metrics' dates are wall-clock times).
private struct DateInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        nanosecondsSinceEpoch = UInt64(max(0, date.timeIntervalSince1970) * 1_000_000_000)
    }

    static func < (lhs: DateInstant, rhs: DateInstant) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}

/// Writes a tracer's fields into ``HTTPHeaders``, replacing a field of the same name.
public struct HTTPHeadersInjector: Injector {
    /// Creates an injector.
    public init() {}

    /// Sets `value` under `key`.
    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.update(name: key, value: value)
    }
}
