// URLSession's redirect rules as a table: status, method, body, Location and the current URL
// in; the next request (method, URL, body, fields kept or dropped) or the failure out. No sockets.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

@Suite("Redirect rules")
struct RedirectRulesTests {
    /// What a row expects.
    enum Expected: Sendable {
        case notRedirect
        case follow(method: String, url: String, hasBody: Bool, keptFields: [String], droppedFields: [String])
        case failure(URLError.Code)
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var status: Int
        var method: String
        var body: Bool
        var location: String?
        var current: String
        var expected: Expected
        var description: String { name }
    }

    static let rows: [Row] = [
        // 301/302: POST becomes GET without body or its framing fields; other methods keep both.
        Row(name: "301 POST becomes GET", status: 301, method: "POST", body: true, location: "/next", current: "http://a.test/form",
            expected: .follow(method: "GET", url: "http://a.test/next", hasBody: false, keptFields: ["Authorization", "X-Custom"], droppedFields: ["Content-Type"])),
        Row(name: "302 POST becomes GET", status: 302, method: "POST", body: true, location: "/next", current: "http://a.test/form",
            expected: .follow(method: "GET", url: "http://a.test/next", hasBody: false, keptFields: [], droppedFields: ["Content-Type"])),
        Row(name: "302 PUT keeps method and body", status: 302, method: "PUT", body: true, location: "/next", current: "http://a.test/x",
            expected: .follow(method: "PUT", url: "http://a.test/next", hasBody: true, keptFields: ["Content-Type"], droppedFields: [])),
        Row(name: "301 GET stays GET", status: 301, method: "GET", body: false, location: "/next", current: "http://a.test/x",
            expected: .follow(method: "GET", url: "http://a.test/next", hasBody: false, keptFields: [], droppedFields: [])),
        // 303: everything but HEAD becomes GET.
        Row(name: "303 POST becomes GET", status: 303, method: "POST", body: true, location: "/see", current: "http://a.test/form",
            expected: .follow(method: "GET", url: "http://a.test/see", hasBody: false, keptFields: [], droppedFields: ["Content-Type"])),
        Row(name: "303 PUT becomes GET", status: 303, method: "PUT", body: true, location: "/see", current: "http://a.test/form",
            expected: .follow(method: "GET", url: "http://a.test/see", hasBody: false, keptFields: [], droppedFields: ["Content-Type"])),
        Row(name: "303 HEAD stays HEAD", status: 303, method: "HEAD", body: false, location: "/see", current: "http://a.test/x",
            expected: .follow(method: "HEAD", url: "http://a.test/see", hasBody: false, keptFields: [], droppedFields: [])),
        // 307/308 keep method and body.
        Row(name: "307 POST keeps method and body", status: 307, method: "POST", body: true, location: "/t", current: "http://a.test/x",
            expected: .follow(method: "POST", url: "http://a.test/t", hasBody: true, keptFields: ["Content-Type", "Authorization"], droppedFields: [])),
        Row(name: "308 POST keeps method and body", status: 308, method: "POST", body: true, location: "/p", current: "http://a.test/x",
            expected: .follow(method: "POST", url: "http://a.test/p", hasBody: true, keptFields: ["Content-Type"], droppedFields: [])),
        // Location resolution (RFC 9110 §10.2.2, RFC 3986 §5).
        Row(name: "relative path resolved against the current URL", status: 302, method: "GET", body: false, location: "c/d?q=1",
            current: "http://a.test/a/b", expected: .follow(method: "GET", url: "http://a.test/a/c/d?q=1", hasBody: false, keptFields: [], droppedFields: [])),
        Row(name: "dot segments removed", status: 302, method: "GET", body: false, location: "../up", current: "http://a.test/a/b/c",
            expected: .follow(method: "GET", url: "http://a.test/a/up", hasBody: false, keptFields: [], droppedFields: [])),
        Row(name: "scheme-relative Location", status: 302, method: "GET", body: false, location: "//b.test/x", current: "https://a.test/",
            expected: .follow(method: "GET", url: "https://b.test/x", hasBody: false, keptFields: [], droppedFields: ["Authorization", "Cookie", "Proxy-Authorization"])),
        Row(name: "the fragment carries over", status: 302, method: "GET", body: false, location: "/new", current: "http://a.test/old#frag",
            expected: .follow(method: "GET", url: "http://a.test/new#frag", hasBody: false, keptFields: [], droppedFields: [])),
        Row(name: "Location's own fragment wins", status: 302, method: "GET", body: false, location: "/new#mine", current: "http://a.test/old#frag",
            expected: .follow(method: "GET", url: "http://a.test/new#mine", hasBody: false, keptFields: [], droppedFields: [])),
        // Origins: credentials stay with theirs.
        Row(name: "another host drops Authorization, Cookie, Proxy-Authorization", status: 302, method: "GET", body: false,
            location: "http://b.test/", current: "http://a.test/",
            expected: .follow(method: "GET", url: "http://b.test/", hasBody: false, keptFields: ["X-Custom"], droppedFields: ["Authorization", "Cookie", "Proxy-Authorization"])),
        Row(name: "another port is another origin", status: 307, method: "GET", body: false, location: "http://a.test:8080/", current: "http://a.test/",
            expected: .follow(method: "GET", url: "http://a.test:8080/", hasBody: false, keptFields: [], droppedFields: ["Authorization"])),
        Row(name: "the explicit default port is the same origin", status: 307, method: "GET", body: false, location: "http://a.test:80/x", current: "http://a.test/",
            expected: .follow(method: "GET", url: "http://a.test:80/x", hasBody: false, keptFields: ["Authorization", "Cookie"], droppedFields: [])),
        Row(name: "https to http is followed (as URLSession), without credentials", status: 302, method: "GET", body: false,
            location: "http://a.test/", current: "https://a.test/",
            expected: .follow(method: "GET", url: "http://a.test/", hasBody: false, keptFields: [], droppedFields: ["Authorization"])),
        // Not redirects.
        Row(name: "300 is delivered", status: 300, method: "GET", body: false, location: "/x", current: "http://a.test/", expected: .notRedirect),
        Row(name: "304 is delivered", status: 304, method: "GET", body: false, location: "/x", current: "http://a.test/", expected: .notRedirect),
        Row(name: "no Location is delivered", status: 302, method: "GET", body: false, location: nil, current: "http://a.test/", expected: .notRedirect),
        Row(name: "an empty Location is delivered", status: 302, method: "GET", body: false, location: "", current: "http://a.test/", expected: .notRedirect),
        Row(name: "200 with a Location is delivered", status: 200, method: "GET", body: false, location: "/x", current: "http://a.test/", expected: .notRedirect),
        // Failures.
        Row(name: "ftp is refused", status: 302, method: "GET", body: false, location: "ftp://a.test/f", current: "http://a.test/", expected: .failure(.unsupportedURL)),
        Row(name: "file is refused", status: 302, method: "GET", body: false, location: "file:///etc/passwd", current: "http://a.test/", expected: .failure(.badURL)),
        Row(name: "javascript is refused", status: 302, method: "GET", body: false, location: "javascript:alert(1)", current: "http://a.test/", expected: .failure(.badURL)),
        Row(name: "an unparsable Location", status: 302, method: "GET", body: false, location: "http://[::1", current: "http://a.test/", expected: .failure(.badURL)),
        Row(name: "an overlong Location", status: 302, method: "GET", body: false, location: "/" + String(repeating: "a", count: 9000),
            current: "http://a.test/", expected: .failure(.badURL)),
    ]

    @Test("rules", arguments: rows)
    func rule(_ row: Row) throws {
        var request = URLRequest(url: URL(string: row.current)!)
        request.httpMethod = row.method
        for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-Custom"] { request.setValue("v", forHTTPHeaderField: name) }
        if row.body {
            request.httpBody = Data("a=1".utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let outcome = RedirectRules.next(status: row.status, location: row.location, current: request)
        switch (row.expected, outcome) {
        case (.notRedirect, .notRedirect): break
        case (.failure(let code), .failure(let got)): #expect(code == got)
        case (.follow(let method, let url, let hasBody, let kept, let dropped), .follow(let next, let keepsBody)):
            #expect(next.httpMethod == method)
            #expect(next.url?.absoluteString == url)
            #expect((next.httpBody != nil) == hasBody)
            #expect(keepsBody == hasBody || !row.body)
            for name in kept { #expect(next.value(forHTTPHeaderField: name) != nil, "\(name) kept") }
            for name in dropped { #expect(next.value(forHTTPHeaderField: name) == nil, "\(name) dropped") }
        default:
            Issue.record("expected \(row.expected), got \(outcome)")
        }
    }
}
