#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// RFC 6265 §5.2 (parsing a Set-Cookie line) and §5.3 steps 1-10 (turning it into a cookie for
// the URL that sent it), with RFC 6265bis's tightenings where browsers already apply them:
// control characters void the line, name plus value is at most 4,096 bytes, an attribute value
// over 1,024 bytes is ignored, and a Secure cookie from plain http is refused.
//
// Choices where RFC 6265 leaves room:
// - A line without `=` is ignored (RFC 6265 §5.2 step 2; 6265bis would make it a nameless
//   cookie, which Foundation does not produce either).
// - `Max-Age` wins over `Expires` whatever their order (§5.3 step 3); zero or negative expire
//   the cookie at once, which deletes a stored one.
// - `Domain` equal to a public suffix is refused unless it is the request host itself, which
//   then makes a host-only cookie (§5.3 step 5); so does a `Domain` equal to an IP-literal host.
//   A `Domain` with a trailing dot is refused (curl), a tab inside a name, value or `Path` voids
//   the line (curl; a jar line would split there).

/// Why a Set-Cookie line did not become a cookie.
enum CookieRejection: Error, Equatable, Sendable {
    /// No `=` in the name-value pair, an empty name, or a control character in the line.
    case malformed
    /// Name and value together over ``SetCookieParser/maxNameValueSize`` bytes.
    case tooLarge
    /// The request URL has no host.
    case noHost
    /// `Domain` does not domain-match the request host (another site's domain).
    case domainMismatch
    /// `Domain` is a public suffix such as `com` or `co.uk`.
    case publicSuffix
    /// `Secure` set by a plain-http response.
    case secureFromInsecureOrigin
}

/// RFC 6265 Set-Cookie parsing.
enum SetCookieParser {
    /// The largest name plus value, in bytes: RFC 6265 §6.1's minimum a client must support,
    /// and RFC 6265bis §5.7's maximum.
    static let maxNameValueSize = 4096
    /// The largest attribute value, in bytes (RFC 6265bis §5.7); longer ones are ignored.
    static let maxAttributeValueSize = 1024
    /// The longest a cookie lives, whatever `Max-Age` or `Expires` say: 400 days (RFC 6265bis §5.5).
    static let maxLifetime: TimeInterval = 400 * 86_400

    /// Parses one Set-Cookie field value, as the bytes received, sent in the response to `url`.
    /// The cookie's name and value keep their bytes (obs-text included) to be sent back as they
    /// came; their strings are the text view ``CookieBytes`` describes.
    ///
    /// - Parameters:
    ///   - bytes: The field value's bytes.
    ///   - url: The URL of the request the response answered.
    ///   - now: The current time, for `Max-Age`.
    ///   - suffixes: The public suffix rules.
    /// - Returns: The cookie, or why there is none.
    static func parse(bytes: some Collection<UInt8>, for url: URL, now: Date = Date(), suffixes: PublicSuffixList = .shared) -> Result<HTTPCookie, CookieRejection> {
        if let line = String(validating: bytes, as: UTF8.self) { return parse(line, for: url, now: now, suffixes: suffixes) }
        // Not UTF-8: parse the ISO-8859-1 view, one character per byte, so that every delimiter
        // is where it was and each piece maps back to its bytes.
        return parse(CookieBytes.latin1Text(of: bytes), for: url, now: now, suffixes: suffixes, isLatin1: true)
    }

    /// Parses one Set-Cookie field value sent in the response to `url`.
    ///
    /// - Parameters:
    ///   - line: The field's value.
    ///   - url: The URL of the request the response answered.
    ///   - now: The current time, for `Max-Age`.
    ///   - suffixes: The public suffix rules.
    ///   - isLatin1: Whether `line` is the ISO-8859-1 view of bytes that are not UTF-8: sizes
    ///     count characters (one per byte), and each piece is turned back into its bytes.
    /// - Returns: The cookie, or why there is none.
    static func parse(
        _ line: String, for url: URL, now: Date = Date(), suffixes: PublicSuffixList = .shared, isLatin1: Bool = false
    ) -> Result<HTTPCookie, CookieRejection> {
        let byteCount: (String) -> Int = { isLatin1 ? $0.unicodeScalars.count : $0.utf8.count }
        // A piece's text view: itself for UTF-8 input, else its bytes read as ``CookieBytes`` says.
        let view: (String) -> String = { isLatin1 ? CookieBytes.text(of: CookieBytes.latin1Bytes(of: $0)) : $0 }
        // 6265bis §5.7 step 1: a control character other than tab voids the line.
        guard !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return .failure(.malformed) }
        var parts = line.split(separator: ";", omittingEmptySubsequences: false)[...]
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return .failure(.malformed) }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return .failure(.malformed) }
        // A tab inside the name or value (not around it) voids the line, as curl: a Netscape jar
        // separates its fields with tabs, so such a cookie could not be written back whole.
        guard !name.utf8.contains(0x09), !value.utf8.contains(0x09) else { return .failure(.malformed) }
        guard byteCount(name) + byteCount(value) <= maxNameValueSize else { return .failure(.tooLarge) }

        var expires: Date?
        var maxAge: Date?
        var domainAttribute: String?
        var pathAttribute: String?
        var secure = false
        var httpOnly = false
        var sameSite: HTTPCookieStringPolicy?
        for part in parts {
            let attributeName: String
            var attributeValue: String
            if let equals = part.firstIndex(of: "=") {
                attributeName = trimmed(part[..<equals]).lowercased()
                attributeValue = trimmed(part[part.index(after: equals)...])
            } else {
                attributeName = trimmed(part).lowercased()
                attributeValue = ""
            }
            guard byteCount(attributeValue) <= maxAttributeValueSize else { continue }
            attributeValue = view(attributeValue)
            // §5.2: the last occurrence of an attribute wins; unknown ones are ignored.
            switch attributeName {
            case "expires": if let date = CookieDate.parse(attributeValue) { expires = min(date, now.addingTimeInterval(maxLifetime)) }
            case "max-age": if let date = maxAgeDate(attributeValue, now: now) { maxAge = date }
            case "domain":
                guard !attributeValue.isEmpty else { continue }
                var domain = Substring(attributeValue)
                if domain.hasPrefix(".") { domain = domain.dropFirst() }  // §5.2.3: ignored
                domainAttribute = domain.lowercased()
            case "path":
                guard !attributeValue.utf8.contains(0x09) else { return .failure(.malformed) }  // curl: the cookie is refused
                pathAttribute = attributeValue.hasPrefix("/") ? attributeValue : nil
            case "secure": secure = true
            case "httponly": httpOnly = true
            case "samesite":
                switch attributeValue.lowercased() {
                case "lax": sameSite = .sameSiteLax
                case "strict": sameSite = .sameSiteStrict
                case "none": sameSite = HTTPCookieStringPolicy(rawValue: "none")
                default: break  // 6265bis: an unknown value is "Default", i.e. none recorded
                }
            default: continue
            }
        }

        guard let host = CookieMatching.canonicalHost(of: url) else { return .failure(.noHost) }
        let isSecureOrigin = url.scheme?.lowercased() == "https"
        if secure, !isSecureOrigin { return .failure(.secureFromInsecureOrigin) }
        // §5.3 steps 4-6.
        var domain = host
        if let requested = domainAttribute {
            // A trailing dot names another host than the one asked ("example.com." is not
            // "example.com"): refused, as curl refuses it.
            if requested.hasSuffix(".") { return .failure(.domainMismatch) }
            if requested != host, !CookieMatching.isIPAddress(host), suffixes.isPublicSuffix(requested) {
                return .failure(.publicSuffix)
            }
            if requested == host {
                // A Domain equal to the host: host-only when it is a public suffix or an IP
                // address (which has no subdomains; curl and RFC 6265bis §5.6 step 6 alike).
                domain = host
                if !suffixes.isPublicSuffix(requested), !CookieMatching.isIPAddress(host) { domain = "." + host }
            } else if CookieMatching.domainMatches(host: host, domain: requested) {
                domain = "." + requested
            } else {
                return .failure(.domainMismatch)
            }
        }
        let path = pathAttribute ?? CookieMatching.defaultPath(CookieMatching.requestPath(of: url))
        guard isLatin1 else {
            return .success(HTTPCookie(
                name: name, value: value, domain: domain, path: path, expiresDate: maxAge ?? expires,
                isSecure: secure, isHTTPOnly: httpOnly, sameSitePolicy: sameSite))
        }
        let nameBytes = CookieBytes.latin1Bytes(of: name), valueBytes = CookieBytes.latin1Bytes(of: value)
        let nameText = view(name), valueText = view(value)
        return .success(HTTPCookie(
            name: nameText, value: valueText, domain: domain, path: path, expiresDate: maxAge ?? expires,
            isSecure: secure, isHTTPOnly: httpOnly, sameSitePolicy: sameSite,
            receivedNameBytes: CookieBytes.received(nameBytes, shownAs: nameText),
            receivedValueBytes: CookieBytes.received(valueBytes, shownAs: valueText)))
    }

    /// §5.2.2: an optional `-` and digits; zero or less means "already expired".
    private static func maxAgeDate(_ text: String, now: Date) -> Date? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if text.hasPrefix("-") { return .distantPast }
        // Longer than 18 digits overflows Int; any such value is "forever" for a cookie.
        let seconds = digits.count > 18 ? Int.max : Int(digits)!
        if seconds <= 0 { return .distantPast }
        return now.addingTimeInterval(TimeInterval(min(seconds, Int(maxLifetime))))
    }

    /// Trims spaces and tabs (RFC 6265 §5.2's WSP).
    private static func trimmed(_ text: Substring) -> String {
        var slice = text
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }

    /// Splits a Set-Cookie value that joins several cookies with commas (a header dictionary
    /// holds one value per name): a comma starts a new cookie only when `name=` follows before
    /// any `;`, so the comma inside `Expires=Wed, 21 Oct 2015` stays.
    static func splitCombined(_ value: String) -> [String] {
        var lines: [String] = []
        var current = Substring()
        var rest = Substring(value)
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            let nextSegment = after.prefix { $0 != ";" && $0 != "," }
            if let equals = nextSegment.firstIndex(of: "="), !trimmed(nextSegment[..<equals]).isEmpty,
                !trimmed(nextSegment[..<equals]).contains(" ")
            {
                lines.append(String(current + rest[..<comma]))
                current = ""
            } else {
                current += rest[...comma]
            }
            rest = after
        }
        lines.append(String(current + rest))
        return lines.map { trimmed(Substring($0)) }.filter { !$0.isEmpty }
    }
}
