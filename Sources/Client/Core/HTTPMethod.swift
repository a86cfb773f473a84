/// An HTTP request method, such as `GET` or `POST`.
///
/// Methods are case-sensitive tokens (RFC 9110 §9.1), so `HTTPMethod(rawValue: "get")` is a
/// different method from `.get`. Any token can be used; the static members cover the methods
/// defined by RFC 9110, RFC 5789 (`PATCH`) and the `QUERY` draft.
public struct HTTPMethod: RawRepresentable, Equatable, Hashable, Sendable {
    /// `CONNECT` (RFC 9110 §9.3.6).
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    /// `DELETE` (RFC 9110 §9.3.5).
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `GET` (RFC 9110 §9.3.1).
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD` (RFC 9110 §9.3.2). Responses to `HEAD` never carry a body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS` (RFC 9110 §9.3.7).
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `PATCH` (RFC 5789).
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `POST` (RFC 9110 §9.3.3).
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT` (RFC 9110 §9.3.4).
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `QUERY` (IETF draft "The HTTP QUERY Method"): a safe, idempotent request with a body.
    public static let query = HTTPMethod(rawValue: "QUERY")
    /// `TRACE` (RFC 9110 §9.3.8).
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// The method token exactly as it is sent on the wire.
    public let rawValue: String

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The method token, sent verbatim (no case folding).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method token, for example `GET`.
    public var description: String { rawValue }
}
