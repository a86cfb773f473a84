#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization

extension DownloadRequest {
    // MARK: Response handlers

    /// Calls `completionHandler` on `queue` with the raw outcome (the file URL) once finished.
    /// - Parameters:
    ///   - queue: `.main` by default, as in Alamofire (README "Completion queues").
    ///   - completionHandler: Receives the response, with the file's URL or `nil`.
    @discardableResult
    public func response(queue: DispatchQueue = .main,
                         completionHandler: @escaping @Sendable (AFDownloadResponse<URL?>) -> Void) -> Self {
        // A serializer that never fails (Alamofire's: no retrier is asked), taking its turn on the
        // serialization queue, so handlers complete in the order they were added.
        appendSerializer { [self] _ in serializationQueue.async { [self] in
            let (request, response, error, metrics) = mutable.withLock { ($0.request, $0.response, $0.error, $0.metricsTask?.collectedMetrics) }
            let fileURL = self.fileURL
            let result: Result<URL?, AFError> = error.map { .failure($0) } ?? .success(fileURL)
            let value = DownloadResponse(request: request, response: response, fileURL: fileURL, resumeData: resumeData,
                                         metrics: metrics, serializationDuration: 0, result: result)
            if isMonitored(.didParseDownloadResponse) { emit(.didParseDownloadResponse) { [self] in $0.request(self, didParseResponse: value) } }
            serializerFinished(value, failure: nil, onWorker: true, deliver: { value in queue.async { completionHandler(value) } },
                               replacingFailure: { value, _ in value })
        } }
        return self
    }

    /// Calls `completionHandler` on `queue` with the download serialized by `responseSerializer`
    /// (run on the request's serialization queue).
    @discardableResult
    public func response<Serializer: DownloadResponseSerializerProtocol>(
        queue: DispatchQueue = .main,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        serializeDownload(using: responseSerializer) { value in queue.async { completionHandler(value) } }
        return self
    }

    /// Serializes the download once finished, on the serialization queue, and hands the result to
    /// `deliver` there (Alamofire's semantics for the completion-handler API).
    func serializeDownload<Serializer: DownloadResponseSerializerProtocol>(
        using responseSerializer: Serializer,
        deliver: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) {
        appendSerializer { [self] _ in
            serializationQueue.async { [self] in finished(serialized(using: responseSerializer), onWorker: true, deliver: deliver) }
        }
    }

    /// Serializes the download where it finishes, for callers that name no queue (the async
    /// API): a download finishes on the request's queue, so the serializer runs there and the
    /// awaiting task is resumed from there, without a hop to the serialization queue. A handler
    /// added after the download finished hops to the serialization queue (it may read a file).
    func serializeDownloadInPlace<Serializer: DownloadResponseSerializerProtocol>(
        using responseSerializer: Serializer,
        deliver: @escaping @Sendable (AFDownloadResponse<Serializer.SerializedObject>) -> Void
    ) {
        appendSerializer { [self] onWorker in
            if onWorker {
                finished(serialized(using: responseSerializer), onWorker: true, deliver: deliver)
            } else {
                serializationQueue.async { [self] in finished(serialized(using: responseSerializer), onWorker: true, deliver: deliver) }
            }
        }
    }

    /// Reports a serializer's response: delivered now or held, or its failure retried.
    private func finished<Value: Sendable>(_ value: AFDownloadResponse<Value>, onWorker: Bool,
                                           deliver: @escaping @Sendable (AFDownloadResponse<Value>) -> Void) {
        serializerFinished(value, failure: value.error, onWorker: onWorker, deliver: deliver) { value, error in
            value.mapError { _ in error }
        }
    }

    /// The finished download, serialized by `responseSerializer` on this thread.
    private func serialized<Serializer: DownloadResponseSerializerProtocol>(
        using responseSerializer: Serializer
    ) -> AFDownloadResponse<Serializer.SerializedObject> {
        let (request, response, error, metrics) = mutable.withLock { ($0.request, $0.response, $0.error, $0.metricsTask?.collectedMetrics) }
        let fileURL = self.fileURL
        let start = DispatchTime.now().uptimeNanoseconds
        let result: Result<Serializer.SerializedObject, AFError>
        do {
            result = .success(try responseSerializer.serializeDownload(request: request, response: response, fileURL: fileURL, error: error))
        } catch {
            result = .failure(error.asAFError(or: .responseSerializationFailed(reason: .customSerializationFailed(error: error))))
        }
        let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let value = DownloadResponse(request: request, response: response, fileURL: fileURL, resumeData: resumeData,
                                     metrics: metrics, serializationDuration: duration, result: result)
        if isMonitored(.didParseDownloadResponse) { emit(.didParseDownloadResponse) { [self] in $0.request(self, didParseResponse: value) } }
        return value
    }

    /// The downloaded file's URL.
    @discardableResult
    public func responseURL(queue: DispatchQueue = .main,
                            completionHandler: @escaping @Sendable (AFDownloadResponse<URL>) -> Void) -> Self {
        response(queue: queue, responseSerializer: URLResponseSerializer(), completionHandler: completionHandler)
    }

    /// The downloaded file's bytes; see ``DataResponseSerializer`` for the empty-body rules.
    @discardableResult
    public func responseData(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<Data>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// The downloaded file as a `String`, decoded with `encoding` or the response's charset.
    @discardableResult
    public func responseString(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<String>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// The downloaded file decoded as `T` with `decoder` (a `JSONDecoder` by default).
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDownloadResponse<T>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }
}

/// The async face of a `DownloadRequest`'s serialized response (Alamofire's `DownloadTask`).
///
/// The serializer is attached when the task is made (which starts the download); the response
/// can be awaited any number of times, from any task.
public struct DownloadTask<Value: Sendable>: Sendable {
    private let request: DownloadRequest
    private let waiter = ResponseWaiter<AFDownloadResponse<Value>>()
    private let shouldAutomaticallyCancel: Bool

    init(request: DownloadRequest, shouldAutomaticallyCancel: Bool,
         serialize: (DownloadRequest, @escaping @Sendable (AFDownloadResponse<Value>) -> Void) -> Void) {
        self.request = request
        self.shouldAutomaticallyCancel = shouldAutomaticallyCancel
        serialize(request) { [waiter] in waiter.deliver($0) }
    }

    /// The full response: request, response, file URL, metrics and result.
    public var response: AFDownloadResponse<Value> {
        get async {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return waiter.delivered
        }
    }
    /// The result.
    public var result: Result<Value, AFError> {
        get async {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return waiter.delivered.result
        }
    }
    /// The value, or the error thrown.
    public var value: Value {
        get async throws {
            await waiter.wait(cancelling: shouldAutomaticallyCancel ? request : nil)
            return try waiter.delivered.result.get()
        }
    }

    /// Cancels the download.
    public func cancel() { request.cancel() }
    /// Resumes the download.
    public func resume() { request.resume() }
    /// Suspends the download (before it was sent).
    public func suspend() { request.suspend() }
}

extension DownloadRequest {
    /// The downloaded file's URL, awaited.
    /// - Parameter shouldAutomaticallyCancel: Cancel the download when the awaiting task (or its
    ///   task group) is cancelled. `true` by default, as in Alamofire since 5.8.
    public func serializingDownloadedFileURL(automaticallyCancelling shouldAutomaticallyCancel: Bool = true) -> DownloadTask<URL> {
        serializingDownload(using: URLResponseSerializer(), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The downloaded file's bytes, awaited.
    public func serializingData(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DownloadTask<Data> {
        serializingDownload(using: DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The downloaded file as a `String`, awaited.
    public func serializingString(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> DownloadTask<String> {
        serializingDownload(using: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The downloaded file decoded as `T`, awaited.
    public func serializingDecodable<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> DownloadTask<T> {
        serializingDownload(using: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), automaticallyCancelling: shouldAutomaticallyCancel)
    }

    /// The download serialized by `serializer`, awaited.
    public func serializingDownload<Serializer: DownloadResponseSerializerProtocol>(
        using serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true
    ) -> DownloadTask<Serializer.SerializedObject> {
        cancelIfMadeInCancelledTask(shouldAutomaticallyCancel)
        return DownloadTask(request: self, shouldAutomaticallyCancel: shouldAutomaticallyCancel) { request, done in
            request.serializeDownloadInPlace(using: serializer, deliver: done)
        }
    }
}
