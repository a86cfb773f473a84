// Metrics across attempts. As on Apple platforms, where each Alamofire retry runs a new
// URLSessionTask, every attempt that reached the transport has its own `URLSessionTaskMetrics`
// (its transactions: the request and any redirect hops); `allMetrics` lists them in order and
// `metrics` is the last. The transport's own silent retry of a stale keep-alive connection is
// not an attempt: it happens inside one exchange, as URLSession's does inside one task.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

extension Request {
    /// Metrics of every attempt so far, oldest first: one entry per try that reached the
    /// transport (the first request and each retry). Empty before the first one ended.
    public var allMetrics: [URLSessionTaskMetrics] {
        mutable.withLock { state in
            guard let last = state.metricsTask?.collectedMetrics else { return state.earlierMetrics }
            return state.earlierMetrics + [last]
        }
    }

    /// Metrics of the first attempt, once it ended.
    public var firstMetrics: URLSessionTaskMetrics? {
        mutable.withLock { $0.earlierMetrics.first ?? $0.metricsTask?.collectedMetrics }
    }

    /// Metrics of the last attempt that ended (the same as ``metrics``).
    public var lastMetrics: URLSessionTaskMetrics? { metrics }
}

extension Request.Mutable {
    /// The last attempt's metrics for a response made now: the task that keeps them (built
    /// when the response's metrics are read), or none.
    func responseMetrics() -> ResponseMetrics {
        metricsTask.map { .task($0) } ?? .built(nil)
    }
}
