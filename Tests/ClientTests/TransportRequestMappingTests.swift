// The wire mapping (`TransportRequest+URLRequest.swift`) as tables, no sockets: one row per
// concern (scheme, host and IDNA, Unix socket, default headers, framing, cookies, target,
// timeouts, proxy), each asserting the pool key and the exact head bytes the serializer writes
// from it, then a table of the requests it refuses and the error each gets.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Wire
import EventLoop
@testable import Client
@testable import Transport

@Suite("Wire mapping: URLRequest to TransportRequest")
struct TransportRequestMappingTests {
    /// One mapping: what goes in (the request, the session's settings, an upload body, the
    /// cookies looked up) and what must come out (the key, the head as bytes, the limits).
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var url: String
        var method: String?
        var fields: [(String, String)] = []
        var httpBody: Data?
        var upload: RequestBody?
        var timeout: TimeInterval?
        var additional: [String: String]?
        var connect: TimeInterval = .infinity
        var resource: TimeInterval = 7 * 86_400
        var cookies: CookieFieldValue?
        var proxy: ProxyConfiguration?
        /// `ConnectionKey.description`.
        var key: String
        /// The head's lines without their CRLFs, the blank line implied.
        var head: [String]
        var idempotent = true
        var idle: Duration? = .seconds(60)
        var connectLimit: Duration?
        var total: Duration? = .seconds(7 * 86_400)
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        // scheme
        Row(name: "scheme: http, default port left out of Host", url: "http://example.test/a",
            key: "http://example.test:80", head: ["GET /a HTTP/1.1", "Host: example.test"]),
        Row(name: "scheme: https with its port, scheme case ignored", url: "HTTPS://example.test:8443/",
            key: "https://example.test:8443", head: ["GET / HTTP/1.1", "Host: example.test:8443"]),
        // host
        Row(name: "IDNA: a Unicode host goes out as A-labels", url: "https://bücher.example/",
            key: "https://xn--bcher-kva.example:443", head: ["GET / HTTP/1.1", "Host: xn--bcher-kva.example"]),
        Row(name: "IPv6 literal: bracketed in Host, bare in the key", url: "http://[::1]:8080/",
            key: "http://::1:8080", head: ["GET / HTTP/1.1", "Host: [::1]:8080"]),
        Row(name: "Host field of the request replaces the authority, not the key", url: "http://example.test/",
            fields: [("Host", "other.test")],
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: other.test"]),
        // Unix socket
        Row(name: "Unix socket: the decoded host is the path, Host says localhost",
            url: "http+unix://%2Ftmp%2Fapi.sock/v1/info?all=1",
            key: "http+unix:///tmp/api.sock", head: ["GET /v1/info?all=1 HTTP/1.1", "Host: localhost"]),
        // default headers
        Row(name: "additional headers: added where the request has none, case-insensitively",
            url: "http://example.test/", fields: [("accept", "a/b")],
            additional: ["Accept": "x/y", "User-Agent": "ua/1"],
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: example.test", "accept: a/b", "User-Agent: ua/1"]),
        Row(name: "additional headers: a Host among them sets the authority, framing fields among them are dropped",
            url: "http://example.test/", additional: ["Host": "h.test", "Content-Length": "5", "Transfer-Encoding": "chunked"],
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: h.test"]),
        // framing
        Row(name: "framing: POST without a body says Content-Length: 0", url: "http://example.test/", method: "POST",
            key: "http://example.test:80", head: ["POST / HTTP/1.1", "Host: example.test", "Content-Length: 0"],
            idempotent: false),
        Row(name: "framing: DELETE without a body has no framing fields", url: "http://example.test/", method: "DELETE",
            key: "http://example.test:80", head: ["DELETE / HTTP/1.1", "Host: example.test"]),
        Row(name: "framing: the caller's Content-Length and Transfer-Encoding give way to the body's length",
            url: "http://example.test/", method: "PUT",
            fields: [("Content-Length", "99"), ("Transfer-Encoding", "chunked"), ("X-A", "1")], httpBody: Data("abc".utf8),
            key: "http://example.test:80", head: ["PUT / HTTP/1.1", "Host: example.test", "X-A: 1", "Content-Length: 3"]),
        Row(name: "framing: an upload body replaces httpBody", url: "http://example.test/", method: "POST",
            httpBody: Data("abc".utf8), upload: .file(path: "/nonexistent", length: 12),
            key: "http://example.test:80", head: ["POST / HTTP/1.1", "Host: example.test", "Content-Length: 12"],
            idempotent: false),
        Row(name: "framing: a stream of unknown length goes chunked", url: "http://example.test/", method: "POST",
            upload: .stream(RequestBodyStream(InputStream(data: Data("x".utf8))), length: nil),
            key: "http://example.test:80", head: ["POST / HTTP/1.1", "Host: example.test", "Transfer-Encoding: chunked"],
            idempotent: false),
        // cookies
        Row(name: "cookies: the looked-up field follows the request's own", url: "http://example.test/",
            fields: [("X-A", "1")], cookies: .text("a=1; b=2"),
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: example.test", "X-A: 1", "Cookie: a=1; b=2"]),
        // target
        Row(name: "target: an empty path is /", url: "http://example.test",
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: example.test"]),
        Row(name: "target: path and query keep their escapes, the fragment stays home",
            url: "http://example.test/a%20b/c?q=1%202&x#frag",
            key: "http://example.test:80", head: ["GET /a%20b/c?q=1%202&x HTTP/1.1", "Host: example.test"]),
        // timeouts
        Row(name: "timeouts: the request's own idle timeout wins over the configuration's", url: "http://example.test/",
            timeout: 5, connect: 2, resource: 30,
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: example.test"],
            idle: .seconds(5), connectLimit: .seconds(2), total: .seconds(30)),
        Row(name: "timeouts: .infinity is no limit", url: "http://example.test/", timeout: .infinity, resource: .infinity,
            key: "http://example.test:80", head: ["GET / HTTP/1.1", "Host: example.test"], idle: nil, total: nil),
        // proxy
        Row(name: "proxy: plain http through an HTTP proxy is absolute-form with its credentials",
            url: "http://example.test:8080/a?b=1",
            proxy: ProxyConfiguration(all: ProxyServer(host: "p.test", port: 3128, username: "u", password: "pw")),
            key: "http://example.test:8080 via http://p.test:3128",
            head: ["GET http://example.test:8080/a?b=1 HTTP/1.1", "Host: example.test:8080", "Proxy-Authorization: Basic dTpwdw=="]),
        Row(name: "proxy: https tunnels, the origin sees origin-form and no credentials", url: "https://example.test/a",
            proxy: ProxyConfiguration(all: ProxyServer(host: "p.test", port: 3128, username: "u", password: "pw")),
            key: "https://example.test:443 via http://p.test:3128", head: ["GET /a HTTP/1.1", "Host: example.test"]),
        Row(name: "proxy: never for a Unix socket", url: "http+unix://%2Ftmp%2Fapi.sock/",
            proxy: ProxyConfiguration(all: ProxyServer(host: "p.test", port: 3128)),
            key: "http+unix:///tmp/api.sock", head: ["GET / HTTP/1.1", "Host: localhost"]),
    ]

    /// The settings a row describes; no proxy from the environment, no default headers.
    static func settings(_ row: Row) -> URLSessionConfiguration.Settings {
        var settings = URLSessionConfiguration.Settings()
        settings.proxy = row.proxy
        settings.httpAdditionalHeaders = row.additional
        settings.timeoutIntervalForConnect = row.connect
        settings.timeoutIntervalForResource = row.resource
        return settings
    }

    /// The URLRequest a row describes.
    static func urlRequest(_ row: Row) -> URLRequest {
        var request = URLRequest(url: URL(string: row.url)!)
        request.httpMethod = row.method
        for (name, value) in row.fields { request.headers.add(name: name, value: value) }
        request.httpBody = row.httpBody
        if let timeout = row.timeout { request.timeoutInterval = timeout }
        return request
    }

    @Test("one row per concern: key, head bytes and limits", arguments: rows)
    func mapped(_ row: Row) throws {
        let start = Deadline.now()
        let request = try TransportRequest(Self.urlRequest(row), settings: Self.settings(row), body: row.upload,
                                           cookies: row.cookies, start: start)
        #expect(request.key.description == row.key)
        let head = String(decoding: try RequestSerializer.serialize(request.head), as: UTF8.self)
        #expect(head == row.head.map { $0 + "\r\n" }.joined() + "\r\n")
        #expect(request.isIdempotent == row.idempotent)
        #expect(request.idleTimeout == row.idle)
        #expect(request.connectTimeout == row.connectLimit)
        #expect(request.deadline == (row.total.map { start + $0 } ?? .distantFuture))
    }

    /// A request the mapping refuses, and the error it must throw.
    enum Refusal: Sendable {
        /// `AFError.invalidURL`.
        case invalidURL
        /// `TransportError` of kind `.unsupportedURL`, which `Session` makes a refused exchange.
        case unsupported
        /// `AFError.sessionTaskFailed` with this `URLError` code.
        case taskFailed(URLError.Code)
    }

    static let refusals: [(String, String?, TimeInterval, Refusal)] = [
        ("no URL at all", nil, 60, .invalidURL),
        ("a scheme Lariat does not send", "ftp://example.test/", 60, .unsupported),
        ("no scheme: a relative reference", "invalid?foo=bar", 60, .unsupported),
        ("a file URL", "file:///etc/hosts", 60, .unsupported),
        ("an empty host", "http:///path", 60, .invalidURL),
        ("a NUL smuggled into the host", "http://localhost%00.evil.test/", 60, .invalidURL),
        ("a Unix socket path longer than sun_path", "http+unix://%2F" + String(repeating: "a", count: 200) + "/", 60, .invalidURL),
        ("a zero timeout", "http://example.test/", 0, .taskFailed(.timedOut)),
        ("a NaN timeout", "http://example.test/", .nan, .taskFailed(.timedOut)),
    ]

    @Test("refused requests and their errors", arguments: refusals)
    func refused(_ name: String, _ url: String?, _ timeout: TimeInterval, _ refusal: Refusal) {
        var request = URLRequest(url: URL(string: "http://placeholder.test/")!)
        request.url = url.map { URL(string: $0)! }
        request.timeoutInterval = timeout
        let error = #expect(throws: (any Error).self, "\(name)") {
            _ = try TransportRequest(request, settings: URLSessionConfiguration.Settings(), body: nil, cookies: nil, start: .now())
        }
        switch refusal {
        case .invalidURL: #expect((error as? AFError)?.isInvalidURLError == true, "\(name): \(String(describing: error))")
        case .unsupported: #expect((error as? TransportError)?.kind == .unsupportedURL, "\(name): \(String(describing: error))")
        case .taskFailed(let code):
            #expect(((error as? AFError)?.underlyingError as? URLError)?.code == code, "\(name): \(String(describing: error))")
        }
    }

    @Test("additional headers: of two names equal ignoring case one is sent, and none the request sets")
    func additionalHeadersEqualIgnoringCase() throws {
        let additional = ["X-Dup": "1", "x-dup": "2", "X-Other": "3"]
        func sent(to own: HTTPHeaders) -> [String] {
            additional.indices.filter { TransportRequest.addsAdditionalHeader(at: $0, of: additional, to: own) }
                .map { additional[$0].key.lowercased() }.sorted()
        }
        #expect(sent(to: HTTPHeaders()) == ["x-dup", "x-other"])
        #expect(sent(to: HTTPHeaders([HTTPHeader(name: "X-DUP", value: "0")])) == ["x-other"])
        var settings = URLSessionConfiguration.Settings()
        settings.httpAdditionalHeaders = additional
        let request = try TransportRequest(URLRequest(url: URL(string: "http://example.test/")!), settings: settings,
                                           body: nil, cookies: nil, start: .now())
        let head = String(decoding: try RequestSerializer.serialize(request.head), as: UTF8.self)
        let lines = head.split(whereSeparator: { $0 == "\r\n" }).map { $0.lowercased() }
        #expect(lines.filter { $0.hasPrefix("x-dup: ") }.count == 1, "\(head)")
        #expect(lines.contains("x-other: 3"), "\(head)")
    }

    @Test("Session: an unsupported URL becomes a refused exchange, not an error before the task")
    func refusedBySession() throws {
        let request = try Session().transportRequest(for: URLRequest(url: URL(string: "file:///etc/hosts")!))
        #expect(request.refusal?.kind == .unsupportedURL)
        #expect(try Session().transportRequest(for: URLRequest(url: URL(string: "http://example.test/")!)).refusal == nil)
        #expect(Session().serializedRequestHead(for: URLRequest(url: URL(string: "invalid")!)) == nil)
    }
}
