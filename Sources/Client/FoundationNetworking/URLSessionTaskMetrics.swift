#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization
import Transport

/// Timing and size measurements for one task: one transaction per request sent for it.
///
/// Lariat's own `URLSessionTaskMetrics` (Foundation's lives in FoundationNetworking on Linux).
/// As on Apple platforms, each Alamofire retry is a new task with its own metrics (see
/// `Request.allMetrics`); a redirect adds a transaction to the same task.
///
/// Cheap to make: the transport hands over its raw record (timestamps and counts, no objects),
/// and the ``transactionMetrics`` objects are built on first read, then kept. A request nobody
/// asks about makes none: it keeps the record (`TaskMetrics`) and builds this object when
/// `Request.metrics`, a response's `metrics` or a monitor reads it. Immutable to its readers,
/// so `Sendable`.
public final class URLSessionTaskMetrics: Sendable {
    /// From the first transaction's fetch start to the last one's end (response fully received
    /// or failure).
    public let taskInterval: DateInterval

    /// How many redirects were followed.
    public let redirectCount: Int

    /// One entry per request sent, in order: the original request, then one per redirect.
    public var transactionMetrics: [URLSessionTaskTransactionMetrics] {
        storage.withLock { storage in
            switch storage {
            case .built(let transactions):
                return transactions
            case .recorded(let last, let earlier):
                let transactions = (earlier + [last]).map(URLSessionTaskTransactionMetrics.init(record:))
                storage = .built(transactions)
                return transactions
            }
        }
    }

    /// The transactions, built or still raw.
    private enum Storage {
        /// Objects, made by the public initialiser or by a first read.
        case built([URLSessionTaskTransactionMetrics])
        /// The transport's records: the last transaction and any before it (redirect hops).
        case recorded(last: TransactionRecord, earlier: [TransactionRecord])
    }

    private let storage: Mutex<Storage>

    /// Creates metrics.
    ///
    /// - Parameters:
    ///   - taskInterval:       The whole task's start and end.
    ///   - redirectCount:      Redirects followed. `0` by default.
    ///   - transactionMetrics: Per-transaction measurements, in order. Empty by default.
    public init(taskInterval: DateInterval, redirectCount: Int = 0, transactionMetrics: [URLSessionTaskTransactionMetrics] = []) {
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.storage = Mutex(.built(transactionMetrics))
    }

    /// Metrics from the transport's records, their transactions built lazily.
    ///
    /// - Parameter record: The task's transactions and interval.
    init(record: TaskMetricsRecord) {
        self.taskInterval = record.taskInterval
        self.redirectCount = record.earlier.count
        self.storage = Mutex(.recorded(last: record.last, earlier: record.earlier))
    }
}

/// One task's metrics as the transport recorded them: plain values, no object. The task's
/// interval is fixed when recorded (an end the transport did not stamp is the recording time),
/// so the object built from it later reads the same.
struct TaskMetricsRecord: Sendable {
    /// From the first transaction's fetch start to the last one's end.
    let taskInterval: DateInterval
    /// The transaction that ended the task.
    let last: TransactionRecord
    /// Transactions before it in the same task, oldest first: redirect hops.
    let earlier: [TransactionRecord]

    init(last: TransactionRecord, earlier: [TransactionRecord] = []) {
        let start = earlier.first?.summary.timings.fetchStart ?? last.summary.timings.fetchStart
        let end = last.summary.timings.responseEnd ?? Date()
        self.taskInterval = DateInterval(start: start, end: Swift.max(end, start))
        (self.last, self.earlier) = (last, earlier)
    }
}

/// A task's metrics, recorded or built: the object is made only when read.
enum TaskMetrics: Sendable {
    /// Made (read once, given to a monitor, or with no transactions).
    case built(URLSessionTaskMetrics)
    /// Not read yet.
    case recorded(TaskMetricsRecord)

    /// The metrics object: the built one, or a new one from the record (each read of a record
    /// makes its own object, with the same values; `build()` keeps the one it made).
    var value: URLSessionTaskMetrics {
        switch self {
        case .built(let metrics): metrics
        case .recorded(let record): URLSessionTaskMetrics(record: record)
        }
    }

    /// The metrics object, kept: later reads return the same one.
    mutating func build() -> URLSessionTaskMetrics {
        let metrics = value
        self = .built(metrics)
        return metrics
    }
}

/// A response's metrics: the object, or the task (the attempt) that builds them on first read
/// and keeps them, so the response, ``Request/metrics``, ``Request/allMetrics`` and the monitors
/// all read one object. The task, not the request: a response names no request, as Alamofire's
/// (see ``URLSessionTask/recordMetrics(_:replacing:)``).
enum ResponseMetrics: Sendable {
    /// Given (built, or `nil`).
    case built(URLSessionTaskMetrics?)
    /// The metrics `task` keeps.
    case task(URLSessionTask)

    /// The metrics object.
    var value: URLSessionTaskMetrics? {
        switch self {
        case .built(let metrics): metrics
        case .task(let task): task.collectedMetrics
        }
    }
}

/// One transaction as the transport saw it: what `URLSessionTaskTransactionMetrics` is built from.
struct TransactionRecord: Sendable {
    /// The request as sent.
    var request: URLRequest
    /// The response head, if one arrived.
    var response: HTTPURLResponse?
    /// Timestamps, byte counts, endpoints and TLS details.
    var summary: TransportSummary
    /// The body after content decoding, `nil` when no decoder ran (then it is the bytes received).
    var decodedBodyBytes: Int64? = nil
}

extension URLSessionTaskMetrics: CustomStringConvertible {
    /// Duration, redirect count and transaction count.
    public var description: String {
        "URLSessionTaskMetrics(duration: \(taskInterval.duration)s, redirects: \(redirectCount), "
            + "transactions: \(transactionMetrics.count))"
    }
}
