// RFC 6265 without sockets: Set-Cookie lines in, cookies (or the reason for none) out; cookie
// dates in the three formats; domain and path matching; the storage's Cookie field order,
// replacement, deletion and limits.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

/// A fixed clock for Max-Age: 2026-01-01T00:00:00Z.
private let now = Date(timeIntervalSince1970: 1_767_225_600)

private func url(_ text: String) -> URL { URL(string: text)! }

/// What a parsed line should become.
struct Expected: Sendable, CustomStringConvertible {
    var name: String
    var value: String
    var domain: String
    var path: String
    var expires: Date? = nil
    var secure = false
    var httpOnly = false
    var sameSite: HTTPCookieStringPolicy? = nil
    var description: String { "\(name)=\(value) \(domain)\(path)" }
}

@Suite("Set-Cookie parsing (RFC 6265 §5.2, §5.3)")
struct SetCookieParsingTests {
    static let accepted: [(String, String, String, Expected)] = [
        // scenario, request URL, Set-Cookie value, cookie
        ("host-only when no Domain", "http://www.example.com/a/b", "k=v",
         Expected(name: "k", value: "v", domain: "www.example.com", path: "/a")),
        ("default path of the root", "http://example.com/", "k=v", Expected(name: "k", value: "v", domain: "example.com", path: "/")),
        ("default path without a slash after the first", "http://example.com/file", "k=v",
         Expected(name: "k", value: "v", domain: "example.com", path: "/")),
        ("Path not starting with / is the default path", "http://example.com/a/b", "k=v; Path=x",
         Expected(name: "k", value: "v", domain: "example.com", path: "/a")),
        ("explicit Path", "http://example.com/a/b", "k=v; Path=/z", Expected(name: "k", value: "v", domain: "example.com", path: "/z")),
        ("Domain makes a domain cookie, leading dot ignored", "http://www.example.com/", "k=v; Domain=.Example.COM",
         Expected(name: "k", value: "v", domain: ".example.com", path: "/")),
        ("Domain equal to the host", "http://example.com/", "k=v; domain=example.com",
         Expected(name: "k", value: "v", domain: ".example.com", path: "/")),
        ("empty value, spaces trimmed", "http://example.com/", "  k  =   ; path=/", Expected(name: "k", value: "", domain: "example.com", path: "/")),
        ("value keeps inner = and quotes", "http://example.com/", "k=\"a=b\"", Expected(name: "k", value: "\"a=b\"", domain: "example.com", path: "/")),
        ("Expires, RFC 1123", "http://example.com/", "k=v; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: Date(timeIntervalSince1970: 1_445_412_480))),
        ("Expires, RFC 850", "http://example.com/", "k=v; expires=Wednesday, 21-Oct-15 07:28:00 GMT",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: Date(timeIntervalSince1970: 1_445_412_480))),
        ("Expires, asctime", "http://example.com/", "k=v; EXPIRES=Wed Oct 21 07:28:00 2015",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: Date(timeIntervalSince1970: 1_445_412_480))),
        ("unparseable Expires ignored", "http://example.com/", "k=v; Expires=soon",
         Expected(name: "k", value: "v", domain: "example.com", path: "/")),
        ("Max-Age wins over a later Expires", "http://example.com/", "k=v; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: now.addingTimeInterval(60))),
        ("Max-Age=0 expires at once", "http://example.com/", "k=v; Max-Age=0",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: .distantPast)),
        ("negative Max-Age expires at once", "http://example.com/", "k=v; Max-Age=-5",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: .distantPast)),
        ("Max-Age not a number ignored", "http://example.com/", "k=v; Max-Age=1x",
         Expected(name: "k", value: "v", domain: "example.com", path: "/")),
        ("Max-Age capped at 400 days", "http://example.com/", "k=v; Max-Age=999999999999999999999",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: now.addingTimeInterval(400 * 86_400))),
        ("Expires capped at 400 days", "http://example.com/", "k=v; Expires=Fri, 31 Dec 9999 23:59:59 GMT",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", expires: now.addingTimeInterval(400 * 86_400))),
        ("Secure over https", "https://example.com/", "k=v; Secure", Expected(name: "k", value: "v", domain: "example.com", path: "/", secure: true)),
        ("HttpOnly and SameSite recorded", "http://example.com/", "k=v; HttpOnly; SameSite=Strict",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", httpOnly: true, sameSite: .sameSiteStrict)),
        ("SameSite=Lax, case-insensitive", "http://example.com/", "k=v; samesite=LAX",
         Expected(name: "k", value: "v", domain: "example.com", path: "/", sameSite: .sameSiteLax)),
        ("last attribute wins", "http://example.com/", "k=v; Path=/a; Path=/b", Expected(name: "k", value: "v", domain: "example.com", path: "/b")),
        ("unknown attributes ignored", "http://example.com/", "k=v; Priority=High; Partitioned",
         Expected(name: "k", value: "v", domain: "example.com", path: "/")),
        ("Domain equal to a public-suffix host makes a host-only cookie", "http://localhost/", "k=v; Domain=localhost",
         Expected(name: "k", value: "v", domain: "localhost", path: "/")),
        // An IP literal as Domain makes a host-only cookie (curl; 6265bis §5.6 step 6: only
        // identical, and an IP address has no subdomains).
        ("IP host with its own address as Domain: host-only", "http://127.0.0.1/", "k=v; Domain=127.0.0.1",
         Expected(name: "k", value: "v", domain: "127.0.0.1", path: "/")),
        ("IPv6 host with its own address as Domain: host-only", "http://[::1]/", "k=v; Domain=::1",
         Expected(name: "k", value: "v", domain: "::1", path: "/")),
        ("a trailing tab is trimmed like a space", "http://example.com/", "k=v\t; Path=/a\t",
         Expected(name: "k", value: "v", domain: "example.com", path: "/a")),
        ("a trailing dot on the host is not part of it", "http://example.com./", "k=v",
         Expected(name: "k", value: "v", domain: "example.com", path: "/")),
    ]

    @Test("accepted lines", arguments: accepted)
    func acceptedLines(scenario: String, request: String, line: String, expected: Expected) throws {
        let cookie = try SetCookieParser.parse(line, for: url(request), now: now, suffixes: .fallback).get()
        #expect(cookie.name == expected.name, "\(scenario)")
        #expect(cookie.value == expected.value, "\(scenario)")
        #expect(cookie.domain == expected.domain, "\(scenario)")
        #expect(cookie.path == expected.path, "\(scenario)")
        #expect(cookie.expiresDate == expected.expires, "\(scenario)")
        #expect(cookie.isSessionOnly == (expected.expires == nil), "\(scenario)")
        #expect(cookie.isSecure == expected.secure, "\(scenario)")
        #expect(cookie.isHTTPOnly == expected.httpOnly, "\(scenario)")
        #expect(cookie.sameSitePolicy == expected.sameSite, "\(scenario)")
    }

    static let refused: [(String, String, String, CookieRejection)] = [
        // scenario, request URL, Set-Cookie value, reason
        ("no =", "http://example.com/", "novalue", .malformed),
        ("empty name", "http://example.com/", "=v", .malformed),
        ("empty line", "http://example.com/", "", .malformed),
        ("a control character", "http://example.com/", "k=v\u{01}", .malformed),
        ("name and value over 4096 bytes", "http://example.com/", "k=" + String(repeating: "x", count: 4096), .tooLarge),
        ("another site's Domain", "http://example.com/", "k=v; Domain=evil.com", .domainMismatch),
        ("a subdomain as Domain", "http://example.com/", "k=v; Domain=www.example.com", .domainMismatch),
        ("a suffix that is not on a dot boundary", "http://myexample.com/", "k=v; Domain=example.com", .domainMismatch),
        ("Domain=com", "http://www.example.com/", "k=v; Domain=com", .publicSuffix),
        ("Domain=co.uk", "http://www.example.co.uk/", "k=v; Domain=.co.uk", .publicSuffix),
        ("Domain=github.io (a platform suffix)", "http://a.github.io/", "k=v; Domain=github.io", .publicSuffix),
        ("Domain on an IP host", "http://10.0.0.1/", "k=v; Domain=0.0.1", .domainMismatch),
        ("Secure from plain http", "http://example.com/", "k=v; Secure", .secureFromInsecureOrigin),
        // HTAB inside a name, value or Path (curl refuses the cookie; a jar line would split there).
        ("a tab in the name", "http://example.com/", "k\tx=v", .malformed),
        ("a tab in the value", "http://example.com/", "k=a\tb", .malformed),
        ("a tab in the Path", "http://example.com/", "k=v; Path=/a\tb", .malformed),
        // A trailing dot names another host than the one asked (curl refuses it).
        ("a trailing-dot Domain", "http://www.example.com/", "k=v; Domain=example.com.", .domainMismatch),
        ("a trailing-dot Domain equal to the host", "http://example.com/", "k=v; Domain=example.com.", .domainMismatch),
    ]

    @Test("refused lines", arguments: refused)
    func refusedLines(scenario: String, request: String, line: String, reason: CookieRejection) {
        #expect(SetCookieParser.parse(line, for: url(request), now: now, suffixes: .fallback) == .failure(reason), "\(scenario)")
    }

    @Test("arbitrary lines never trap: every line parses or is refused, and matching any result is safe")
    func arbitraryLines() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09=;,. -/\t\"é\u{301}\u{0}\r\nDomain=Path=/Max-Age=-Expires=Secure".unicodeScalars)
        let origins = [url("http://example.com/a/b"), url("https://[::1]:8443/"), url("http://127.0.0.1/x")]
        for _ in 0..<2000 {
            var line = ""
            for _ in 0..<Int.random(in: 0...60, using: &generator) { line.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
            for origin in origins {
                if case .success(let cookie) = SetCookieParser.parse(line, for: origin, now: now, suffixes: .fallback) {
                    _ = CookieMatching.pathMatches(requestPath: "/a/b", cookiePath: cookie.path)
                    _ = CookieMatching.domainMatches(host: "example.com", domain: cookie.bareDomain)
                }
            }
        }
        #expect(CookieMatching.pathMatches(requestPath: "/a", cookiePath: "/a\u{301}") == false)
        #expect(CookieMatching.domainMatches(host: "x.example.com", domain: "\u{301}example.com") == false)
    }

    @Test("an attribute value over 1024 bytes is ignored, the cookie kept")
    func longAttribute() throws {
        let cookie = try SetCookieParser.parse("k=v; Path=/" + String(repeating: "p", count: 1100), for: url("http://e.com/a/b"), now: now).get()
        #expect(cookie.path == "/a")
    }

    @Test("several cookies joined by commas are split, Expires commas kept")
    func combined() {
        #expect(SetCookieParser.splitCombined("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2; Path=/, c=3") ==
            ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2; Path=/", "c=3"])
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["set-cookie": "a=1, b=2; Secure", "Other": "x=y"], for: url("http://e.com/"))
        #expect(cookies.map(\.name) == ["a"])  // b is Secure over http
    }
}

@Suite("Cookie dates (RFC 6265 §5.1.1)")
struct CookieDateTests {
    static let dates: [(String, TimeInterval?)] = [
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", 1_445_412_480),
        ("Wed Oct 21 07:28:00 2015", 1_445_412_480),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("29 Feb 2024 12:00:00", 1_709_208_000),
        ("01-Jan-69 00:00:00", 3_124_224_000),  // two-digit years below 70 are 20xx
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("29 Feb 2023 12:00:00", nil),  // not a leap year
        ("31 Apr 2020 00:00:00", nil),
        ("Wed, 21 Oct 2015 24:00:00 GMT", nil),
        ("Wed, 21 Oct 1600 07:28:00 GMT", nil),
        ("Wed, 21 Foo 2015 07:28:00 GMT", nil),
        ("Wed, 21 Oct 2015", nil),  // no time
        ("", nil),
    ]

    @Test("three formats and the algorithm's edges", arguments: dates)
    func parse(text: String, expected: TimeInterval?) {
        #expect(CookieDate.parse(text)?.timeIntervalSince1970 == expected)
    }
}

@Suite("Cookie matching (RFC 6265 §5.1.3, §5.1.4)")
struct CookieMatchingTests {
    static let domains: [(String, String, Bool)] = [
        ("example.com", "example.com", true),
        ("www.example.com", "example.com", true),
        ("a.b.example.com", "example.com", true),
        ("myexample.com", "example.com", false),
        ("example.com", "www.example.com", false),
        ("1.2.3.4", "2.3.4", false),
        ("1.2.3.4", "1.2.3.4", true),
        ("com", "example.com", false),
    ]

    @Test("domain-match", arguments: domains)
    func domainMatch(host: String, domain: String, matches: Bool) {
        #expect(CookieMatching.domainMatches(host: host, domain: domain) == matches)
    }

    static let paths: [(String, String, Bool)] = [
        ("/", "/", true),
        ("/a", "/", true),
        ("/a/b", "/a", true),
        ("/a/b", "/a/", true),
        ("/ab", "/a", false),
        ("/a", "/a/", false),
        ("/A", "/a", false),  // paths are case-sensitive
        ("/a", "/a", true),
    ]

    @Test("path-match", arguments: paths)
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(CookieMatching.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == matches)
    }

    static let defaultPaths: [(String, String)] = [("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("/a/b/c", "/a/b"), ("x", "/")]

    @Test("default-path", arguments: defaultPaths)
    func defaultPath(path: String, expected: String) {
        #expect(CookieMatching.defaultPath(path) == expected)
    }

    @Test("public suffixes: system list when installed, built-in fallback otherwise")
    func publicSuffixes() {
        for list in [PublicSuffixList.fallback, PublicSuffixList.shared] {
            #expect(list.isPublicSuffix("com") && list.isPublicSuffix("co.uk") && list.isPublicSuffix("github.io"))
            #expect(!list.isPublicSuffix("example.com") && !list.isPublicSuffix("example.co.uk"))
            #expect(list.registrableDomain("www.example.co.uk") == "example.co.uk")
            #expect(list.registrableDomain("co.uk") == nil)
        }
        let rules = PublicSuffixList(listText: "// comment\n\n*.ck\n!www.ck\ncom\n")
        #expect(rules.isPublicSuffix("anything.ck") && !rules.isPublicSuffix("www.ck") && rules.isPublicSuffix("ck"))
        #expect(rules.registrableDomain("a.b.ck") == "a.b.ck" && rules.registrableDomain("x.www.ck") == "www.ck")
    }
}
