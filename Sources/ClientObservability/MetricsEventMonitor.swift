// swift-metrics for Lariat requests: counters by method and status class, timers from each
// attempt's URLSessionTaskMetrics, byte counters, retries and redirects.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Client
public import CoreMetrics
public import Dispatch

/// An ``EventMonitor`` that records swift-metrics for each request.
///
/// | metric | kind | when | dimensions |
/// |---|---|---|---|
/// | `lariat_client_requests_total` | counter | a request finished | `method`, `status_class` (`2xx`..., `error`) |
/// | `lariat_client_request_duration` | timer | each attempt (its task interval) | |
/// | `lariat_client_connect_duration` | timer | an attempt that opened a connection (TCP connect) | |
/// | `lariat_client_tls_duration` | timer | an attempt that made a TLS handshake | |
/// | `lariat_client_first_byte_duration` | timer | request start to first response byte | |
/// | `lariat_client_bytes_sent_total` | counter | each attempt: header and body bytes on the wire | |
/// | `lariat_client_bytes_received_total` | counter | each attempt: header and body bytes on the wire | |
/// | `lariat_client_retries_total` | counter | the session's retrier retried | |
/// | `lariat_client_redirects_total` | counter | each attempt: the redirects it followed | |
///
/// Durations come from the attempt's `URLSessionTaskMetrics` (one transaction per hop; connect
/// and TLS times only from hops that opened a connection, so a reused connection records none).
/// Connection-pool gauges (idle, leased, connecting, waiters) are not recorded yet: they need a
/// hook in Client's pool.
public struct MetricsEventMonitor: EventMonitor {
    /// The metric labels, as in the table above.
    public enum Label {
        /// Requests finished, by `method` and `status_class`.
        public static let requests = "lariat_client_requests_total"
        /// Each attempt's total time.
        public static let requestDuration = "lariat_client_request_duration"
        /// TCP connect time of attempts that opened a connection.
        public static let connectDuration = "lariat_client_connect_duration"
        /// TLS handshake time of attempts that made one.
        public static let tlsDuration = "lariat_client_tls_duration"
        /// Time from the request's start to the response's first byte.
        public static let firstByteDuration = "lariat_client_first_byte_duration"
        /// Bytes sent (headers and body, as on the wire).
        public static let bytesSent = "lariat_client_bytes_sent_total"
        /// Bytes received (headers and body, as on the wire).
        public static let bytesReceived = "lariat_client_bytes_received_total"
        /// Retries made by the session's retrier.
        public static let retries = "lariat_client_retries_total"
        /// Redirects followed.
        public static let redirects = "lariat_client_redirects_total"
    }

    /// The queue events are handled on (a serial queue of the monitor's own by default).
    public let queue: DispatchQueue
    private let factory: any MetricsFactory
    private let requestDuration: CoreMetrics.Timer
    private let connectDuration: CoreMetrics.Timer
    private let tlsDuration: CoreMetrics.Timer
    private let firstByteDuration: CoreMetrics.Timer
    private let bytesSent: Counter
    private let bytesReceived: Counter
    private let retries: Counter
    private let redirects: Counter

    /// Creates a monitor recording through `factory`.
    ///
    /// - Parameters:
    ///   - factory: The metrics backend; `MetricsSystem.factory` (the bootstrapped one) by default.
    ///   - queue: Where events are handled; a private serial queue by default.
    public init(factory: any MetricsFactory = MetricsSystem.factory,
                queue: DispatchQueue = DispatchQueue(label: "org.lariat.observability.metrics")) {
        self.factory = factory
        self.queue = queue
        requestDuration = Timer(label: Label.requestDuration, factory: factory)
        connectDuration = Timer(label: Label.connectDuration, factory: factory)
        tlsDuration = Timer(label: Label.tlsDuration, factory: factory)
        firstByteDuration = Timer(label: Label.firstByteDuration, factory: factory)
        bytesSent = Counter(label: Label.bytesSent, factory: factory)
        bytesReceived = Counter(label: Label.bytesReceived, factory: factory)
        retries = Counter(label: Label.retries, factory: factory)
        redirects = Counter(label: Label.redirects, factory: factory)
    }

    /// Counts the finished request by method and status class.
    public func requestDidFinish(_ request: Request) {
        let statusClass = request.error == nil ? RequestSummary.statusClass(request.response?.statusCode) : "error"
        Counter(label: Label.requests, dimensions: [("method", RequestSummary.method(of: request)), ("status_class", statusClass)],
                factory: factory).increment()
    }

    /// Records an attempt's durations, bytes and redirects.
    public func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        requestDuration.record(seconds: metrics.taskInterval.duration)
        var sent: Int64 = 0
        var received: Int64 = 0
        for transaction in metrics.transactionMetrics {
            sent += transaction.countOfRequestHeaderBytesSent + transaction.countOfRequestBodyBytesSent
            received += transaction.countOfResponseHeaderBytesReceived + transaction.countOfResponseBodyBytesReceived
            if !transaction.isReusedConnection,
               let connect = RequestSummary.interval(transaction.connectStartDate, transaction.secureConnectionStartDate ?? transaction.connectEndDate) {
                connectDuration.record(seconds: connect)
            }
            if let tls = RequestSummary.interval(transaction.secureConnectionStartDate, transaction.secureConnectionEndDate) {
                tlsDuration.record(seconds: tls)
            }
        }
        if let last = metrics.transactionMetrics.last,
           let firstByte = RequestSummary.interval(last.requestStartDate, last.responseStartDate) {
            firstByteDuration.record(seconds: firstByte)
        }
        if sent > 0 { bytesSent.increment(by: sent) }
        if received > 0 { bytesReceived.increment(by: received) }
        if metrics.redirectCount > 0 { redirects.increment(by: metrics.redirectCount) }
    }

    /// Counts a retry.
    public func requestIsRetrying(_ request: Request) {
        retries.increment()
    }
}

extension CoreMetrics.Timer {
    /// Records `seconds` as nanoseconds.
    fileprivate func record(seconds: TimeInterval) {
        recordNanoseconds(Int64((seconds * 1_000_000_000).rounded()))
    }
}
