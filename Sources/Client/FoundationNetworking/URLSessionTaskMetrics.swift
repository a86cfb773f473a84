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
/// asks about costs one allocation for its metrics. Immutable to its readers, so `Sendable`.
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

    /// Metrics from the transport's records, built lazily.
    ///
    /// - Parameters:
    ///   - last:    The transaction that ended the task.
    ///   - earlier: Transactions before it in the same task, oldest first: redirect hops.
    init(recorded last: TransactionRecord, earlier: [TransactionRecord] = []) {
        let start = earlier.first?.summary.timings.fetchStart ?? last.summary.timings.fetchStart
        let end = last.summary.timings.responseEnd ?? Date()
        self.taskInterval = DateInterval(start: start, end: Swift.max(end, start))
        self.redirectCount = earlier.count
        self.storage = Mutex(.recorded(last: last, earlier: earlier))
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
