/// An HTTP request method, as the codec needs to know it.
///
/// The parser uses it to frame the response (a response to HEAD has no body; a 2xx response to
/// CONNECT starts a tunnel); the serializer writes it, after checking it is a token.
public struct RequestMethod: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The method name, case-sensitive (RFC 9110 §9.1).
    public let rawValue: String
    /// Creates a method. Validity is checked when a request is serialized.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a method from its name.
    public init(_ name: String) { self.rawValue = name }
    /// The method name.
    public var description: String { rawValue }

    /// `GET`
    public static let get = Self("GET")
    /// `HEAD`: its response never has a body.
    public static let head = Self("HEAD")
    /// `POST`
    public static let post = Self("POST")
    /// `PUT`
    public static let put = Self("PUT")
    /// `DELETE`
    public static let delete = Self("DELETE")
    /// `CONNECT`: a 2xx response turns the connection into a tunnel.
    public static let connect = Self("CONNECT")
    /// `OPTIONS`
    public static let options = Self("OPTIONS")
    /// `TRACE`
    public static let trace = Self("TRACE")
    /// `PATCH`
    public static let patch = Self("PATCH")

    /// How this method affects response framing.
    var responseKind: ResponseKind {
        // The length first: a `switch` over string literals compared every request's method
        // with both (measured under callgrind: about 100 instructions per request).
        switch rawValue.utf8.count {
        case 4 where rawValue == "HEAD": return .head
        case 7 where rawValue == "CONNECT": return .connect
        default: return .normal
        }
    }
}

/// What the parser needs to remember about each outstanding request (RFC 9112 §6.3 points 1 and 2,
/// RFC 9110 §7.8).
enum ResponseKind: UInt8, Sendable {
    /// Any other request: a 101 answering it is refused.
    case normal
    /// HEAD: the response has no content.
    case head
    /// CONNECT: a 2xx response starts a tunnel.
    case connect
    /// A request (not HEAD or CONNECT) that sent `Upgrade`: a 101 answering it switches protocols.
    case upgradable
}

/// An HTTP version number.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version; the parser accepts only 1.
    public var major: Int
    /// The minor version.
    public var minor: Int
    /// Creates a version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    /// HTTP/1.0
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    /// `HTTP/1.1`
    public var description: String { "HTTP/\(major).\(minor)" }
}
