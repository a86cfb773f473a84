#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// RFC 6265's matching rules, as pure functions over strings so they are table-tested alone:
// canonical hosts (§5.1.2), domain matching (§5.1.3), the default path (§5.1.4) and path
// matching (§5.1.4).

/// RFC 6265 §5.1 matching.
enum CookieMatching {
    /// The request URL's host as cookies see it: lowercase, ASCII (IDNA), no trailing dot, no
    /// IPv6 brackets. `nil` when the URL has no host.
    ///
    /// - Parameter url: A request URL.
    /// - Returns: The canonical host.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if host.utf8.allSatisfy({ $0 < 0x80 }) { return host.lowercased() }
        return try? HostName.wireForm(of: host)
    }

    /// Whether `host` is an IP address literal (v4 dotted quad or anything with a colon), for
    /// which only an identical Domain matches (§5.1.3).
    static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && Int(part)! <= 255
        }
    }

    /// §5.1.3: the host equals the domain, or ends with `.` + domain and is not an IP address.
    ///
    /// - Parameters:
    ///   - host: A canonical request host.
    ///   - domain: A cookie domain without its leading dot, lowercase.
    /// - Returns: Whether the host domain-matches the domain.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        // Bytes, not Characters: a Character comparison may match strings of different byte
        // lengths (combining marks), and the index below is in bytes.
        guard host.utf8.count > domain.utf8.count + 1, host.utf8.reversed().starts(with: domain.utf8.reversed()) else { return false }
        let dot = host.utf8[host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)]
        return dot == UInt8(ascii: ".") && !isIPAddress(host)
    }

    /// §5.1.4's default-path: the request path up to, not including, its last `/`; `/` when
    /// that leaves nothing or the path does not start with `/`.
    ///
    /// - Parameter path: The request URL's path (percent-encoded, as sent).
    /// - Returns: The cookie's path when it names none.
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    /// §5.1.4's path-match: equal, or the cookie path is a prefix ending in `/`, or a prefix
    /// followed by `/` in the request path.
    ///
    /// - Parameters:
    ///   - requestPath: The request URL's path (`/` when empty).
    ///   - cookiePath: The cookie's path.
    /// - Returns: Whether the cookie applies to the path.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath.utf8.elementsEqual(cookiePath.utf8) { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }  // bytes, as above
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)] == UInt8(ascii: "/")
    }

    /// The path used for matching: percent-encoded as on the wire, `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }
}
