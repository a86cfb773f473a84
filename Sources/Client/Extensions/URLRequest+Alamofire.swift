#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension URLRequest {
    /// Creates a request from any ``URLConvertible``.
    ///
    /// - Parameters:
    ///   - url:     The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method:  The HTTP method.
    ///   - headers: The header fields, kept in order. `nil` (the default) sets none.
    /// - Throws: ``AFError/invalidURL(url:)`` if `url` does not make a `URL`.
    public init(url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders? = nil) throws {
        self.init(url: try url.asURL())
        httpMethod = method.rawValue
        if let headers { self.headers = headers }
    }

    /// The HTTP method as an ``HTTPMethod``. Setting `nil` restores `GET`.
    public var method: HTTPMethod? {
        get { httpMethod.map(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }

    /// All header fields, in order, with repeated names kept. Setting replaces every field.
    public var headers: HTTPHeaders {
        get { headerFields }
        set { headerFields = newValue }
    }

    /// Checks the request for mistakes URLSession would reject.
    ///
    /// - Throws: ``AFError/urlRequestValidationFailed(reason:)`` with
    ///   ``AFError/URLRequestValidationFailureReason/bodyDataInGETRequest(_:)`` when a `GET`
    ///   request has body bytes.
    public func validate() throws {
        if method == .get, let bodyData = httpBody {
            throw AFError.urlRequestValidationFailed(reason: .bodyDataInGETRequest(bodyData))
        }
    }
}
