#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization
import Transport

extension Session {
    /// Uploads what `stream` produces to `convertible`.
    ///
    /// With a `Content-Length` in `headers` the stream must produce exactly that many bytes (an
    /// early end or extra bytes fail the request with `URLError.requestBodyStreamExhausted`, and
    /// nothing malformed is sent); without one the body goes out with
    /// `Transfer-Encoding: chunked`. A stream body is never retried silently.
    /// - Parameters:
    ///   - stream: The body.
    ///   - convertible: The URL.
    ///   - method: `.post` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - fileManager: `.default` by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        _ stream: InputStream, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        let request = ClosureRequestConvertible { try URLRequest(url: convertible, method: method, headers: headers) }
        return UploadRequest(convertible: request, modifier: requestModifier, source: .uploadable(.stream(stream)),
                             fileManager: fileManager, interceptor: interceptor, context: context)
            .automaticallyResuming(nil)  // applies the session's request setup, as every creation path
    }

    /// Uploads what `stream` produces with the request `convertible` builds (its
    /// `Content-Length`, if any, is the stream's length; see the URL form). With
    /// `shouldAutomaticallyResume: false` the request waits for `resume()`; `nil` (the default)
    /// leaves it to the session's `startRequestsImmediately`.
    public func upload(
        _ stream: InputStream, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        UploadRequest(convertible: convertible, modifier: nil, source: .uploadable(.stream(stream)),
                      fileManager: fileManager, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }
}

extension UploadRequest {
    /// The transport body for `stream`: its length is the request's `Content-Length`, if it
    /// has a valid one, else unknown (chunked).
    /// - Throws: `AFError.createUploadableFailed` for a Content-Length that is not a number.
    static func streamBody(_ stream: InputStream, for request: URLRequest) throws -> RequestBody {
        guard let text = request.headers.value(for: "Content-Length") else {
            return .stream(RequestBodyStream(stream), length: nil)
        }
        guard let length = Int(text), length >= 0 else {
            throw AFError.createUploadableFailed(error: URLError(.requestBodyStreamExhausted))
        }
        return .stream(RequestBodyStream(stream), length: length)
    }
}

extension DataStreamRequest {
    /// Sends the file at `path`, `length` bytes, as the request's body (fetch `-T FILE`; not
    /// Alamofire API: its stream requests have no body but `httpBody`).
    package func uploadFile(atPath path: String, length: Int) {
        stream.withLock { $0.uploadBody = .file(path: path, length: length) }
    }

    /// Sends what `input` produces as the request's body: `length` bytes, or chunked when `nil`
    /// (fetch `-T -`).
    package func uploadStream(_ input: InputStream, length: Int?) {
        stream.withLock { $0.uploadBody = .stream(RequestBodyStream(input), length: length) }
    }

    /// Sends what `source` produces as the request's body: `length` bytes, or chunked when
    /// `nil` (LariatOpenAPI's streamed `HTTPBody`, a `PausableBodySource`).
    package func uploadBody(from source: any BodySource, length: Int?) {
        stream.withLock { $0.uploadBody = .stream(RequestBodyStream(source), length: length) }
    }

    /// Sends standard input, chunked, as it is read (fetch `-T -` from a pipe or terminal).
    package func uploadStandardInput() {
        uploadStream(InputStream(fileAtPath: "/dev/stdin") ?? InputStream(data: Data()), length: nil)
    }
}
