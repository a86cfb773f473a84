#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// An HTTP cookie: a name and value a server asked the client to send back to some URLs.
///
/// Lariat's own `HTTPCookie` (Foundation's lives in FoundationNetworking on Linux, which Lariat
/// never links), with Foundation's names. Immutable and thread-safe. Cookies usually come from
/// ``cookies(withResponseHeaderFields:for:)`` (RFC 6265 parsing) and live in an
/// ``HTTPCookieStorage``; ``init(properties:)`` builds one by hand.
///
/// Domains follow Foundation's convention: a ``domain`` starting with `.` is a domain cookie,
/// sent to that domain and its subdomains; without the dot it is host-only, sent to that exact
/// host (what RFC 6265 calls the host-only flag).
public final class HTTPCookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name.
    public let name: String
    /// The cookie's value.
    public let value: String
    /// The domain, lowercase: `.example.com` for a domain cookie, `example.com` for a host-only one.
    public let domain: String
    /// The path the cookie applies to and below.
    public let path: String
    /// When the cookie expires; `nil` for a session cookie, discarded when the process ends.
    public let expiresDate: Date?
    /// Whether the cookie is sent only over https (the `Secure` attribute).
    public let isSecure: Bool
    /// Whether the cookie is hidden from scripts (the `HttpOnly` attribute). Lariat records it;
    /// with no scripts to hide from, it changes nothing else.
    public let isHTTPOnly: Bool
    /// The `SameSite` attribute as sent (`.sameSiteLax`, `.sameSiteStrict`), or `nil`. Recorded
    /// only: a client with no notion of a top-level site has no cross-site requests to restrict.
    public let sameSitePolicy: HTTPCookieStringPolicy?
    /// The cookie format version: `0` (RFC 6265 and Netscape cookies).
    public let version: Int
    /// The comment, if the properties named one.
    public let comment: String?
    /// The comment URL, if the properties named one.
    public let commentURL: URL?

    /// The name's bytes as the server sent them, when they are not ``name``'s UTF-8 (obs-text
    /// that is not UTF-8); `nil` otherwise, the usual case.
    let receivedNameBytes: [UInt8]?
    /// The value's bytes as the server sent them, when they are not ``value``'s UTF-8; `nil`
    /// otherwise. These, not ``value``, go back in the `Cookie` field and into a jar file.
    let receivedValueBytes: [UInt8]?

    /// The bytes of the name sent in a `Cookie` field and written to a jar.
    package var nameBytes: [UInt8] { receivedNameBytes ?? Array(name.utf8) }
    /// The bytes of the value sent in a `Cookie` field and written to a jar.
    package var valueBytes: [UInt8] { receivedValueBytes ?? Array(value.utf8) }
    /// Whether name and value are their strings' UTF-8 (no byte outside UTF-8 was received).
    var isUTF8: Bool { receivedNameBytes == nil && receivedValueBytes == nil }

    /// Whether the cookie ends with the session (it has no expiry date).
    public var isSessionOnly: Bool { expiresDate == nil }

    /// Whether the cookie is host-only: sent to exactly ``domain``, not its subdomains.
    var isHostOnly: Bool { !domain.hasPrefix(".") }

    /// ``domain`` without its leading dot (stored: storage limits compare it for every cookie).
    let bareDomain: String

    /// The storage identity: RFC 6265 §5.3 step 11 replaces a cookie with the same name, domain
    /// and path.
    var key: Key { Key(name: name, domain: domain, path: path) }

    /// A cookie's storage identity.
    struct Key: Hashable, Sendable {
        var name: String
        var domain: String
        var path: String
    }

    /// The designated initializer: every field, already validated.
    init(
        name: String, value: String, domain: String, path: String, expiresDate: Date?, isSecure: Bool, isHTTPOnly: Bool,
        sameSitePolicy: HTTPCookieStringPolicy?, version: Int = 0, comment: String? = nil, commentURL: URL? = nil,
        receivedNameBytes: [UInt8]? = nil, receivedValueBytes: [UInt8]? = nil
    ) {
        self.name = name
        self.value = value
        self.receivedNameBytes = receivedNameBytes
        self.receivedValueBytes = receivedValueBytes
        self.domain = domain.lowercased()
        self.bareDomain = self.domain.hasPrefix(".") ? String(self.domain.dropFirst()) : self.domain
        self.path = path
        self.expiresDate = expiresDate
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSitePolicy = sameSitePolicy
        self.version = version
        self.comment = comment
        self.commentURL = commentURL
    }

    /// This cookie with `name` and `value` as received bytes: each shown as UTF-8 where it is
    /// valid, else one ISO-8859-1 character per byte (`CookieBytes.text(of:)`), and sent back as
    /// the bytes. How a jar file's line becomes a cookie.
    ///
    /// - Parameters:
    ///   - name: The name's bytes.
    ///   - value: The value's bytes.
    /// - Returns: The cookie.
    package func withBytes(name: [UInt8], value: [UInt8]) -> HTTPCookie {
        let nameText = CookieBytes.text(of: name), valueText = CookieBytes.text(of: value)
        return HTTPCookie(
            name: nameText, value: valueText, domain: domain, path: path, expiresDate: expiresDate, isSecure: isSecure,
            isHTTPOnly: isHTTPOnly, sameSitePolicy: sameSitePolicy, version: version, comment: comment, commentURL: commentURL,
            receivedNameBytes: CookieBytes.received(name, shownAs: nameText), receivedValueBytes: CookieBytes.received(value, shownAs: valueText))
    }

    /// The cookie as properties, with the keys ``init(properties:)`` reads.
    public var properties: [HTTPCookiePropertyKey: Any]? {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .domain: domain, .path: path, .version: String(version)]
        if let expiresDate { properties[.expires] = expiresDate }
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        if let sameSitePolicy { properties[.sameSitePolicy] = sameSitePolicy.rawValue }
        if let comment { properties[.comment] = comment }
        if let commentURL { properties[.commentURL] = commentURL }
        return properties
    }

    /// `name=value; domain=…; path=…` and the flags, for logs.
    public var description: String {
        var text = "<HTTPCookie \(name)=\(value); domain=\(domain); path=\(path)"
        if let expiresDate { text += "; expires=\(expiresDate.timeIntervalSince1970)" }
        if isSecure { text += "; secure" }
        if isHTTPOnly { text += "; httponly" }
        if let sameSitePolicy { text += "; samesite=\(sameSitePolicy.rawValue)" }
        return text + ">"
    }

    /// Whether two cookies have the same name, value, domain, path, expiry and flags.
    ///
    /// - Parameters:
    ///   - lhs: A cookie.
    ///   - rhs: Another cookie.
    /// - Returns: Whether they are equal.
    public static func == (lhs: HTTPCookie, rhs: HTTPCookie) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value && lhs.receivedNameBytes == rhs.receivedNameBytes
            && lhs.receivedValueBytes == rhs.receivedValueBytes && lhs.expiresDate == rhs.expiresDate && lhs.isSecure == rhs.isSecure
            && lhs.isHTTPOnly == rhs.isHTTPOnly && lhs.sameSitePolicy == rhs.sameSitePolicy
    }

    /// Hashes the name, domain and path.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}

extension HTTPCookie {
    /// Which cookies a storage or session accepts.
    public enum AcceptPolicy: UInt, Sendable {
        /// Every cookie.
        case always = 0
        /// No cookie.
        case never = 1
        /// Cookies whose domain is in the same site (registrable domain, such as `example.co.uk`)
        /// as the main document's URL. Without a main document URL (a plain request), the
        /// request's own URL is the main document, so a server's cookies for its own site are
        /// accepted, as on Apple platforms.
        case onlyFromMainDocumentDomain = 2
    }
}

/// The value of a cookie's `SameSite` attribute.
public struct HTTPCookieStringPolicy: RawRepresentable, Hashable, Sendable {
    /// The attribute's value as Foundation spells it (`lax`, `strict`).
    public let rawValue: String

    /// Wraps a value.
    ///
    /// - Parameter rawValue: The attribute's value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `SameSite=Lax`.
    public static let sameSiteLax = HTTPCookieStringPolicy(rawValue: "lax")
    /// `SameSite=Strict`.
    public static let sameSiteStrict = HTTPCookieStringPolicy(rawValue: "strict")
}

/// The keys of ``HTTPCookie/init(properties:)`` and ``HTTPCookie/properties``, with Foundation's
/// spellings.
public struct HTTPCookiePropertyKey: RawRepresentable, Hashable, Sendable {
    /// The key's string.
    public let rawValue: String

    /// Wraps a key.
    ///
    /// - Parameter rawValue: The key's string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a key.
    ///
    /// - Parameter rawValue: The key's string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The name (a `String`). Required.
    public static let name = HTTPCookiePropertyKey("Name")
    /// The value (a `String`). Required; may be empty.
    public static let value = HTTPCookiePropertyKey("Value")
    /// The URL that set the cookie (a `URL` or `String`); its host is the domain when none is given.
    public static let originURL = HTTPCookiePropertyKey("OriginURL")
    /// The version (`"0"` or `"1"`).
    public static let version = HTTPCookiePropertyKey("Version")
    /// The domain (a `String`); a leading `.` makes a domain cookie.
    public static let domain = HTTPCookiePropertyKey("Domain")
    /// The path (a `String`); `/` when absent.
    public static let path = HTTPCookiePropertyKey("Path")
    /// Secure (`true`, or any string other than `FALSE`).
    public static let secure = HTTPCookiePropertyKey("Secure")
    /// The expiry (a `Date`, or a cookie-date `String`).
    public static let expires = HTTPCookiePropertyKey("Expires")
    /// The comment.
    public static let comment = HTTPCookiePropertyKey("Comment")
    /// The comment URL.
    public static let commentURL = HTTPCookiePropertyKey("CommentURL")
    /// `"TRUE"`: a session cookie even if an expiry is given.
    public static let discard = HTTPCookiePropertyKey("Discard")
    /// Seconds to live (a `String` or number); wins over ``expires``.
    public static let maximumAge = HTTPCookiePropertyKey("Max-Age")
    /// Ports, comma-separated. Accepted and ignored (RFC 2965 cookies; Lariat has no `portList`).
    public static let port = HTTPCookiePropertyKey("Port")
    /// The SameSite policy (`"lax"`, `"strict"`, or an ``HTTPCookieStringPolicy``).
    public static let sameSitePolicy = HTTPCookiePropertyKey("SameSite")
}
