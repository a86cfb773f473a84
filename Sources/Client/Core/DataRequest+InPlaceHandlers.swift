#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch

// The two ways a `DataRequest` serializes in place (`DataRequest.serializeInPlace`), each one
// object that holds the request, the serializer and where the response goes, and is the
// serializer's turn: the closures handed to the request capture only that object, and a closure
// capturing a single object reference needs no context of its own. Separate closures (the turn
// capturing the request, serializer and delivery; the delivery capturing the queue and handler,
// or the waiter) cost one or two allocations per request beyond these objects.

/// A ``DataTask``'s waiter that is also its serializer's turn (`DataRequest.serializeInPlace`):
/// it holds the request and the serializer, so the closures handed to the request capture this
/// one object (a closure capturing a single object reference needs no context of its own).
///
/// `@unchecked Sendable` as its superclass: the added properties are immutable and `Sendable`.
final class InPlaceResponseWaiter<Serializer: DataResponseSerializerProtocol>:
    ResponseWaiter<AFDataResponse<Serializer.SerializedObject>>, @unchecked Sendable {
    private let request: DataRequest
    private let serializer: Serializer

    init(request: DataRequest, serializer: Serializer) {
        self.request = request
        self.serializer = serializer
    }

    /// The serializer's turn: serializes in place and delivers the response to the waiting tasks.
    func serialize(onWorker: Bool) {
        request.serializeInPlace(using: serializer, onWorker: onWorker) { [self] in deliver($0) }
    }
}

/// `response(queue:responseSerializer:completionHandler:)`'s turn for a serializer that runs no
/// caller code (`DataRequest.runsNoCallerCode`): serializes in place, then calls the handler on
/// its queue.
final class QueuedResponseHandler<Serializer: DataResponseSerializerProtocol>: Sendable {
    private let request: DataRequest
    private let serializer: Serializer
    private let queue: DispatchQueue
    private let completionHandler: @Sendable (AFDataResponse<Serializer.SerializedObject>) -> Void

    init(request: DataRequest, serializer: Serializer, queue: DispatchQueue,
         completionHandler: @escaping @Sendable (AFDataResponse<Serializer.SerializedObject>) -> Void) {
        self.request = request
        self.serializer = serializer
        self.queue = queue
        self.completionHandler = completionHandler
    }

    /// The serializer's turn: serializes in place and hands the response to the handler's queue.
    func serialize(onWorker: Bool) {
        request.serializeInPlace(using: serializer, onWorker: onWorker) { [self] in deliver($0) }
    }

    private func deliver(_ response: AFDataResponse<Serializer.SerializedObject>) {
        let completionHandler = completionHandler
        queue.async { completionHandler(response) }
    }
}
