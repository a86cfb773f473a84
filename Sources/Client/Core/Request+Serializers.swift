#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization

// Response serializers take turns (`RequestStateMachine`'s `serializing`): each runs once the
// outcome stands and reports here; a failure may go to the retrier, and a retry runs every
// serializer again on the next attempt's response. Completions are held until the last one ran,
// so no handler sees an attempt that a later serializer's failure retried.
extension Request {
    /// Adds a response serializer: `run` serializes when its turn comes (`onWorker` as for a
    /// ``ResponseHandler``) and must then call
    /// ``serializerFinished(_:failure:onWorker:deliver:replacingFailure:)`` once. It runs again
    /// after a retry.
    func appendSerializer(_ run: @escaping ResponseHandler) {
        appendResponseHandler(run, serializer: true)
    }

    /// A serializer's result is in. Delivers it now, or holds its delivery until the serializers
    /// after it ran; a failure first goes to the retrier (Alamofire: with the serializer's error,
    /// unless the request was cancelled). `replacingFailure` makes the result to deliver instead
    /// when the retrier answers `.doNotRetryWithError` (its `requestRetryFailed` error).
    func serializerFinished<Value: Sendable>(
        _ value: Value, failure: AFError?, onWorker: Bool,
        deliver: @escaping @Sendable (Value) -> Void,
        replacingFailure: @escaping @Sendable (Value, AFError) -> Value
    ) {
        let retries = failure != nil && (context.interceptor != nil || interceptor != nil)
        let (deliverNow, action) = mutable.withLock { state in
            state.machine.serializerFinished(failed: failure != nil, hasRetrier: retries) { StoredHandler { _ in deliver(value) } }
        }
        if case .askRetrier = action, let failure {
            return askRetrier(serializer: (failure, { error in StoredHandler { _ in deliver(replacingFailure(value, error)) } }))
        }
        // `deliverNow`: the last serializer with nothing held before it (the action finishes
        // the request with no completions: untracked first, as before any handler).
        perform(action, onWorker: onWorker)
        if deliverNow { deliver(value) }
    }
}
