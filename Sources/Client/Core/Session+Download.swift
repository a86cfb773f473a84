#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

extension Session {
    // MARK: Downloads

    /// Downloads `convertible` into a file, with `[String: Any]` parameters encoded by `encoding`.
    /// - Parameters:
    ///   - convertible: The URL.
    ///   - method: `.get` by default.
    ///   - parameters: Encoded into the query or body; `nil` by default.
    ///   - encoding: `URLEncoding.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    ///   - destination: Where the finished file goes; `nil` (the default) keeps it in the
    ///     temporary directory.
    /// - Returns: The request; it starts when a response handler is added.
    public func download(
        _ convertible: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let box = ParametersBox(parameters)
        let request = ClosureRequestConvertible {
            try encoding.encode(try URLRequest(url: convertible, method: method, headers: headers), with: box.parameters)
        }
        return DownloadRequest(convertible: request, modifier: requestModifier, destination: destination, fileManager: .default,
                               interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Downloads `convertible` into a file, with `Encodable` parameters encoded by `encoder`.
    /// - Parameters: As ``download(_:method:parameters:encoding:headers:interceptor:shouldAutomaticallyResume:requestModifier:to:)``, with
    ///   `encoder` (`URLEncodedFormParameterEncoder.default` by default) in place of `encoding`.
    /// - Returns: The request; it starts when a response handler is added.
    public func download<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default,
        headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        let request = ClosureRequestConvertible {
            try encoder.encode(parameters, into: try URLRequest(url: convertible, method: method, headers: headers))
        }
        return DownloadRequest(convertible: request, modifier: requestModifier, destination: destination, fileManager: .default,
                               interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Downloads what the request `convertible` builds into a file.
    /// - Parameters:
    ///   - convertible: The request.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - destination: Where the finished file goes; `nil` keeps it in the temporary directory.
    /// - Returns: The request; it starts when a response handler is added.
    public func download(
        _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        DownloadRequest(convertible: convertible, modifier: nil, destination: destination, fileManager: .default,
                        interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Continues a download from the resume data a cancelled or failed ``DownloadRequest``
    /// produced (``DownloadRequest/resumeData``, `AFError.downloadResumeData`).
    ///
    /// The request is sent again with `Range: bytes=N-` and `If-Range`; a `206` continues the
    /// partial file, a `200` (the resource changed) starts it over, a `206` that does not fit
    /// fails with ``ResumeDataError``. Resume data that is not Lariat's, is of another version,
    /// or names a file that is not its partial download fails the request with
    /// `AFError.createURLRequestFailed(error:)` holding a ``ResumeDataError``, before any I/O.
    /// - Parameters:
    ///   - data: The resume data.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default) leaves it to the session's `startRequestsImmediately`.
    ///   - destination: Where the finished file goes; `nil` keeps it in the temporary directory.
    /// - Returns: The request.
    public func download(
        resumingWith data: Data, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        to destination: DownloadRequest.Destination? = nil
    ) -> DownloadRequest {
        // The convertible is never asked: `DownloadRequest.makeURLRequest` builds the request
        // from the resume data.
        let placeholder = ClosureRequestConvertible { throw AFError.createURLRequestFailed(error: ResumeDataError(.malformed)) }
        return DownloadRequest(convertible: placeholder, modifier: nil, destination: destination, fileManager: .default,
                               interceptor: interceptor, context: context, resumingFrom: data)
            .automaticallyResuming(shouldAutomaticallyResume)
    }
}
