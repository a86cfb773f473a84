// `-L`: where a Location field points, resolved as curl 7.88 resolves it (lib/urlapi.c with
// CURLU_URLENCODE): the fragment dropped, a relative reference joined to the redirecting URL
// and its dot segments removed, then a space written %20 before the `?` and + after it, and
// bytes past ASCII as %xx. A %XX already there is kept as it is (Client's URL(string:
// relativeTo:) resolution encoded `%41` in a query again, as %2541).

import Client
import Transport

/// curl's Location resolution.
enum RedirectLocation {
    /// The URL `location` names, seen from `base` (the URL that answered with it).
    static func resolve(_ location: String, from base: String) -> String {
        let reference = String(location.prefix { $0 != "#" }).trimmingSpaces
        let baseWithoutFragment = String(base.prefix { $0 != "#" })
        let (origin, path) = split(baseWithoutFragment)
        let target: String
        if hasScheme(reference) {
            target = reference
        } else if reference.hasPrefix("//") {
            target = String(origin.prefix { $0 != ":" }) + ":" + reference
        } else if reference.hasPrefix("/") {
            target = origin + reference
        } else if reference.hasPrefix("?") {
            target = origin + String(path.prefix { $0 != "?" }) + reference
        } else if reference.isEmpty {
            target = baseWithoutFragment
        } else {
            let directory = path.prefix { $0 != "?" }
            let cut = directory.lastIndex(of: "/").map { directory[...$0] } ?? "/"
            target = origin + cut + reference
        }
        return encoded(RequestExtras.removingDotSegments(target))
    }

    /// `scheme://authority` and the rest (path and query; `/` when empty).
    static func split(_ url: String) -> (origin: String, path: String) {
        guard let schemeEnd = url.firstOccurrence(of: "://") else { return (url, "/") }
        let rest = url[schemeEnd.upperBound...]
        let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let path = String(rest[pathStart...])
        return (String(url[..<pathStart]), path.isEmpty ? "/" : (path.hasPrefix("?") ? "/" + path : path))
    }

    /// Whether `reference` starts with `scheme:` (RFC 3986 §3.1).
    static func hasScheme(_ reference: String) -> Bool {
        guard let colon = reference.firstIndex(of: ":"), colon != reference.startIndex else { return false }
        let scheme = reference[..<colon]
        return scheme.first!.isASCII && scheme.first!.isLetter
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// curl's urlencode_str: spaces as %20 (path) or + (query), bytes of 0x80 and above as %xx,
    /// everything else (a %XX included) as it is; the scheme and host untouched.
    static func encoded(_ url: String) -> String {
        let (origin, rest) = split(url)
        var result = origin
        var inQuery = false
        for byte in rest.utf8 {
            switch byte {
            case UInt8(ascii: " "): result += inQuery ? "+" : "%20"
            case UInt8(ascii: "?"): inQuery = true; result += "?"
            case 0x80...:
                let digits = Array("0123456789abcdef")
                result += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
            default: result += String(UnicodeScalar(byte))
            }
        }
        return result
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String { trimmed }
}
