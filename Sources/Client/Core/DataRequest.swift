#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization
import Transport

/// A request whose response body is collected in memory.
public class DataRequest: Request, @unchecked Sendable {
    /// A validation closure: return `.success(())` to accept the response.
    public typealias Validation = @Sendable (URLRequest?, HTTPURLResponse, Data?) -> ValidationResult

    /// What the request was built from.
    public var convertible: any URLRequestConvertible { builder.convertible }
    /// What the URLRequest is built from, kept in the request itself (see ``RequestBuilder``).
    private let builder: RequestBuilder
    private let modifier: (@Sendable (inout URLRequest) throws -> Void)?
    private let buffer = BodyBuffer()
    private let validators = ValidatorList()
    /// Set by `onHTTPResponse` (ResponseDisposition.swift).
    let httpResponseHandler = HTTPResponseHandlerSlot()

    init(builder: RequestBuilder, modifier: (@Sendable (inout URLRequest) throws -> Void)?,
         interceptor: (any RequestInterceptor)? = nil, context: RequestContext) {
        self.builder = builder
        self.modifier = modifier
        super.init(context: context, interceptor: interceptor, queueLabel: "org.lariat.request")
    }

    /// The body received so far (all of it once finished), or `nil` before any byte.
    public var data: Data? { buffer.data }
    override var usesURLCache: Bool { true }
    override func bodyOfferedToCache(for request: URLRequest) -> Data? { usesURLCache ? buffer.data ?? Data() : nil }

    override func makeURLRequest() throws -> URLRequest {
        var request = try builder.asURLRequest()
        try modifier?(&request)
        return request
    }

    override func didReceive(head: TransportResponseHead) {
        record(head: head)
        if let length = head.contentLength { buffer.reserve(length) }
        runHTTPResponseHandler()
    }

    override func didReceiveBody(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes)
    }

    /// Bodies up to this size are validated and serialized for the async API on the thread the
    /// response completed on (a connection's loop); larger ones on the request's queue, so a big
    /// JSON decode does not stall the loop's other connections. 64 KiB: issue 9's figure; a
    /// JSONDecoder pass over it takes well under a millisecond here.
    static let inlineSerializationLimit = 64 * 1024

    override var finishesOnWorker: Bool { buffer.count > Self.inlineSerializationLimit }

    override func prepareForRetry() { buffer.reset() }

    override func runValidators() {
        let (request, response, failed) = mutable.withLock { ($0.request, $0.response, $0.error != nil) }
        guard !failed, let response else { return }
        for validation in validators.all {
            let result = validation(request, response, buffer.data)
            let data = buffer.data
            if isMonitored(.didValidateData) { emit(.didValidateData) { [self] in $0.request(self, didValidateRequest: request, response: response, data: data, withResult: result) } }
            if case .failure(let error) = result {
                let afError = (error as? AFError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
                mutable.withLock { $0.error = $0.error ?? afError }
                return
            }
        }
    }

    // MARK: Validation

    /// Adds a validation closure, run when the response has ended, in the order added.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        validators.append(validation)
        return self
    }

    /// Accepts only status codes in `acceptableStatusCodes`.
    @discardableResult
    public func validate<S: Sequence<Int> & Sendable>(statusCode acceptableStatusCodes: S) -> Self {
        validate { _, response, _ in ResponseValidation.validate(statusCode: acceptableStatusCodes, response: response).mapError { $0 } }
    }

    /// Accepts only responses whose Content-Type matches one of `acceptableContentTypes`
    /// (evaluated when the response ends). Empty bodies are accepted.
    @discardableResult
    public func validate<S: Sequence<String> & Sendable>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self {
        validate { _, response, data in
            ResponseValidation.validate(contentType: acceptableContentTypes(), response: response, data: data).mapError { $0 }
        }
    }

    /// Accepts status codes 200..<300 and a Content-Type matching the request's Accept field.
    @discardableResult
    public func validate() -> Self {
        validate { request, response, data in ResponseValidation.validate(request: request, response: response, data: data).mapError { $0 } }
    }

    // MARK: Response handlers

    /// Calls `completionHandler` on `queue` with the raw response once the request finished.
    /// - Parameters:
    ///   - queue: Where to call the handler; `.main` by default, as in Alamofire (README
    ///     "Completion queues": the main queue must be served, pass a queue where it is not).
    ///   - completionHandler: Receives the response, its body as `Data` or `nil`.
    @discardableResult
    public func response(queue: DispatchQueue = .main,
                         completionHandler: @escaping @Sendable (AFDataResponse<Data?>) -> Void) -> Self {
        // A serializer that never fails (Alamofire's: no retrier is asked), taking its turn on the
        // serialization queue, so handlers complete in the order they were added.
        appendSerializer { [self] _ in serializationQueue.async { [self] in
            let (request, response, error, metrics) = mutable.withLock { ($0.request, $0.response, $0.error, $0.responseMetrics()) }
            let data = buffer.data
            let result: Result<Data?, AFError> = error.map { .failure($0) } ?? .success(data)
            let value = DataResponse(request: request, response: response, data: data, taskMetrics: metrics, serializationDuration: 0, result: result)
            if isMonitored(.didParseDataResponse) { emit(.didParseDataResponse) { [self] in $0.request(self, didParseResponse: value) } }
            serializerFinished(value, failure: nil, onWorker: true, deliver: { value in queue.async { completionHandler(value) } },
                               replacingFailure: { value, _ in value })
        } }
        return self
    }

    /// Calls `completionHandler` on `queue` with the response serialized by `responseSerializer`
    /// (run on the request's serialization queue).
    @discardableResult
    public func response<Serializer: DataResponseSerializerProtocol>(
        queue: DispatchQueue = .main,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (AFDataResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        if Self.runsNoCallerCode(responseSerializer) {
            // One object is the serializer's turn and the delivery (no closure contexts).
            let handler = QueuedResponseHandler(request: self, serializer: responseSerializer, queue: queue,
                                                completionHandler: completionHandler)
            appendSerializer { [handler] onWorker in handler.serialize(onWorker: onWorker) }
        } else {
            serializeResponse(using: responseSerializer) { value in queue.async { completionHandler(value) } }
        }
        return self
    }

    /// Whether `serializer` runs none of the caller's code: a ``DataResponseSerializer`` with the
    /// pass-through preprocessor (`responseData` with its defaults) only checks the status and
    /// hands the body on. Such a serializer takes its turn where the request finished, as the
    /// async API's serializers do (``serializeInPlace(using:onWorker:deliver:)``: a body up to
    /// ``inlineSerializationLimit`` on the connection's loop), and its handler is still called on
    /// the handler's queue: the hop to the serialization queue ran no one's code and cost two
    /// allocations (closure context and Dispatch block) and a thread wake-up per request.
    /// Serializers with a preprocessor, decoder or type of the caller's keep the serialization queue.
    static func runsNoCallerCode(_ serializer: some DataResponseSerializerProtocol) -> Bool {
        guard let data = serializer as? DataResponseSerializer else { return false }
        return data.dataPreprocessor is PassthroughPreprocessor
    }

    /// Serializes the response once the request finished, on the serialization queue, and hands
    /// the result to `deliver` there (Alamofire's semantics for the completion-handler API).
    func serializeResponse<Serializer: DataResponseSerializerProtocol>(
        using responseSerializer: Serializer,
        deliver: @escaping @Sendable (AFDataResponse<Serializer.SerializedObject>) -> Void
    ) {
        appendSerializer { [self] _ in
            serializationQueue.async { [self] in finished(serialized(using: responseSerializer), onWorker: true, deliver: deliver) }
        }
    }

    /// Serializes the response where the request finishes and hands the result to `deliver`
    /// there, for callers that name no queue (the async API) or run no caller code: on the
    /// connection's loop for a body up to ``inlineSerializationLimit``, on the request's queue
    /// for a larger one, and on the serialization queue when a large body's handler is added
    /// after the request finished. Saves the hop to the serialization queue (one thread wake-up
    /// per request). One turn of the serializer, for `onWorker` as in a ``ResponseHandler``:
    /// callers append it as a closure that captures only one object holding the serializer and
    /// the delivery (`InPlaceResponseWaiter`, `QueuedResponseHandler`), which needs no closure
    /// context of its own.
    func serializeInPlace<Serializer: DataResponseSerializerProtocol>(
        using responseSerializer: Serializer, onWorker: Bool,
        deliver: @escaping @Sendable (AFDataResponse<Serializer.SerializedObject>) -> Void
    ) {
        if onWorker || buffer.count <= Self.inlineSerializationLimit {
            finished(serialized(using: responseSerializer), onWorker: onWorker, deliver: deliver)
        } else {
            serializationQueue.async { [self] in finished(serialized(using: responseSerializer), onWorker: true, deliver: deliver) }
        }
    }

    /// Reports a serializer's response: delivered now or held, or its failure retried.
    private func finished<Value: Sendable>(_ value: AFDataResponse<Value>, onWorker: Bool,
                                           deliver: @escaping @Sendable (AFDataResponse<Value>) -> Void) {
        serializerFinished(value, failure: value.error, onWorker: onWorker, deliver: deliver) { value, error in
            value.mapError { _ in error }
        }
    }

    /// The finished request's response, serialized by `responseSerializer` on this thread.
    private func serialized<Serializer: DataResponseSerializerProtocol>(
        using responseSerializer: Serializer
    ) -> AFDataResponse<Serializer.SerializedObject> {
        let (request, response, error, metrics) = mutable.withLock { ($0.request, $0.response, $0.error, $0.responseMetrics()) }
        let data = buffer.data
        let start = DispatchTime.now().uptimeNanoseconds
        let result: Result<Serializer.SerializedObject, AFError>
        do {
            result = .success(try responseSerializer.serialize(request: request, response: response, data: data, error: error))
        } catch {
            result = .failure(error.asAFError(or: .responseSerializationFailed(reason: .customSerializationFailed(error: error))))
        }
        let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let value = DataResponse(request: request, response: response, data: data, taskMetrics: metrics,
                                 serializationDuration: duration, result: result)
        if isMonitored(.didParseDataResponse) { emit(.didParseDataResponse) { [self] in $0.request(self, didParseResponse: value) } }
        return value
    }

    /// The body as `Data`; see ``DataResponseSerializer`` for the empty-body rules.
    @discardableResult
    public func responseData(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDataResponse<Data>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer.reusingDefaults(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// The body as a `String`, decoded with `encoding` or the response's charset.
    @discardableResult
    public func responseString(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDataResponse<String>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }

    /// The body decoded as `T` with `decoder` (a `JSONDecoder` by default).
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods,
        completionHandler: @escaping @Sendable (AFDataResponse<T>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        ), completionHandler: completionHandler)
    }
}

/// The body collected so far; appended on the connection's loop, read from any thread.
/// Stored inline in its request (noncopyable): no allocation of its own per request.
struct BodyBuffer: ~Copyable, Sendable {
    private let storage = Mutex<Data?>(nil)
    /// At most this much is reserved up front from a response's Content-Length: the server
    /// chooses that number, so it must not choose our allocation without bound (reserving only maps
    /// address space: pages become resident as bytes arrive); beyond it, Data grows by doubling.
    static let maxReservation = 256 * 1024 * 1024

    /// Reserves room for a body of `length` bytes (capped at ``maxReservation``) before any byte
    /// arrived, so a large body is not copied at every doubling.
    func reserve(_ length: Int) {
        guard length > 0 else { return }
        storage.withLock { data in
            if data == nil { data = Data(capacity: min(length, Self.maxReservation)) }
        }
    }

    /// Appends a copy of `bytes`, in place (`($0 ?? Data()) + chunk` built a new Data per chunk,
    /// which made a 100 MiB download copy quadratically).
    func append(_ bytes: UnsafeRawBufferPointer) {
        storage.withLock { data in
            if data == nil { data = Data(bytes) } else { data!.append(contentsOf: bytes) }
        }
    }
    /// The bytes received, `nil` before the first (room reserved for a body is not a body: a
    /// request cancelled at its head has no data, as in Alamofire).
    var data: Data? { storage.withLock { $0?.isEmpty == false ? $0 : nil } }
    /// Forgets the body (a retry starts a new one).
    func reset() { storage.withLock { $0 = nil } }
    /// Bytes received so far.
    var count: Int { storage.withLock { $0?.count ?? 0 } }
}

/// Validation closures in the order added; stored inline in its request (noncopyable): no
/// allocation of its own per request.
struct ValidatorList: ~Copyable, Sendable {
    private let storage = Mutex<[DataRequest.Validation]>([])
    func append(_ validation: @escaping DataRequest.Validation) { storage.withLock { $0.append(validation) } }
    var all: [DataRequest.Validation] { storage.withLock { $0 } }
}
