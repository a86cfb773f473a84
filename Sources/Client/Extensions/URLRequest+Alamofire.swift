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

    /// All header fields, in order, one per name. Setting replaces every field.
    public var headers: HTTPHeaders {
        get { headerFields }
        set { headerFields = newValue }
    }

    /// Checks the request for mistakes URLSession would reject. Sessions call it on every request
    /// before anything is sent, so such a request fails without touching the network.
    ///
    /// - Throws: ``AFError/urlRequestValidationFailed(reason:)`` with
    ///   ``AFError/URLRequestValidationFailureReason/bodyDataInGETRequest(_:)`` when a `GET`
    ///   request has body bytes (Alamofire's rule), or a `HEAD` request does (its response can
    ///   carry no body, and URLSession refuses a body there too).
    public func validate() throws {
        if method == .get || method == .head, let bodyData = httpBody {
            throw AFError.urlRequestValidationFailed(reason: .bodyDataInGETRequest(bodyData))
        }
    }
}
