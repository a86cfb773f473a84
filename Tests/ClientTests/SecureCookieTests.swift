// RFC 6265bis §5.7 "leave secure cookies alone" (issue 25, item 3), without sockets: after an
// https response set a Secure cookie, a plain-http response cannot set or overwrite a cookie of
// the same name whose domain domain-matches it (either way) and whose path path-matches the
// stored one's; https still can, and unrelated cookies are still stored.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client
import Wire

private func url(_ text: String) -> URL { URL(string: text)! }

@Suite("Secure cookies are left alone by plain http (RFC 6265bis §5.7)")
struct SecureCookieTests {
    static let rows: [(String, String, String, String, String?)] = [
        // scenario, Secure Set-Cookie from https://a.example.com/, then Set-Cookie from `origin`,
        // origin, the Cookie field https://a.example.com/p/q gets afterwards
        ("http cannot overwrite", "s=secret; Secure; Path=/", "s=evil; Path=/", "http://a.example.com/", "s=secret"),
        ("http cannot shadow with a longer path", "s=secret; Secure; Path=/", "s=evil; Path=/p", "http://a.example.com/", "s=secret"),
        ("http cannot shadow from the parent domain", "s=secret; Secure; Path=/", "s=evil; Domain=example.com; Path=/",
         "http://b.example.com/", "s=secret"),
        ("http cannot shadow a domain cookie host-only", "s=secret; Secure; Domain=example.com; Path=/", "s=evil; Path=/",
         "http://a.example.com/", "s=secret"),
        ("http cannot delete", "s=secret; Secure; Path=/", "s=; Path=/; Max-Age=0", "http://a.example.com/", "s=secret"),
        ("a shorter path does not path-match the stored one: stored", "s=secret; Secure; Path=/p", "s=plain; Path=/",
         "http://a.example.com/", "s=secret; s=plain"),
        ("another name: stored", "s=secret; Secure; Path=/", "t=plain; Path=/", "http://a.example.com/", "s=secret; t=plain"),
        ("another site: stored", "s=secret; Secure; Path=/", "s=other; Path=/", "http://other.test/", "s=secret"),
        ("https may overwrite", "s=secret; Secure; Path=/", "s=new; Path=/", "https://a.example.com/", "s=new"),
    ]

    @Test("a Set-Cookie from plain http after a Secure one", arguments: rows)
    func leaveSecureAlone(scenario: String, secure: String, line: String, origin: String, expected: String?) throws {
        let storage = HTTPCookieStorage()
        let first = try SetCookieParser.parse(secure, for: url("https://a.example.com/"), suffixes: .fallback).get()
        storage.setCookies([first], for: url("https://a.example.com/"), mainDocumentURL: nil)
        let second = try SetCookieParser.parse(line, for: url(origin), suffixes: .fallback).get()
        storage.setCookies([second], for: url(origin), mainDocumentURL: nil)
        #expect(storage.cookieFieldValue(for: url("https://a.example.com/p/q")) == expected, "\(scenario)")
    }

    @Test("the session's hook obeys it: http://a.example.com cannot replace a Secure cookie")
    func sessionHook() throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .always
        let storage = try #require(configuration.httpCookieStorage)
        let settings = configuration.settings
        var request = URLRequest(url: url("https://a.example.com/"))
        settings.storeCookies(from: [("Set-Cookie", "s=secret; Secure; Path=/")], for: url("https://a.example.com/"), request: request)
        request.url = url("http://a.example.com/")
        settings.storeCookies(from: [("Set-Cookie", "s=evil; Path=/")], for: url("http://a.example.com/"), request: request)
        #expect(storage.cookieFieldValue(for: url("https://a.example.com/")) == "s=secret")
        #expect(storage.cookieFieldValue(for: url("http://a.example.com/")) == nil)
        #expect(storage.cookies?.count == 1)
    }
}
