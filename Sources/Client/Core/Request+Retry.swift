#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import EventLoop

// A retry is a new exchange of the same request: `RequestStateMachine` moves it through
// awaitingRetrier and waitingToRetry back to starting; these perform those actions.
extension Request {
    // MARK: Interceptors

    /// The request's own interceptor, run after the session's (adapters and retriers alike).
    public var interceptor: (any RequestInterceptor)? { mutable.withLock { $0.interceptor } }

    /// Adds `interceptor` after the request's current adapters and retriers.
    @discardableResult
    public func interceptor(_ interceptor: any RequestInterceptor) -> Self {
        mutable.withLock { state in
            switch state.interceptor {
            case let existing as Interceptor:
                state.interceptor = Interceptor(adapters: existing.adapters, retriers: existing.retriers, interceptors: [interceptor])
            case let existing?:
                state.interceptor = Interceptor(interceptors: [existing, interceptor])
            case nil:
                state.interceptor = Interceptor(interceptors: [interceptor])
            }
        }
        return self
    }

    /// Adds `adapter` after the request's current adapters (so after the session's too).
    @discardableResult
    public func adapt(using adapter: any RequestAdapter) -> Self {
        mutable.withLock { state in
            switch state.interceptor {
            case let existing as Interceptor:
                state.interceptor = Interceptor(adapters: existing.adapters + [adapter], retriers: existing.retriers)
            case let existing?:
                // After the existing one, as documented (Alamofire 5.12 puts it first in this case).
                state.interceptor = Interceptor(adapters: [existing, adapter], retriers: [existing])
            case nil:
                state.interceptor = Interceptor(adapters: [adapter])
            }
        }
        return self
    }

    /// Adds `retrier` after the request's current retriers (so after the session's too).
    @discardableResult
    public func retry(using retrier: any RequestRetrier) -> Self {
        mutable.withLock { state in
            switch state.interceptor {
            case let existing as Interceptor:
                state.interceptor = Interceptor(adapters: existing.adapters, retriers: existing.retriers + [retrier])
            case let existing?:
                // After the existing one, as documented (Alamofire 5.12 puts it first in this case).
                state.interceptor = Interceptor(adapters: [existing], retriers: [existing, retrier])
            case nil:
                state.interceptor = Interceptor(retriers: [retrier])
            }
        }
        return self
    }

    // MARK: Retry

    /// Asks the request's retrier, then the session's, on the request's queue (retriers are user
    /// code; the exchange may have ended on a connection's loop). The answer is acted on on the
    /// same queue, whatever thread the retrier answers from. `serializer`: a response serializer
    /// failed with this error (`Request+Serializers.swift`), and `replacement` makes the
    /// completion to hold for `.doNotRetryWithError`; `nil`: the request itself failed.
    func askRetrier(serializer: (error: AFError, replacement: @Sendable (AFError) -> StoredHandler)? = nil) {
        guard let retrier = context.retrier(for: self), let error = serializer?.error ?? error else {
            preconditionFailure("askRetrier without a retrier or an error: the machine asks only for a failure with one")
        }
        let replacement = serializer?.replacement
        underlyingQueue.async { [self] in
            // Retriers are given the session; once it was released there is nothing to retry on.
            guard let session = context.session else {
                return retrierAnswered(.doNotRetry, originalError: error, replacement: replacement)
            }
            retrier.retry(self, for: session, dueTo: error) { [self] result in
                underlyingQueue.async { [self] in retrierAnswered(result, originalError: error, replacement: replacement) }
            }
        }
    }

    private func retrierAnswered(_ result: RetryResult, originalError: AFError,
                                 replacement: (@Sendable (AFError) -> StoredHandler)?) {
        let action = mutable.withLock { state in
            var replacing: StoredHandler?
            // A cancel while the retrier decided keeps `explicitlyCancelled`.
            if case .doNotRetryWithError(let retryError) = result, !state.machine.isCancelled {
                let failure = AFError.requestRetryFailed(retryError: retryError, originalError: originalError)
                // A serializer's failure is replaced in its own response only (Alamofire's
                // serializers); a request's failure becomes the request's error.
                if let replacement { replacing = replacement(failure) } else { state.error = failure }
            }
            return state.machine.retryDecided(retry: retryDelay(result.delay, firstStart: state.firstStart), replacement: replacing)
        }
        perform(action, onWorker: true)
    }

    /// The retrier's delay, or `nil` (no retry) when the attempt would start at or after the
    /// request's total deadline: that deadline spans every attempt (`transportRequest` is given
    /// the first start), so such an attempt could only fail with `timedOut` at once, and the
    /// failure that asked for the retry is the more useful one to report. URLSession gives each
    /// task its own `timeoutIntervalForResource`; Lariat's deadline is the request's, so a retry
    /// never extends it.
    private func retryDelay(_ delay: TimeInterval?, firstStart: Deadline?) -> TimeInterval? {
        guard let delay, let firstStart,
            let total = try? TimeoutLimit.duration(context.settings.timeoutIntervalForResource, setting: "", url: nil)
        else { return delay }
        let nanoseconds = delay.isFinite && delay > 0 ? Int64(min(delay, 1e9) * 1e9) : 0
        return Deadline.now() + Duration.nanoseconds(nanoseconds) < firstStart + total ? delay : nil
    }

    /// Reports the end of a retry's delay from the request's queue. A cancel meanwhile finished
    /// the request already; the machine then drops this report.
    func scheduleRetry(after delay: Double) {
        let elapsed: @Sendable () -> Void = { [self] in
            let action = mutable.withLock { state in
                let action = state.machine.retryDelayElapsed()
                // The new attempt starts clean, as Alamofire's `reset()` before a retry.
                if case .restartExchange = action {
                    // Each retry is a new task with its own metrics, kept for `allMetrics`.
                    if let last = state.metricsTask?.collectedMetrics { state.earlierMetrics.append(last) }
                    (state.error, state.response, state.metricsTask) = (nil, nil, nil)
                }
                return action
            }
            perform(action, onWorker: true)
        }
        if delay > 0 {
            underlyingQueue.asyncAfter(deadline: .now() + delay, execute: elapsed)
        } else {
            underlyingQueue.async(execute: elapsed)
        }
    }
}
