#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

extension HTTPCookie {
    /// Creates a cookie from properties, as Foundation's does.
    ///
    /// Required: ``HTTPCookiePropertyKey/name``, ``HTTPCookiePropertyKey/value`` (may be empty),
    /// and ``HTTPCookiePropertyKey/domain`` or ``HTTPCookiePropertyKey/originURL`` (whose host
    /// then makes a host-only cookie). ``HTTPCookiePropertyKey/path`` is `/` when absent.
    /// ``HTTPCookiePropertyKey/maximumAge`` wins over ``HTTPCookiePropertyKey/expires``;
    /// ``HTTPCookiePropertyKey/discard`` `"TRUE"` makes a session cookie. No origin checks are
    /// made: these cookies are the caller's own.
    ///
    /// - Parameter properties: The cookie's properties.
    /// - Returns: `nil` when a required property is missing, the name is empty, or the name or
    ///   value holds a `;`, a newline or another control character.
    public convenience init?(properties: [HTTPCookiePropertyKey: Any]) {
        func string(_ key: HTTPCookiePropertyKey) -> String? {
            switch properties[key] {
            case let text as String: text
            case let url as URL: url.absoluteString
            case let number as Int: String(number)
            case let number as Double: String(number)
            case let flag as Bool: flag ? "TRUE" : "FALSE"
            default: nil
            }
        }
        guard let name = string(.name), let value = string(.value), !name.isEmpty else { return nil }
        let forbidden: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ";") }
        guard !name.utf8.contains(where: forbidden), !value.utf8.contains(where: forbidden), !name.contains("=") else { return nil }
        let originURL = (properties[.originURL] as? URL) ?? string(.originURL).flatMap { URL(string: $0) }
        guard let domain = string(.domain).map({ $0.lowercased() }) ?? originURL.flatMap(CookieMatching.canonicalHost(of:)),
            !domain.isEmpty, domain != "."
        else { return nil }
        var expires: Date?
        if let maxAge = string(.maximumAge).flatMap({ Double($0) }) {
            expires = maxAge <= 0 ? .distantPast : Date().addingTimeInterval(maxAge)
        } else if let date = properties[.expires] as? Date {
            expires = date
        } else if let text = string(.expires) {
            expires = CookieDate.parse(text)
        }
        if string(.discard)?.uppercased() == "TRUE" { expires = nil }
        let flag: (HTTPCookiePropertyKey) -> Bool = { key in
            guard let text = string(key) else { return false }
            return text.uppercased() != "FALSE" && text != "0"
        }
        let sameSite: HTTPCookieStringPolicy?
        if let policy = properties[.sameSitePolicy] as? HTTPCookieStringPolicy {
            sameSite = policy
        } else {
            sameSite = string(.sameSitePolicy).map { HTTPCookieStringPolicy(rawValue: $0.lowercased()) }
        }
        self.init(
            name: name, value: value, domain: domain, path: string(.path).flatMap { $0.isEmpty ? nil : $0 } ?? "/",
            expiresDate: expires, isSecure: flag(.secure), isHTTPOnly: flag(HTTPCookiePropertyKey("HttpOnly")),
            sameSitePolicy: sameSite, version: string(.version).flatMap { Int($0) } ?? 0,
            comment: string(.comment), commentURL: string(.commentURL).flatMap { URL(string: $0) })
    }

    /// The cookies a response's header fields set, parsed by RFC 6265's rules for `url`.
    ///
    /// Lines that do not make a cookie are skipped: malformed ones, a `Domain` that is another
    /// site's or a public suffix, a `Secure` cookie sent over plain http. Expired cookies are
    /// returned (storing one deletes its stored namesake). Several cookies joined by commas in
    /// one `Set-Cookie` value (the shape a `[String: String]` forces) are split first.
    ///
    /// - Parameters:
    ///   - headerFields: Response header fields; the name `Set-Cookie` is matched case-insensitively.
    ///   - URL: The URL of the request the response answered.
    /// - Returns: The cookies, in order.
    public class func cookies(withResponseHeaderFields headerFields: [String: String], for URL: URL) -> [HTTPCookie] {
        var cookies: [HTTPCookie] = []
        for (name, value) in headerFields where name.lowercased() == "set-cookie" {
            for line in SetCookieParser.splitCombined(value) {
                if case .success(let cookie) = SetCookieParser.parse(line, for: URL) { cookies.append(cookie) }
            }
        }
        return cookies
    }

    /// The `Cookie` request header field for `cookies`, in the order given.
    ///
    /// - Parameter cookies: The cookies to send (usually ``HTTPCookieStorage/cookies(for:)``,
    ///   already in RFC 6265 order).
    /// - Returns: `["Cookie": "a=1; b=2"]`, or an empty dictionary for no cookies.
    public class func requestHeaderFields(with cookies: [HTTPCookie]) -> [String: String] {
        guard !cookies.isEmpty else { return [:] }
        return ["Cookie": cookieFieldValue(cookies)]
    }

    /// `a=1; b=2` (RFC 6265 §5.4 step 4).
    static func cookieFieldValue(_ cookies: [HTTPCookie]) -> String {
        var value = ""
        for cookie in cookies {
            if !value.isEmpty { value += "; " }
            value += cookie.name
            value += "="
            value += cookie.value
        }
        return value
    }
}
