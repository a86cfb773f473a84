#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch

/// The async face of a `DataRequest`'s serialized response (Alamofire's `DataTask`).
public struct DataTask<Value: Sendable>: Sendable {
    private let request: DataRequest
    private let task: Task<AFDataResponse<Value>, Never>
    private let shouldAutomaticallyCancel: Bool

    init(request: DataRequest, shouldAutomaticallyCancel: Bool, serialize: @escaping @Sendable (DataRequest, @escaping @Sendable (AFDataResponse<Value>) -> Void) -> Void) {
        self.request = request
        self.shouldAutomaticallyCancel = shouldAutomaticallyCancel
        task = Task {
            await withCheckedContinuation { continuation in
                serialize(request) { continuation.resume(returning: $0) }
            }
        }
    }

    /// The full response: request, response, data, metrics and result.
    public var response: AFDataResponse<Value> {
        get async {
            // The handler belongs here, around the caller's await: the serializing task is
            // unstructured, so cancelling the caller never cancels it.
            guard shouldAutomaticallyCancel else { return await task.value }
            return await withTaskCancellationHandler { await task.value } onCancel: { request.cancel() }
        }
    }
    /// The result.
    public var result: Result<Value, AFError> { get async { await response.result } }
    /// The value, or the error thrown.
    public var value: Value { get async throws { try await result.get() } }

    /// Cancels the request.
    public func cancel() { request.cancel() }
    /// Resumes the request.
    public func resume() { request.resume() }
    /// Suspends the request (before it was sent).
    public func suspend() { request.suspend() }
}

extension DataRequest {
    /// The body as `Data`, awaited.
    /// - Parameter shouldAutomaticallyCancel: Cancel the request when the awaiting task is
    ///   cancelled. `false` by default, as in Alamofire.
    public func serializingData(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = false,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataTask<Data> {
        serializingResponse(using: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The body as a `String`, awaited.
    public func serializingString(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = false,
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
        automaticallyCancelling shouldAutomaticallyCancel: Bool = false,
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
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = false
    ) -> DataTask<Serializer.SerializedObject> {
        DataTask(request: self, shouldAutomaticallyCancel: shouldAutomaticallyCancel) { request, done in
            request.response(queue: Session.defaultCompletionQueue, responseSerializer: serializer, completionHandler: done)
        }
    }
}
