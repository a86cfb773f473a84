#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// A value that can produce a `URL`: `String`, `URL` and `URLComponents` conform.
public protocol URLConvertible: Sendable {
    /// Returns the value as a `URL`.
    ///
    /// - Returns: The URL.
    /// - Throws: Any error; Lariat's conformances throw ``AFError/invalidURL(url:)``.
    func asURL() throws -> URL
}

extension String: URLConvertible {
    /// Parses the string as a URL.
    ///
    /// Characters not allowed in the path, query or fragment (`|`, `{`, space, non-ASCII…) are
    /// percent-encoded first while the escapes already written are kept: `http://h/a|b%3D` is
    /// `http://h/a%7Cb%3D`, where `URL(string:)` alone gives `…%253D` (as curl, unlike Foundation).
    ///
    /// - Returns: The URL.
    /// - Throws: ``AFError/invalidURL(url:)`` if `URL(string:)` rejects the string.
    public func asURL() throws -> URL {
        guard let url = URL(string: URLStringEscaping.escapingInvalidCharacters(self)) else { throw AFError.invalidURL(url: self) }
        return url
    }
}

extension URL: URLConvertible {
    /// Returns `self`.
    ///
    /// - Returns: This URL.
    public func asURL() throws -> URL { self }
}

extension URLComponents: URLConvertible {
    /// Assembles the components into a URL.
    ///
    /// - Returns: The URL.
    /// - Throws: ``AFError/invalidURL(url:)`` if the components do not form a valid URL.
    public func asURL() throws -> URL {
        guard let url else { throw AFError.invalidURL(url: self) }
        return url
    }
}

/// A value that can produce a ``URLRequest``, such as a router enum describing your API.
public protocol URLRequestConvertible: Sendable {
    /// Returns the value as a request.
    ///
    /// - Returns: The request.
    /// - Throws: Any error; a session reports it as ``AFError/createURLRequestFailed(error:)``.
    func asURLRequest() throws -> URLRequest
}

extension URLRequestConvertible {
    /// The request, or `nil` if ``asURLRequest()`` throws.
    public var urlRequest: URLRequest? { try? asURLRequest() }
}

extension URLRequest: URLRequestConvertible {
    /// Returns `self`.
    ///
    /// - Returns: This request.
    public func asURLRequest() throws -> URLRequest { self }
}
