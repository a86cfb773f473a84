#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// The checks behind `DataRequest.validate()`, as pure functions of the request and response.
///
/// `validate()` with no arguments accepts status codes `200..<300` and, for non-empty bodies,
/// a `Content-Type` matching the request's `Accept` field (`*/*` when there is none). Failures are
/// ``AFError/responseValidationFailed(reason:)`` with the reason Alamofire gives.
enum ResponseValidation {
    /// The status codes `validate()` accepts: `200..<300`.
    static let defaultAcceptableStatusCodes = 200..<300

    /// The media ranges the request accepts: its `Accept` field split on commas, each trimmed,
    /// or `["*/*"]` when the field is absent.
    static func acceptableContentTypes(for request: URLRequest?) -> [String] {
        guard let accept = request?.value(forHTTPHeaderField: "Accept") else { return ["*/*"] }
        return accept.split(separator: ",").map { trimmedWhitespace($0) }.filter { !$0.isEmpty }
    }

    /// Accepts the response if its status code is in `acceptableStatusCodes`.
    ///
    /// - Returns: `.unacceptableStatusCode(code:)` on failure.
    static func validate<S: Sequence<Int>>(statusCode acceptableStatusCodes: S, response: HTTPURLResponse) -> Result<Void, AFError> {
        if acceptableStatusCodes.contains(response.statusCode) { return .success(()) }
        return .failure(.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
    }

    /// Accepts the response if its media type matches one of `acceptableContentTypes`.
    ///
    /// An empty or missing body passes: there is no content whose type could be wrong. Without a
    /// parseable `Content-Type`, the response passes only if some acceptable type is `*/*`.
    /// Matching ignores case and parameters and honours `type/*` and `*/*` (see ``MIMEType/matches(_:)``).
    ///
    /// - Returns: `.missingContentType` or `.unacceptableContentType` on failure, with the acceptable
    ///   types sorted as Alamofire reports them.
    static func validate<S: Sequence<String>>(contentType acceptableContentTypes: S, response: HTTPURLResponse, data: Data?) -> Result<Void, AFError> {
        validate(contentType: acceptableContentTypes, response: response, hasContent: data.map { !$0.isEmpty } ?? false)
    }

    /// ``validate(contentType:response:data:)`` for a body known only by whether it is empty
    /// (a download's file, which is not read to validate it).
    static func validate<S: Sequence<String>>(contentType acceptableContentTypes: S, response: HTTPURLResponse, hasContent: Bool) -> Result<Void, AFError> {
        guard hasContent else { return .success(()) }
        let acceptable = Array(acceptableContentTypes)
        let acceptableTypes = acceptable.compactMap(MIMEType.init)
        guard let contentType = response.value(forHTTPHeaderField: "Content-Type"),
              let responseType = MIMEType(contentType)
        else {
            if acceptableTypes.contains(where: \.isWildcard) { return .success(()) }
            return .failure(.responseValidationFailed(reason: .missingContentType(acceptableContentTypes: acceptable.sorted())))
        }
        if acceptableTypes.contains(where: { $0.matches(responseType) }) { return .success(()) }
        return .failure(.responseValidationFailed(reason: .unacceptableContentType(
            acceptableContentTypes: acceptable.sorted(),
            responseContentType: responseType.essence
        )))
    }

    /// The default validation: status code in `200..<300`, then content type against the request's `Accept`.
    ///
    /// - Returns: The first failure, or success.
    static func validate(request: URLRequest?, response: HTTPURLResponse, data: Data?) -> Result<Void, AFError> {
        validate(request: request, response: response, hasContent: data.map { !$0.isEmpty } ?? false)
    }

    /// The default validation for a body known only by whether it is empty.
    static func validate(request: URLRequest?, response: HTTPURLResponse, hasContent: Bool) -> Result<Void, AFError> {
        validate(statusCode: defaultAcceptableStatusCodes, response: response).flatMap {
            validate(contentType: acceptableContentTypes(for: request), response: response, hasContent: hasContent)
        }
    }
}
