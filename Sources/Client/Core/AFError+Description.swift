#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

// Messages are for people reading logs. Programs should match cases and predicates instead:
// the wording may change between releases.

extension AFError: LocalizedError {
    /// A sentence saying what failed and, where known, why.
    public var errorDescription: String? {
        switch self {
        case .explicitlyCancelled:
            "The request was cancelled explicitly."
        case let .invalidURL(url):
            "The value \(url) is not a valid URL."
        case let .parameterEncodingFailed(reason):
            reason.localizedDescription
        case let .parameterEncoderFailed(reason):
            reason.localizedDescription
        case let .multipartEncodingFailed(reason):
            reason.localizedDescription
        case let .requestAdaptationFailed(error):
            "The request could not be adapted: \(error.localizedDescription)"
        case let .responseValidationFailed(reason):
            reason.localizedDescription
        case let .responseSerializationFailed(reason):
            reason.localizedDescription
        case let .requestRetryFailed(retryError, originalError):
            "The retrier failed with \(retryError.localizedDescription) while deciding whether to retry "
                + "after \(originalError.localizedDescription)"
        case .sessionDeinitialized:
            "The Session was released before its request finished; keep a reference to the Session."
        case let .sessionInvalidated(error):
            "The Session was invalidated" + (error.map { ": \($0.localizedDescription)" } ?? ".")
        case let .serverTrustEvaluationFailed(reason):
            "Server trust evaluation failed: " + reason.localizedDescription
        case let .sessionTaskFailed(error):
            "The transfer failed: \(error.localizedDescription)"
        case let .urlRequestValidationFailed(reason):
            reason.localizedDescription
        case let .createUploadableFailed(error):
            "The upload body could not be created: \(error.localizedDescription)"
        case let .createURLRequestFailed(error):
            "The URLRequest could not be created: \(error.localizedDescription)"
        case let .downloadedFileMoveFailed(error, source, destination):
            "The downloaded file could not be moved from \(source.path) to \(destination.path): "
                + error.localizedDescription
        }
    }
}

extension AFError: CustomStringConvertible {
    /// Same as ``errorDescription``.
    public var description: String {
        errorDescription ?? "AFError"
    }
}

extension AFError.ParameterEncodingFailureReason {
    var localizedDescription: String {
        switch self {
        case .missingURL:
            "The parameters could not be encoded because the request has no URL."
        case let .jsonEncodingFailed(error):
            "The parameters could not be encoded as JSON: \(error.localizedDescription)"
        case let .customEncodingFailed(error):
            "A custom parameter encoding failed: \(error.localizedDescription)"
        }
    }
}

extension AFError.ParameterEncoderFailureReason {
    var localizedDescription: String {
        switch self {
        case .missingRequiredComponent(.url):
            "The parameters could not be encoded because the request's URL is missing or could not be rebuilt."
        case let .missingRequiredComponent(.httpMethod(rawValue)):
            "The parameters could not be encoded because the request's method \(rawValue) is not usable."
        case let .encoderFailed(error):
            "The parameter encoder failed: \(error.localizedDescription)"
        }
    }
}

extension AFError.MultipartEncodingFailureReason {
    var localizedDescription: String {
        switch self {
        case let .bodyPartURLInvalid(url):
            "The multipart body part URL \(url.absoluteString) is not a file URL."
        case let .bodyPartFilenameInvalid(url):
            "The multipart body part URL \(url.absoluteString) has no usable file name."
        case let .bodyPartFileNotReachable(url):
            "The multipart body part file \(url.path) cannot be reached."
        case let .bodyPartFileNotReachableWithError(url, error):
            "Checking the multipart body part file \(url.path) failed: \(error.localizedDescription)"
        case let .bodyPartFileIsDirectory(url):
            "The multipart body part file \(url.path) is a directory."
        case let .bodyPartFileSizeNotAvailable(url):
            "The size of the multipart body part file \(url.path) is not available."
        case let .bodyPartFileSizeQueryFailedWithError(url, error):
            "Reading the size of the multipart body part file \(url.path) failed: \(error.localizedDescription)"
        case let .bodyPartInputStreamCreationFailed(url):
            "No input stream could be created for the multipart body part file \(url.path)."
        case let .outputStreamCreationFailed(url):
            "No output stream could be created for \(url.path)."
        case let .outputStreamFileAlreadyExists(url):
            "A file already exists at \(url.path)."
        case let .outputStreamURLInvalid(url):
            "The output URL \(url.absoluteString) is not a file URL."
        case let .outputStreamWriteFailed(error):
            "Writing the multipart form failed: \(error.localizedDescription)"
        case let .inputStreamReadFailed(error):
            "Reading a multipart body part failed: \(error.localizedDescription)"
        }
    }
}

extension AFError.ResponseValidationFailureReason {
    var localizedDescription: String {
        switch self {
        case .dataFileNil:
            "Validation failed because the downloaded file is missing."
        case let .dataFileReadFailed(url):
            "Validation failed because the downloaded file \(url.path) could not be read."
        case let .missingContentType(types):
            "The response has no Content-Type, and the acceptable types (\(types.joined(separator: ", "))) "
                + "include no wildcard."
        case let .unacceptableContentType(types, responseType):
            "The response Content-Type \(responseType) is not one of the acceptable types: "
                + types.joined(separator: ", ") + "."
        case let .unacceptableStatusCode(code):
            "The response status code \(code) is not acceptable."
        case let .customValidationFailed(error):
            "Custom validation failed: \(error.localizedDescription)"
        }
    }
}

extension AFError.ResponseSerializationFailureReason {
    var localizedDescription: String {
        switch self {
        case .inputDataNilOrZeroLength:
            "The response body is empty, and an empty body is not allowed for this request and status code."
        case .inputFileNil:
            "The downloaded file is missing."
        case let .inputFileReadFailed(url):
            "The downloaded file \(url.path) could not be read."
        case let .stringSerializationFailed(encoding):
            "The response body is not valid text in the \(encoding) encoding."
        case let .jsonSerializationFailed(error):
            "The response body is not valid JSON: \(error.localizedDescription)"
        case let .decodingFailed(error):
            "The response body could not be decoded: \(error.localizedDescription)"
        case let .customSerializationFailed(error):
            "A custom response serializer failed: \(error.localizedDescription)"
        case let .invalidEmptyResponse(type):
            "The response body is empty, but \(type) cannot be empty; use a type conforming to EmptyResponse, "
                + "such as Empty."
        }
    }
}

extension AFError.URLRequestValidationFailureReason {
    var localizedDescription: String {
        switch self {
        case let .bodyDataInGETRequest(data):
            "A GET request must not have a body, but this one has \(data.count) bytes."
        }
    }
}
