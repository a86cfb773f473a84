#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// The error type of every Lariat request, with Alamofire 5's cases and reasons.
///
/// Failures from Lariat's own layers arrive wrapped: a transport failure is
/// ``sessionTaskFailed(error:)`` holding a `URLError`, whose `underlyingError` is Lariat's typed
/// transport error. Match on the case and the `is…Error` predicates; do not match message text.
///
/// The file is split by concern: cases here, nested reason types in `AFError+Reasons.swift`,
/// predicates and accessors in `AFError+Properties.swift`, text in `AFError+Description.swift`.
///
/// Adding a case (as `serverTrustEvaluationFailed(reason:)` with its `ServerTrustFailureReason`
/// in `AFError+ServerTrust.swift` was): declare it below, then extend the three exhaustive switches, in
/// ``underlyingError``, ``url`` and ``errorDescription``, plus an `is…Error` predicate.
public enum AFError: Error, Sendable {
    /// Creating the upload body (`UploadableConvertible.createUploadable()`) threw.
    case createUploadableFailed(error: any Error)
    /// `URLRequestConvertible.asURLRequest()` threw.
    case createURLRequestFailed(error: any Error)
    /// Moving a downloaded file from `source` to `destination` failed.
    case downloadedFileMoveFailed(error: any Error, source: URL, destination: URL)
    /// The request was cancelled by a call to `cancel()`.
    case explicitlyCancelled
    /// A ``URLConvertible`` did not produce a valid `URL`.
    case invalidURL(url: any URLConvertible)
    /// Multipart form encoding failed.
    case multipartEncodingFailed(reason: MultipartEncodingFailureReason)
    /// A ``ParameterEncoding`` threw while encoding parameters.
    case parameterEncodingFailed(reason: ParameterEncodingFailureReason)
    /// A ``ParameterEncoder`` threw while encoding parameters.
    case parameterEncoderFailed(reason: ParameterEncoderFailureReason)
    /// A `RequestAdapter` threw while adapting the request.
    case requestAdaptationFailed(error: any Error)
    /// A `RequestRetrier` threw while deciding whether to retry `originalError`.
    case requestRetryFailed(retryError: any Error, originalError: any Error)
    /// Response validation failed.
    case responseValidationFailed(reason: ResponseValidationFailureReason)
    /// Response serialization failed.
    case responseSerializationFailed(reason: ResponseSerializationFailureReason)
    /// The `Session` that issued the request was released before the request finished.
    case sessionDeinitialized
    /// The `Session` was invalidated, with the error that caused it if any.
    case sessionInvalidated(error: (any Error)?)
    /// The server's certificate was refused by a ``ServerTrustEvaluating`` evaluator of the
    /// session's ``ServerTrustManager``, during the TLS handshake, before any request byte was sent.
    case serverTrustEvaluationFailed(reason: ServerTrustFailureReason)
    /// The transfer failed; `error` is usually a `URLError` carrying Lariat's transport error.
    case sessionTaskFailed(error: any Error)
    /// The ``URLRequest`` failed validation before being sent.
    case urlRequestValidationFailed(reason: URLRequestValidationFailureReason)
}

extension Error {
    /// The error as an ``AFError``, or `nil` if it is another type.
    public var asAFError: AFError? {
        self as? AFError
    }

    /// The error as an ``AFError``, stopping the program if it is another type.
    ///
    /// - Parameters:
    ///   - message: The message for the crash.
    ///   - file:    The file reported on crash. The caller's by default.
    ///   - line:    The line reported on crash. The caller's by default.
    /// - Returns: The error as an ``AFError``.
    public func asAFError(orFailWith message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> AFError {
        guard let afError = self as? AFError else {
            fatalError(message(), file: file, line: line)
        }
        return afError
    }

    /// The error as an ``AFError``, or `defaultAFError` if it is another type.
    func asAFError(or defaultAFError: @autoclosure () -> AFError) -> AFError {
        self as? AFError ?? defaultAFError()
    }
}
