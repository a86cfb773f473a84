#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

extension Session {
    // MARK: Uploads

    /// Uploads `data` to `convertible`.
    /// - Parameters:
    ///   - data: The body.
    ///   - convertible: The URL.
    ///   - method: `.post` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - fileManager: Used for temporary files; `.default` by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        _ data: Data, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(.uploadable(.data(data)), to: convertible, method: method, headers: headers, interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager, requestModifier: requestModifier)
    }

    /// Uploads `data` with the request `convertible` builds.
    /// - Parameters:
    ///   - data: The body.
    ///   - convertible: The request.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - fileManager: `.default` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        _ data: Data, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        UploadRequest(convertible: convertible, modifier: nil, source: .uploadable(.data(data)), fileManager: fileManager,
                      interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Uploads the file at `fileURL`, streamed from disk, to `convertible`.
    /// - Parameters:
    ///   - fileURL: A `file:` URL; its size when the request starts is the `Content-Length`.
    ///   - convertible: The URL.
    ///   - method: `.post` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - fileManager: `.default` by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request. A file that cannot be opened fails it with
    ///   ``AFError/createUploadableFailed(error:)``.
    public func upload(
        _ fileURL: URL, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(.uploadable(.file(fileURL, shouldRemove: false)), to: convertible, method: method, headers: headers,
               interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager,
               requestModifier: requestModifier)
    }

    /// Uploads the file at `fileURL`, streamed from disk, with the request `convertible` builds.
    /// - Parameters:
    ///   - fileURL: A `file:` URL.
    ///   - convertible: The request.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - fileManager: `.default` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        _ fileURL: URL, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        UploadRequest(convertible: convertible, modifier: nil, source: .uploadable(.file(fileURL, shouldRemove: false)),
                      fileManager: fileManager, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Uploads multipart form data built by `multipartFormData` to `url`.
    /// - Parameters:
    ///   - multipartFormData: Appends the parts.
    ///   - url: The URL.
    ///   - encodingMemoryThreshold: Bodies smaller than this are encoded in memory, larger ones
    ///     are written to a temporary file and streamed (removed afterwards);
    ///     ``MultipartFormData/encodingMemoryThreshold`` (10 MB) by default.
    ///   - method: `.post` by default.
    ///   - headers: Added to the session's default headers; `nil` by default. The multipart
    ///     `Content-Type` with its boundary is set for you.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - fileManager: `.default` by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        multipartFormData: @escaping (MultipartFormData) -> Void, to url: any URLConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        method: HTTPMethod = .post, headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
        fileManager: FileManager = .default, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        multipartFormData(form)
        return upload(multipartFormData: form, to: url, usingThreshold: encodingMemoryThreshold, method: method,
                      headers: headers, interceptor: interceptor, fileManager: fileManager, requestModifier: requestModifier)
    }

    /// Uploads multipart form data built by `multipartFormData` with the request `request` builds.
    /// - Parameters:
    ///   - multipartFormData: Appends the parts (called at once).
    ///   - request: The request.
    ///   - encodingMemoryThreshold: ``MultipartFormData/encodingMemoryThreshold`` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - fileManager: `.default` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        multipartFormData: @escaping (MultipartFormData) -> Void, with request: any URLRequestConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        multipartFormData(form)
        return upload(multipartFormData: form, with: request, usingThreshold: encodingMemoryThreshold,
                      interceptor: interceptor, fileManager: fileManager)
    }

    /// Uploads `multipartFormData` to `url`.
    /// - Parameters: As ``upload(multipartFormData:to:usingThreshold:method:headers:interceptor:fileManager:requestModifier:)``.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        multipartFormData: MultipartFormData, to url: any URLConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        method: HTTPMethod = .post, headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(.multipart(multipartFormData, threshold: encodingMemoryThreshold), to: url, method: method,
               headers: headers, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume,
               fileManager: fileManager, requestModifier: requestModifier)
    }

    /// Uploads `multipartFormData` with the request `request` builds.
    /// - Parameters:
    ///   - multipartFormData: The form.
    ///   - request: The request.
    ///   - encodingMemoryThreshold: ``MultipartFormData/encodingMemoryThreshold`` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - fileManager: `.default` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func upload(
        multipartFormData: MultipartFormData, with request: any URLRequestConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        UploadRequest(convertible: request, modifier: nil, source: .multipart(multipartFormData, threshold: encodingMemoryThreshold),
                      fileManager: fileManager, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    private func upload(
        _ source: UploadRequest.Source, to convertible: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders?,
        interceptor: (any RequestInterceptor)?, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager,
        requestModifier: RequestModifier?
    ) -> UploadRequest {
        let request = ClosureRequestConvertible { try URLRequest(url: convertible, method: method, headers: headers) }
        return UploadRequest(convertible: request, modifier: requestModifier, source: source, fileManager: fileManager,
                             interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }
}
