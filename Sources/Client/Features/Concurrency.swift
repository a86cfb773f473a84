#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch

/// The async face of a `DataRequest`'s serialized response (Alamofire's `DataTask`).
///
/// The serializer is attached when the task is made (which starts the request, as Alamofire's
/// does); the response can be awaited any number of times, from any task.
public struct DataTask<Value: Sendable>: Sendable {
    private let request: DataRequest
    private let waiter: ResponseWaiter<AFDataResponse<Value>>
    private let shouldAutomaticallyCancel: Bool

    init(request: DataRequest, waiter: ResponseWaiter<AFDataResponse<Value>>, shouldAutomaticallyCancel: Bool) {
        self.request = request
        self.waiter = waiter
        self.shouldAutomaticallyCancel = shouldAutomaticallyCancel
    }

    /// The full response: request, response, data, metrics and result.
    public var response: AFDataResponse<Value> {
        get async {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return waiter.delivered
        }
    }
    /// The result.
    public var result: Result<Value, AFError> {
        get async {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return deliveredResult
        }
    }
    /// The value, or the error thrown.
    public var value: Value {
        get async throws {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return try deliveredResult.get()
        }
    }

    /// The delivered response's result, read outside the async frames (see `ResponseWaiter`).
    @inline(never)
    private var deliveredResult: Result<Value, AFError> { waiter.delivered.result }

    /// Cancels the request.
    public func cancel() { request.cancel() }
    /// Resumes the request.
    public func resume() { request.resume() }
    /// Suspends the request (before it was sent).
    public func suspend() { request.suspend() }
}

extension DataRequest {
    /// The body as `Data`, awaited.
    /// - Parameters:
    ///   - shouldAutomaticallyCancel: Cancel the request when the awaiting task (or the task group
    ///     it runs in) is cancelled. `true` by default, as in Alamofire since 5.8; with `false` the
    ///     request runs on and the response is still delivered.
    ///   - dataPreprocessor: Runs on the body before it is returned; passes it through by default.
    ///   - emptyResponseCodes: Statuses for which an empty body is a success; 204 and 205 by default.
    ///   - emptyRequestMethods: Methods for which an empty body is a success; `HEAD` by default.
    public func serializingData(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<Data> {
        serializingResponse(using: DataResponseSerializer.reusingDefaults(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The body as a `String`, awaited.
    public func serializingString(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<String> {
        serializingResponse(using: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The body decoded as `T`, awaited.
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> DataTask<T> {
        serializingResponse(using: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The response serialized by `serializer`, awaited.
    public func serializingResponse<Serializer: DataResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DataTask<Serializer.SerializedObject> {
        // No queue is named here, so none is hopped to: the response is serialized where it
        // completes (the connection's loop, for a body up to 64 KiB) and the awaiting task is
        // resumed from there. A keep-alive GET costs two thread wake-ups (caller → loop →
        // awaiting task) instead of five (… → request queue → serialization queue → task);
        // see `DataRequest.serializeInPlace` and the numbers in
        // `RequestLifecycleTests.contextSwitchesPerRequest`. The waiter is the serializer's
        // turn too, and the turn's closure captures only the waiter: one allocation for both.
        let waiter = InPlaceResponseWaiter(request: self, serializer: serializer)
        cancelIfMadeInCancelledTask(shouldAutomaticallyCancel)
        appendSerializer { [waiter] onWorker in waiter.serialize(onWorker: onWorker) }
        return DataTask(request: self, waiter: waiter, shouldAutomaticallyCancel: shouldAutomaticallyCancel)
    }
}

extension Request {
    /// Cancels the request when an automatically cancelling task is made inside a Swift task that
    /// is already cancelled, before the task's serializer would start it. Awaiting it there would
    /// cancel it at once anyway; cancelled first, it never starts, where started first it could
    /// finish on loopback before the cancellation reached it. (Alamofire starts a request a queue
    /// hop after its serializer is added, so its cancellation wins that race in practice.)
    func cancelIfMadeInCancelledTask(_ automaticallyCancelling: Bool) {
        if automaticallyCancelling, Task.isCancelled { cancel() }
    }
}
