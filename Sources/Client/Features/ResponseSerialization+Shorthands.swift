#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension ResponseSerializer {
    /// Whether the request's method or the response's status code allows an empty body
    /// (Alamofire's current name for ``emptyResponseAllowed(request:response:)``).
    /// - Parameters:
    ///   - request: The request.
    ///   - response: The response.
    /// - Returns: `true` if either allows it.
    public func emptyResponseAllowed(forRequest request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        emptyResponseAllowed(request: request, response: response)
    }
}

extension ResponseSerializer where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with the default settings.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with the default settings.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
}

/// Alamofire's former name for ``DisabledTrustEvaluator``.
@available(*, deprecated, renamed: "DisabledTrustEvaluator", message: "DisabledEvaluator has been renamed DisabledTrustEvaluator.")
public typealias DisabledEvaluator = DisabledTrustEvaluator
