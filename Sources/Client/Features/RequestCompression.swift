#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// A request adapter that compresses a request's `httpBody` with zlib's deflate (RFC 1950, the
/// HTTP `deflate` content coding) and sets `Content-Encoding: deflate`, as Alamofire's.
///
/// Only `httpBody` is compressed: uploads of files, streams and multipart forms are sent as they
/// are, and a request without a body passes unchanged. The server must accept compressed request
/// bodies (many do not; `415 Unsupported Media Type` is the usual answer).
///
/// ```swift
/// AF.request(url, method: .post, parameters: large, encoder: JSONParameterEncoder.default,
///            interceptor: .deflateCompressor)
/// ```
public struct DeflateRequestCompressor: Sendable, RequestInterceptor {
    /// What to do when the request already has a `Content-Encoding` header.
    public enum DuplicateHeaderBehavior: Sendable {
        /// Fail the request with ``DuplicateHeaderError`` (as ``AFError/requestAdaptationFailed(error:)``).
        case error
        /// Compress anyway and replace the header with `deflate`.
        case replace
        /// Leave the request as it is, uncompressed.
        case skip
    }

    /// The request already had a `Content-Encoding` header and the behaviour is ``DuplicateHeaderBehavior/error``.
    public struct DuplicateHeaderError: Error {}

    /// What to do with an existing `Content-Encoding` header. ``DuplicateHeaderBehavior/error`` by default.
    public let duplicateHeaderBehavior: DuplicateHeaderBehavior
    /// Decides, per body, whether to compress it. Compresses every body by default.
    public let shouldCompressBodyData: @Sendable (_ bodyData: Data) -> Bool

    /// Creates a compressor.
    /// - Parameters:
    ///   - duplicateHeaderBehavior: What to do when `Content-Encoding` is already set; `.error` by default.
    ///   - shouldCompressBodyData: Whether to compress a given body; `true` for every body by default.
    public init(duplicateHeaderBehavior: DuplicateHeaderBehavior = .error,
                shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true }) {
        self.duplicateHeaderBehavior = duplicateHeaderBehavior
        self.shouldCompressBodyData = shouldCompressBodyData
    }

    /// Compresses `urlRequest`'s `httpBody` and sets `Content-Encoding: deflate`; see the type's
    /// documentation for what is left unchanged.
    /// - Parameters:
    ///   - urlRequest: The request to adapt.
    ///   - session: The session running it (unused).
    ///   - completion: Called at once with the compressed request, the unchanged one, or
    ///     ``DuplicateHeaderError`` (or zlib's failure, when memory runs out).
    public func adapt(_ urlRequest: URLRequest, for session: Session,
                      completion: @escaping (_ result: Result<URLRequest, any Error>) -> Void) {
        guard let body = urlRequest.httpBody, shouldCompressBodyData(body) else {
            return completion(.success(urlRequest))
        }
        if urlRequest.headers.value(for: "Content-Encoding") != nil {
            switch duplicateHeaderBehavior {
            case .error: return completion(.failure(DuplicateHeaderError()))
            case .replace: break
            case .skip: return completion(.success(urlRequest))
            }
        }
        do {
            let compressed = try body.withUnsafeBytes { bytes in try ZlibCompression.compress(bytes, format: .zlib) }
            var request = urlRequest
            request.httpBody = Data(compressed)
            request.headers.update(.contentEncoding("deflate"))
            completion(.success(request))
        } catch {
            completion(.failure(error))
        }
    }
}

extension RequestInterceptor where Self == DeflateRequestCompressor {
    /// A ``DeflateRequestCompressor`` with the default settings (`.error` on an existing
    /// `Content-Encoding`, every body compressed).
    public static var deflateCompressor: DeflateRequestCompressor { DeflateRequestCompressor() }

    /// A ``DeflateRequestCompressor``.
    /// - Parameters:
    ///   - duplicateHeaderBehavior: What to do when `Content-Encoding` is already set; `.error` by default.
    ///   - shouldCompressBodyData: Whether to compress a given body; `true` for every body by default.
    /// - Returns: The compressor.
    public static func deflateCompressor(
        duplicateHeaderBehavior: DeflateRequestCompressor.DuplicateHeaderBehavior = .error,
        shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true }
    ) -> DeflateRequestCompressor {
        DeflateRequestCompressor(duplicateHeaderBehavior: duplicateHeaderBehavior, shouldCompressBodyData: shouldCompressBodyData)
    }
}
