#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization

extension DataStreamRequest {
    // MARK: Stream handlers

    /// Streams the body as `Data` chunks to `stream` on `queue`, then `.complete`.
    ///
    /// Chunks arrive in order, one per run of bytes the connection read; the connection reads
    /// no faster than the handler returns (see ``maxBufferedBytes``). Adding the first handler
    /// starts the request unless it was made with `shouldAutomaticallyResume: false`.
    @discardableResult
    public func responseStream(on queue: DispatchQueue = .main, stream: @escaping Handler<Data, Never>) -> Self {
        let token = CancellationToken(self)
        appendStream(Sink(take: { [self] data in
            queue.async { [self] in
                // A cancel (perhaps from an earlier chunk's handler) stops the data events at once.
                if !isCancelled {
                    capturingError { try stream(Stream(event: .stream(.success(data)), token: token)) }
                }
                chunkHandled(data.count)
            }
        }, isQueued: true), completion: { [self] in
            queue.async { [self] in capturingError { try stream(Stream(event: .complete(completion), token: token)) } }
        })
        return self
    }

    /// Streams values `serializer` makes from each chunk to `stream` on `queue`, then
    /// `.complete`. A chunk that fails to serialize is delivered as a failure and, with
    /// ``automaticallyCancelOnStreamError``, cancels the request.
    @discardableResult
    public func responseStream<Serializer: DataStreamSerializer>(
        using serializer: Serializer, on queue: DispatchQueue = .main,
        stream: @escaping Handler<Serializer.SerializedObject, AFError>
    ) -> Self {
        let token = CancellationToken(self)
        appendStream(Sink(take: { [self] data in
            queue.async { [self] in
                // Reported after the cancel below: the request's end waits for it, so the
                // completion that follows is the cancelled one.
                defer { chunkHandled(data.count) }
                guard !isCancelled else { return }
                let result = serialized(data, using: serializer)
                if isMonitored(.didParseStream) { emit(.didParseStream) { [self] in $0.request(self, didParseStream: result) } }
                capturingError { try stream(Stream(event: .stream(result), token: token)) }
                if case .failure = result, automaticallyCancelOnStreamError { cancel() }
            }
        }, isQueued: true), completion: { [self] in
            queue.async { [self] in capturingError { try stream(Stream(event: .complete(completion), token: token)) } }
        })
        return self
    }

    /// Streams each chunk decoded as UTF-8 (invalid bytes replaced) to `stream` on `queue`.
    @discardableResult
    public func responseStreamString(on queue: DispatchQueue = .main, stream: @escaping Handler<String, Never>) -> Self {
        responseStream(on: queue) { event in
            switch event.event {
            case .stream(.success(let data)):
                try stream(Stream(event: .stream(.success(String(decoding: data, as: UTF8.self))), token: event.token))
            case .complete(let completion):
                try stream(Stream(event: .complete(completion), token: event.token))
            }
        }
    }

    /// Streams each chunk decoded as `T` (one value per chunk) to `stream` on `queue`.
    @discardableResult
    public func responseStreamDecodable<T: Decodable>(
        of type: T.Type = T.self, on queue: DispatchQueue = .main, using decoder: any DataDecoder = JSONDecoder(),
        preprocessor: any DataPreprocessor = PassthroughPreprocessor(), stream: @escaping Handler<T, AFError>
    ) -> Self where T: Sendable {
        responseStream(using: DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: preprocessor), on: queue, stream: stream)
    }

    /// `serializer`'s value for `data`, its error as an `AFError`.
    func serialized<Serializer: DataStreamSerializer>(_ data: Data, using serializer: Serializer) -> Result<Serializer.SerializedObject, AFError> {
        do {
            return .success(try serializer.serialize(data))
        } catch {
            return .failure(error.asAFError(or: .responseSerializationFailed(reason: .customSerializationFailed(error: error))))
        }
    }

    // MARK: Validation

    /// Adds a validation closure, run with the response head once the request finished, in the
    /// order added; a failure becomes the error of the `.complete` event.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        stream.withLock { $0.validators.append(validation) }
        return self
    }

    /// Accepts only status codes in `acceptableStatusCodes`.
    @discardableResult
    public func validate<S: Sequence>(statusCode acceptableStatusCodes: S) -> Self where S.Iterator.Element == Int, S: Sendable {
        validate { _, response in ResponseValidation.validate(statusCode: acceptableStatusCodes, response: response).mapError { $0 } }
    }

    /// Accepts only responses whose Content-Type matches one of `acceptableContentTypes`.
    @discardableResult
    public func validate<S: Sequence>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self
    where S.Iterator.Element == String, S: Sendable {
        validate { _, response in
            ResponseValidation.validate(contentType: acceptableContentTypes(), response: response, hasContent: true).mapError { $0 }
        }
    }

    /// Accepts status codes 200..<300 and a Content-Type matching the request's Accept field:
    /// two validations, the status code's first, as in Alamofire (monitors hear each; the
    /// second runs only if the first passed).
    @discardableResult
    public func validate() -> Self {
        validate { _, response in
            ResponseValidation.validate(statusCode: ResponseValidation.defaultAcceptableStatusCodes, response: response).mapError { $0 }
        }
        return validate { request, response in
            ResponseValidation.validate(contentType: ResponseValidation.acceptableContentTypes(for: request), response: response,
                                        hasContent: true).mapError { $0 }
        }
    }

    // MARK: onHTTPResponse

    /// Calls `handler` on `queue` with the response head; nothing more is read until it calls
    /// its completion handler, with `.allow` to go on or `.cancel` to cancel the request. The
    /// last handler set wins.
    @discardableResult
    public func onHTTPResponse(
        on queue: DispatchQueue = .main,
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse, _ completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    ) -> Self {
        stream.withLock { state in
            state.httpResponseHandler = { response, done in queue.async { handler(response, done) } }
        }
        return self
    }

    /// Calls `handler` on `queue` with the response head; the request goes on.
    @discardableResult
    public func onHTTPResponse(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        onHTTPResponse(on: queue) { response, done in
            handler(response)
            done(.allow)
        }
    }
}
