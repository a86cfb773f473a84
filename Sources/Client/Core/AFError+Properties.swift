#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

// MARK: - Predicates

extension AFError {
    /// Whether this is ``sessionDeinitialized``.
    public var isSessionDeinitializedError: Bool {
        if case .sessionDeinitialized = self { return true }
        return false
    }

    /// Whether this is ``sessionInvalidated(error:)``.
    public var isSessionInvalidatedError: Bool {
        if case .sessionInvalidated = self { return true }
        return false
    }

    /// Whether this is ``explicitlyCancelled``.
    public var isExplicitlyCancelledError: Bool {
        if case .explicitlyCancelled = self { return true }
        return false
    }

    /// Whether this is ``invalidURL(url:)``; ``urlConvertible`` then holds the value.
    public var isInvalidURLError: Bool {
        if case .invalidURL = self { return true }
        return false
    }

    /// Whether this is ``parameterEncodingFailed(reason:)``; ``underlyingError`` may hold the cause.
    public var isParameterEncodingError: Bool {
        if case .parameterEncodingFailed = self { return true }
        return false
    }

    /// Whether this is ``parameterEncoderFailed(reason:)``; ``underlyingError`` may hold the cause.
    public var isParameterEncoderError: Bool {
        if case .parameterEncoderFailed = self { return true }
        return false
    }

    /// Whether this is ``multipartEncodingFailed(reason:)``; ``url`` and ``underlyingError`` may be set.
    public var isMultipartEncodingError: Bool {
        if case .multipartEncodingFailed = self { return true }
        return false
    }

    /// Whether this is ``requestAdaptationFailed(error:)``; ``underlyingError`` holds the cause.
    public var isRequestAdaptationError: Bool {
        if case .requestAdaptationFailed = self { return true }
        return false
    }

    /// Whether this is ``responseValidationFailed(reason:)``; ``acceptableContentTypes``,
    /// ``responseContentType``, ``responseCode`` and ``underlyingError`` may be set.
    public var isResponseValidationError: Bool {
        if case .responseValidationFailed = self { return true }
        return false
    }

    /// Whether this is ``responseSerializationFailed(reason:)``; ``failedStringEncoding`` and
    /// ``underlyingError`` may be set.
    public var isResponseSerializationError: Bool {
        if case .responseSerializationFailed = self { return true }
        return false
    }

    /// Whether this is ``requestRetryFailed(retryError:originalError:)``; ``underlyingError`` holds the retry error.
    public var isRequestRetryError: Bool {
        if case .requestRetryFailed = self { return true }
        return false
    }

    /// Whether this is ``createUploadableFailed(error:)``; ``underlyingError`` holds the cause.
    public var isCreateUploadableError: Bool {
        if case .createUploadableFailed = self { return true }
        return false
    }

    /// Whether this is ``createURLRequestFailed(error:)``; ``underlyingError`` holds the cause.
    public var isCreateURLRequestError: Bool {
        if case .createURLRequestFailed = self { return true }
        return false
    }

    /// Whether this is ``downloadedFileMoveFailed(error:source:destination:)``; ``sourceURL``,
    /// ``destinationURL`` and ``underlyingError`` are set.
    public var isDownloadedFileMoveError: Bool {
        if case .downloadedFileMoveFailed = self { return true }
        return false
    }

    /// Whether this is ``sessionTaskFailed(error:)``; ``underlyingError`` holds the transfer error.
    public var isSessionTaskError: Bool {
        if case .sessionTaskFailed = self { return true }
        return false
    }

    /// Whether this is ``urlRequestValidationFailed(reason:)``.
    public var isURLRequestValidationError: Bool {
        if case .urlRequestValidationFailed = self { return true }
        return false
    }
}

// MARK: - Accessors

extension AFError {
    /// The value that failed to make a URL, for ``invalidURL(url:)``.
    public var urlConvertible: (any URLConvertible)? {
        guard case let .invalidURL(url) = self else { return nil }
        return url
    }

    /// The URL involved in the failure, where the error records one.
    ///
    /// Set for multipart file failures, download file read failures, and transfer, adaptation,
    /// retry and custom validation or serialization failures whose cause is a `URLError` with a
    /// failing URL (or another `AFError` with a URL). For ``invalidURL(url:)`` use ``urlConvertible``;
    /// for other cases use the request's URL.
    public var url: URL? {
        switch self {
        case let .multipartEncodingFailed(reason): reason.url
        case let .responseValidationFailed(reason): reason.url
        case let .responseSerializationFailed(reason): reason.url
        case let .sessionTaskFailed(error), let .requestAdaptationFailed(error): failingURL(of: error)
        case let .sessionInvalidated(error): error.flatMap(failingURL(of:))
        case let .requestRetryFailed(retryError, originalError):
            failingURL(of: originalError) ?? failingURL(of: retryError)
        case .createUploadableFailed, .createURLRequestFailed, .downloadedFileMoveFailed, .explicitlyCancelled,
             .invalidURL, .parameterEncodingFailed, .parameterEncoderFailed, .sessionDeinitialized,
             .serverTrustEvaluationFailed, .urlRequestValidationFailed:
            nil
        }
    }

    /// The error behind this one, where there is one.
    ///
    /// For ``requestRetryFailed(retryError:originalError:)`` this is the retry error; for
    /// ``sessionTaskFailed(error:)`` the transfer error (a `URLError` whose own `underlyingError`
    /// is Lariat's transport error).
    public var underlyingError: (any Error)? {
        switch self {
        case let .multipartEncodingFailed(reason): reason.underlyingError
        case let .parameterEncodingFailed(reason): reason.underlyingError
        case let .parameterEncoderFailed(reason): reason.underlyingError
        case let .responseValidationFailed(reason): reason.underlyingError
        case let .responseSerializationFailed(reason): reason.underlyingError
        case let .requestAdaptationFailed(error), let .createUploadableFailed(error),
             let .createURLRequestFailed(error), let .sessionTaskFailed(error),
             let .downloadedFileMoveFailed(error, _, _), let .requestRetryFailed(error, _):
            error
        case let .sessionInvalidated(error): error
        case let .serverTrustEvaluationFailed(reason): reason.underlyingError
        case .explicitlyCancelled, .invalidURL, .sessionDeinitialized, .urlRequestValidationFailed: nil
        }
    }

    /// The acceptable content types, for the content-type reasons of ``responseValidationFailed(reason:)``.
    public var acceptableContentTypes: [String]? {
        guard case let .responseValidationFailed(reason) = self else { return nil }
        switch reason {
        case let .missingContentType(types), let .unacceptableContentType(types, _): return types
        case .dataFileNil, .dataFileReadFailed, .unacceptableStatusCode, .customValidationFailed: return nil
        }
    }

    /// The response's content type, for ``ResponseValidationFailureReason/unacceptableContentType(acceptableContentTypes:responseContentType:)``.
    public var responseContentType: String? {
        guard case let .responseValidationFailed(.unacceptableContentType(_, type)) = self else { return nil }
        return type
    }

    /// The rejected status code, for ``ResponseValidationFailureReason/unacceptableStatusCode(code:)``.
    public var responseCode: Int? {
        guard case let .responseValidationFailed(.unacceptableStatusCode(code)) = self else { return nil }
        return code
    }

    /// The encoding that failed, for ``ResponseSerializationFailureReason/stringSerializationFailed(encoding:)``.
    public var failedStringEncoding: String.Encoding? {
        guard case let .responseSerializationFailed(.stringSerializationFailed(encoding)) = self else { return nil }
        return encoding
    }

    /// The source file, for ``downloadedFileMoveFailed(error:source:destination:)``.
    public var sourceURL: URL? {
        guard case let .downloadedFileMoveFailed(_, source, _) = self else { return nil }
        return source
    }

    /// The destination file, for ``downloadedFileMoveFailed(error:source:destination:)``.
    public var destinationURL: URL? {
        guard case let .downloadedFileMoveFailed(_, _, destination) = self else { return nil }
        return destination
    }
}

/// The failing URL recorded by a `URLError`, or the ``AFError/url`` of a nested `AFError`.
private func failingURL(of error: any Error) -> URL? {
    if let urlError = error as? URLError { return urlError.failingURL }
    if let afError = error as? AFError { return afError.url }
    return nil
}

extension AFError.MultipartEncodingFailureReason {
    var url: URL? {
        switch self {
        case let .bodyPartURLInvalid(url), let .bodyPartFilenameInvalid(url), let .bodyPartFileNotReachable(url),
             let .bodyPartFileIsDirectory(url), let .bodyPartFileSizeNotAvailable(url),
             let .bodyPartInputStreamCreationFailed(url), let .outputStreamCreationFailed(url),
             let .outputStreamFileAlreadyExists(url), let .outputStreamURLInvalid(url),
             let .bodyPartFileNotReachableWithError(url, _), let .bodyPartFileSizeQueryFailedWithError(url, _):
            url
        case .outputStreamWriteFailed, .inputStreamReadFailed:
            nil
        }
    }

    var underlyingError: (any Error)? {
        switch self {
        case let .bodyPartFileNotReachableWithError(_, error), let .bodyPartFileSizeQueryFailedWithError(_, error),
             let .outputStreamWriteFailed(error), let .inputStreamReadFailed(error):
            error
        case .bodyPartURLInvalid, .bodyPartFilenameInvalid, .bodyPartFileNotReachable, .bodyPartFileIsDirectory,
             .bodyPartFileSizeNotAvailable, .bodyPartInputStreamCreationFailed, .outputStreamCreationFailed,
             .outputStreamFileAlreadyExists, .outputStreamURLInvalid:
            nil
        }
    }
}

extension AFError.ParameterEncodingFailureReason {
    var underlyingError: (any Error)? {
        switch self {
        case let .jsonEncodingFailed(error), let .customEncodingFailed(error): error
        case .missingURL: nil
        }
    }
}

extension AFError.ParameterEncoderFailureReason {
    var underlyingError: (any Error)? {
        switch self {
        case let .encoderFailed(error): error
        case .missingRequiredComponent: nil
        }
    }
}

extension AFError.ResponseValidationFailureReason {
    var url: URL? {
        switch self {
        case let .dataFileReadFailed(url): url
        case let .customValidationFailed(error): failingURL(of: error)
        case .dataFileNil, .missingContentType, .unacceptableContentType, .unacceptableStatusCode: nil
        }
    }

    var underlyingError: (any Error)? {
        switch self {
        case let .customValidationFailed(error): error
        case .dataFileNil, .dataFileReadFailed, .missingContentType, .unacceptableContentType, .unacceptableStatusCode: nil
        }
    }
}

extension AFError.ResponseSerializationFailureReason {
    var url: URL? {
        switch self {
        case let .inputFileReadFailed(url): url
        case let .customSerializationFailed(error): failingURL(of: error)
        case .inputDataNilOrZeroLength, .inputFileNil, .stringSerializationFailed, .jsonSerializationFailed,
             .decodingFailed, .invalidEmptyResponse:
            nil
        }
    }

    var underlyingError: (any Error)? {
        switch self {
        case let .jsonSerializationFailed(error), let .decodingFailed(error), let .customSerializationFailed(error):
            error
        case .inputDataNilOrZeroLength, .inputFileNil, .inputFileReadFailed, .stringSerializationFailed,
             .invalidEmptyResponse:
            nil
        }
    }
}
