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
package import Transport

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
/// | `lariat_client_pool_connections` | gauge | after each pool transition | `state` (`idle`, `leased`, `connecting`), `scheme`, `host`, `port` |
/// | `lariat_client_pool_waiters` | gauge | after each pool transition | `scheme`, `host`, `port` |
///
/// Durations come from the attempt's `URLSessionTaskMetrics` (one transaction per hop; connect
/// and TLS times only from hops that opened a connection, so a reused connection records none).
///
/// The pool gauges come from the connection pool of the ``Session`` the monitor is given to (at
/// `Session(eventMonitors:)`): `leased` counts connections running a request (its TLS handshake
/// included), `connecting` those being opened, `waiters` requests queued at the per-host limit.
/// Give one monitor to one session: two sessions would overwrite each other's values. Labels
/// are per origin (scheme, host, port, without the proxy); to keep cardinality bounded, only the
/// first `maximumPoolOrigins` origins get their own, later ones add up under `host="other"`.
/// A session with no such monitor does not count anything.
public struct MetricsEventMonitor: EventMonitor, ConnectionPoolObservingMonitor, SelectiveEventMonitor {
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
        /// The pool's connections to an origin, by `state`: `idle`, `leased`, `connecting`.
        public static let poolConnections = "lariat_client_pool_connections"
        /// Requests waiting for a connection to an origin (its per-host limit reached).
        public static let poolWaiters = "lariat_client_pool_waiters"
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
    private let poolGauges: PoolGauges

    /// The events the monitor records; no other is built for it (package access: see Client's
    /// SelectiveEventMonitor.swift).
    package var handledEvents: MonitoredEvents { [.didFinish, .didGatherMetrics, .isRetrying] }
    /// With its own queue, the monitor takes events on the producing thread (through
    /// `queue.sync`): it only updates metric handlers, which swift-metrics requires to be
    /// thread-safe.
    package let deliversInline: Bool

    /// The session's pool reports to the monitor's gauges (package access: see ConnectionPoolObserving.swift).
    package var connectionPoolObserver: any ConnectionPoolObserver { poolGauges }

    /// Creates a monitor recording through `factory`.
    ///
    /// - Parameters:
    ///   - factory: The metrics backend; `MetricsSystem.factory` (the bootstrapped one) by default.
    ///   - queue: Where events are handled. By default a private serial queue, which takes each
    ///     event with `sync` on the thread that produced it (no thread hop: the monitor's work is
    ///     short). A queue you pass gets each event with `async`, as Alamofire's monitors do.
    ///   - maximumPoolOrigins: How many origins get pool gauges with their own labels; later
    ///     ones are summed under `host="other"`. 64 by default.
    public init(factory: any MetricsFactory = MetricsSystem.factory,
                queue: DispatchQueue = MonitorQueue.make(label: "org.lariat.observability.metrics"),
                maximumPoolOrigins: Int = 64) {
        self.factory = factory
        self.poolGauges = PoolGauges(factory: factory, maximumOrigins: maximumPoolOrigins)
        self.queue = queue
        deliversInline = MonitorQueue.isPrivate(queue)
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
