// HTTPCookieStorage without sockets: which cookies a URL gets and in what order, the Cookie
// field, replacement and deletion, accept policies, limits, and the session's request-side hook.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client
import Wire

private func url(_ text: String) -> URL { URL(string: text)! }

/// Stores each Set-Cookie line as a response to `origin` would.
private func storage(_ lines: [String], from origin: String, policy: HTTPCookie.AcceptPolicy = .always) -> HTTPCookieStorage {
    let storage = HTTPCookieStorage()
    for line in lines {
        if case .success(let cookie) = SetCookieParser.parse(line, for: url(origin)) {
            storage.store([cookie], for: url(origin), mainDocumentURL: nil, policy: policy)
        }
    }
    return storage
}

@Suite("HTTPCookieStorage")
struct CookieStorageTests {
    static let headers: [(String, [String], String, String?)] = [
        // scenario, Set-Cookie lines from https://www.example.com/a/b, request URL, Cookie field
        ("host-only cookie to its host", ["k=v"], "https://www.example.com/a", "k=v"),
        ("host-only cookie not to a subdomain", ["k=v"], "https://x.www.example.com/a", nil),
        ("host-only cookie not to the parent", ["k=v"], "https://example.com/a", nil),
        ("domain cookie to a sibling", ["k=v; Domain=example.com"], "https://api.example.com/a", "k=v"),
        ("default path /a not sent to /b", ["k=v"], "https://www.example.com/b", nil),
        ("Secure not sent over http", ["k=v; Secure; Path=/"], "http://www.example.com/", nil),
        ("Secure sent over https", ["k=v; Secure; Path=/"], "https://www.example.com/", "k=v"),
        ("longer path first, then creation order",
         ["a=1; Path=/", "b=2; Path=/a/b", "c=3; Path=/a", "d=4; Path=/"], "https://www.example.com/a/b/c", "b=2; c=3; a=1; d=4"),
        ("replacement keeps the first creation time", ["a=1; Path=/", "b=2; Path=/", "a=3; Path=/"], "https://www.example.com/", "a=3; b=2"),
        ("Max-Age=0 deletes", ["a=1; Path=/", "a=x; Path=/; Max-Age=0"], "https://www.example.com/", nil),
        ("past Expires deletes", ["a=1; Path=/", "a=x; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], "https://www.example.com/", nil),
        ("same name, other path: two cookies", ["a=1; Path=/", "a=2; Path=/a"], "https://www.example.com/a", "a=2; a=1"),
    ]

    @Test("the Cookie field for a URL", arguments: headers)
    func cookieField(scenario: String, lines: [String], request: String, expected: String?) {
        let store = storage(lines, from: "https://www.example.com/a/b")
        #expect(store.cookieFieldValue(for: url(request)) == expected, "\(scenario)")
        let fields = HTTPCookie.requestHeaderFields(with: store.cookies(for: url(request)) ?? [])
        #expect(fields == (expected.map { ["Cookie": $0] } ?? [:]), "\(scenario)")
    }

    @Test("accept policies: never, always, only from the main document's site")
    func policies() {
        let cookie = HTTPCookie(properties: [.name: "k", .value: "v", .domain: ".cdn.net"])!
        let store = HTTPCookieStorage()
        store.store([cookie], for: url("https://cdn.net/"), mainDocumentURL: url("https://example.com/"), policy: .onlyFromMainDocumentDomain)
        #expect(store.cookies?.isEmpty == true)
        store.store([cookie], for: url("https://cdn.net/"), mainDocumentURL: nil, policy: .onlyFromMainDocumentDomain)
        #expect(store.cookies?.count == 1)  // no main document: the request URL's own site
        let site = HTTPCookie(properties: [.name: "s", .value: "v", .domain: "www.example.com"])!
        store.store([site], for: url("https://www.example.com/"), mainDocumentURL: url("https://example.com/"), policy: .onlyFromMainDocumentDomain)
        #expect(store.cookies?.count == 2)
        // An IP address or a public-suffix host is its own site (the registrable domain of
        // 127.0.0.1 is not `0.1`; this refused every loopback cookie before the fix).
        for origin in ["http://127.0.0.1:8080/", "http://localhost/"] {
            let own = try! SetCookieParser.parse("ip=1", for: url(origin)).get()
            store.store([own], for: url(origin), mainDocumentURL: nil, policy: .onlyFromMainDocumentDomain)
        }
        #expect(store.cookies?.count == 4)
        store.cookieAcceptPolicy = .never
        store.setCookie(HTTPCookie(properties: [.name: "n", .value: "v", .domain: "x.com"])!)
        store.setCookies([HTTPCookie(properties: [.name: "n", .value: "v", .domain: "x.com"])!], for: url("https://x.com/"), mainDocumentURL: nil)
        #expect(store.cookies?.count == 4)
    }

    @Test("deleteCookie and removeCookies(since:)")
    func deletion() {
        let store = HTTPCookieStorage()
        let old = HTTPCookie(properties: [.name: "a", .value: "1", .domain: "e.com"])!
        store.setCookie(old)
        let cutoff = Date()
        store.setCookie(HTTPCookie(properties: [.name: "b", .value: "2", .domain: "e.com"])!)
        store.removeCookies(since: cutoff)
        #expect(store.cookies?.map(\.name) == ["a"])
        store.deleteCookie(HTTPCookie(properties: [.name: "a", .value: "other", .domain: "e.com"])!)
        #expect(store.cookies?.isEmpty == true)
    }

    @Test("limits: 50 per domain, oldest evicted; 3000 in all")
    func limits() {
        let store = HTTPCookieStorage()
        for index in 0..<60 { store.setCookie(HTTPCookie(properties: [.name: "c\(index)", .value: "v", .domain: ".e.com"])!) }
        let names = store.cookies?.map(\.name) ?? []
        #expect(names.count == HTTPCookieStorage.maxCookiesPerDomain && names.first == "c10" && names.last == "c59")
        for domain in 0..<70 {
            for index in 0..<45 { store.setCookie(HTTPCookie(properties: [.name: "c\(index)", .value: "v", .domain: "d\(domain).com"])!) }
        }
        #expect(store.cookies?.count == HTTPCookieStorage.maxCookies)
        #expect(store.cookies(for: url("http://x.e.com/"))?.isEmpty == true)  // the oldest went first
    }

    @Test("HTTPCookie(properties:): required keys, defaults, round trip")
    func properties() throws {
        #expect(HTTPCookie(properties: [.name: "k", .value: "v"]) == nil)  // no domain or origin
        #expect(HTTPCookie(properties: [.value: "v", .domain: "e.com"]) == nil)
        #expect(HTTPCookie(properties: [.name: "k;", .value: "v", .domain: "e.com"]) == nil)
        let fromOrigin = try #require(HTTPCookie(properties: [.name: "k", .value: "v", .originURL: url("https://WWW.e.com/x")]))
        #expect(fromOrigin.domain == "www.e.com" && fromOrigin.path == "/" && fromOrigin.isSessionOnly && !fromOrigin.isSecure)
        let full = try #require(HTTPCookie(properties: [
            .name: "k", .value: "v", .domain: ".e.com", .path: "/p", .secure: "TRUE", .expires: Date(timeIntervalSince1970: 2_000_000_000),
            HTTPCookiePropertyKey("HttpOnly"): "TRUE", .sameSitePolicy: "Lax",
        ]))
        #expect(full.isSecure && full.isHTTPOnly && full.sameSitePolicy == .sameSiteLax && !full.isSessionOnly)
        let fullProperties = try #require(full.properties)
        let again = try #require(HTTPCookie(properties: fullProperties))
        #expect(again == full)
        let discarded = try #require(HTTPCookie(properties: [.name: "k", .value: "v", .domain: "e.com", .maximumAge: "60", .discard: "TRUE"]))
        #expect(discarded.isSessionOnly)
    }

    @Test("Session's request side: storage cookies added, an explicit Cookie field kept, opt-outs honoured")
    func requestHook() throws {
        let configuration = URLSessionConfiguration.ephemeral
        let store = try #require(configuration.httpCookieStorage)
        #expect(store !== HTTPCookieStorage.shared)
        #expect(URLSessionConfiguration.default.httpCookieStorage === HTTPCookieStorage.shared)
        #expect(URLSessionConfiguration.default.httpCookieAcceptPolicy == .onlyFromMainDocumentDomain)
        #expect(URLSessionConfiguration.default.httpShouldSetCookies)
        store.setCookie(HTTPCookie(properties: [.name: "k", .value: "v", .domain: "e.com"])!)
        let session = Session(configuration: configuration)
        func cookieField(_ request: URLRequest) throws -> [String] {
            try session.transportRequest(for: request).head.fields.filter { $0.name.lowercased() == "cookie" }.map(\.value)
        }
        var request = URLRequest(url: url("http://e.com/"))
        #expect(try cookieField(request) == ["k=v"])
        request.setValue("mine=1", forHTTPHeaderField: "Cookie")
        #expect(try cookieField(request) == ["mine=1"])
        request = URLRequest(url: url("http://e.com/"))
        request.httpShouldHandleCookies = false
        #expect(try cookieField(request) == [])
        configuration.httpShouldSetCookies = false
        #expect(try cookieField(URLRequest(url: url("http://e.com/"))) == ["k=v"])  // the session took a snapshot
        let off = Session(configuration: configuration)
        #expect(try off.transportRequest(for: URLRequest(url: url("http://e.com/"))).head.fields.allSatisfy { $0.name != "Cookie" })
    }
}
