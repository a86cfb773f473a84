import Testing
import Wire

/// A raw response stream and the events it must produce, whatever the split.
struct Fixture: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: String
    var methods: [RequestMethod] = [.get]
    var eof = true
    var expected: [Recorded]
    var testDescription: String { name }
}

extension Recorded: @unchecked Sendable {}

/// Valid responses and edge cases (RFC 9112 §4–§7).
let validFixtures: [Fixture] = [
    // Content-Length body, keep-alive by default in HTTP/1.1.
    Fixture(name: "content-length", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello", expected: [
        .head(200, "OK", fields("Content-Length", "5", "Content-Type", "text/plain"), .contentLength(5), keepAlive: true),
        .body(Array("hello".utf8)), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Field order, duplicates and name case preserved; OWS trimmed; empty value allowed.
    Fixture(name: "fields preserved", raw: "HTTP/1.1 204 No Content\r\nX-A:1\r\nset-cookie: a=1 \r\nSet-Cookie:\t b=2\t\r\nX-Empty:\r\n\r\n", expected: [
        .head(204, "No Content", fields("X-A", "1", "set-cookie", "a=1", "Set-Cookie", "b=2", "X-Empty", ""), .none, keepAlive: true),
        .end([], closeDelimited: false, keepAlive: true),
    ]),
    // obs-text and HTAB inside a value are kept.
    Fixture(name: "obs-text and tab in value", raw: "HTTP/1.1 204 \r\nX: a\tb \u{00E9}\r\n\r\n", expected: [
        .head(204, "", fields("X", "a\tb \u{00E9}"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Missing reason phrase, with and without the SP.
    Fixture(name: "no reason phrase", raw: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", methods: [.get, .get], expected: [
        .head(200, "", fields("Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
        .head(200, "", fields("Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Chunked with extensions, upper-case hex, and trailers.
    Fixture(name: "chunked with extensions and trailers", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b;c=\"d e\"\r\nhello\r\nA \t; x\r\n0123456789\r\n0\r\nDigest: abc\r\nX-T: 1\r\n\r\n", expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true),
        .body(Array("hello0123456789".utf8)), .end(fields("Digest", "abc", "X-T", "1"), closeDelimited: false, keepAlive: true),
    ]),
    // Chunked without trailers; leading zeros in the size.
    Fixture(name: "chunked leading zeros", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n0003\r\nabc\r\n000\r\n\r\n", expected: [
        .head(200, "OK", fields("Transfer-Encoding", "gzip, Chunked"), .chunked, keepAlive: true),
        .body(Array("abc".utf8)), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Transfer-Encoding split over two fields: chunked is final.
    Fixture(name: "transfer-encoding across fields", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", expected: [
        .head(200, "OK", fields("Transfer-Encoding", "gzip", "Transfer-Encoding", "chunked"), .chunked, keepAlive: true),
        .body([0x78]), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // A final coding other than chunked: read until close (RFC 9112 §6.3 point 4).
    Fixture(name: "transfer-encoding not chunked", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc", expected: [
        .head(200, "OK", fields("Transfer-Encoding", "gzip"), .untilClose, keepAlive: false),
        .body(Array("abc".utf8)), .end([], closeDelimited: true, keepAlive: false),
    ]),
    // No framing fields: close-delimited, marked as such.
    Fixture(name: "close-delimited", raw: "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nall of this\r\nHTTP/1.1 200 OK\r\n", expected: [
        .head(200, "OK", fields("Server", "x"), .untilClose, keepAlive: false),
        .body(Array("all of this\r\nHTTP/1.1 200 OK\r\n".utf8)), .end([], closeDelimited: true, keepAlive: false),
    ]),
    // Close-delimited with an empty body.
    Fixture(name: "close-delimited empty", raw: "HTTP/1.0 200 OK\r\n\r\n", expected: [
        .head(200, "OK", [], .untilClose, keepAlive: false), .end([], closeDelimited: true, keepAlive: false),
    ]),
    // HEAD: Content-Length describes the GET body; nothing follows.
    Fixture(name: "HEAD ignores content-length", raw: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", methods: [.head, .get], expected: [
        .head(200, "OK", fields("Content-Length", "1000"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
        .head(200, "OK", fields("Content-Length", "2"), .contentLength(2), keepAlive: true), .body(Array("ok".utf8)), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // HEAD with chunked: no body either.
    Fixture(name: "HEAD with chunked", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", methods: [.head], expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // 204 and 304 never have a body.
    Fixture(name: "204 and 304", raw: "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", methods: [.get, .get], expected: [
        .head(204, "No Content", fields("Content-Length", "7"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
        .head(304, "Not Modified", fields("Content-Length", "9"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Interim responses are surfaced and the final one follows.
    Fixture(name: "100 and 103 then 200", raw: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", methods: [.post], expected: [
        .interim(100, []), .interim(103, fields("Link", "</s.css>; rel=preload")),
        .head(200, "OK", fields("Content-Length", "1"), .contentLength(1), keepAlive: true), .body([0x78]), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // 101 to the request that offered Upgrade (OPTIONS in these tests) stops parsing and hands back the rest.
    Fixture(name: "101 switching protocols", raw: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{05}hello", methods: [.options], expected: [
        .upgraded(101, rest: Array("\u{81}\u{05}hello".utf8)),
    ]),
    // A 2xx answer to CONNECT is a tunnel, even with Content-Length.
    Fixture(name: "CONNECT tunnel", raw: "HTTP/1.1 200 Connection established\r\nContent-Length: 3\r\n\r\nTLS-bytes", methods: [.connect], expected: [
        .upgraded(200, rest: Array("TLS-bytes".utf8)),
    ]),
    // A non-2xx answer to CONNECT is an ordinary response.
    Fixture(name: "CONNECT refused", raw: "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 2\r\n\r\nno", methods: [.connect], expected: [
        .head(407, "Proxy Authentication Required", fields("Content-Length", "2"), .contentLength(2), keepAlive: true),
        .body(Array("no".utf8)), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Pipelined responses in one stream, each for its own request.
    Fixture(name: "pipelined", raw: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", methods: [.get, .get, .get], expected: [
        .head(200, "OK", fields("Content-Length", "1"), .contentLength(1), keepAlive: true), .body([0x61]), .end([], closeDelimited: false, keepAlive: true),
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .body([0x62]), .end([], closeDelimited: false, keepAlive: true),
        .head(404, "Not Found", fields("Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Connection: close, and HTTP/1.0 keep-alive rules.
    Fixture(name: "connection close", raw: "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", expected: [
        .head(200, "OK", fields("Connection", "keep-alive, Close", "Content-Length", "0"), .none, keepAlive: false), .end([], closeDelimited: false, keepAlive: false),
    ]),
    Fixture(name: "http/1.0 keep-alive", raw: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\nHTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", methods: [.get, .get], expected: [
        .head(200, "OK", fields("Connection", "Keep-Alive", "Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
        .head(200, "OK", fields("Content-Length", "0"), .none, keepAlive: false), .end([], closeDelimited: false, keepAlive: false),
    ]),
    // Identical Content-Length values, in two fields or a list, are one length (RFC 9110 §8.6).
    Fixture(name: "identical content-lengths", raw: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\ncontent-length: 3, 3\r\n\r\nabc", expected: [
        .head(200, "OK", fields("Content-Length", "3", "content-length", "3, 3"), .contentLength(3), keepAlive: true),
        .body(Array("abc".utf8)), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // obs-fold is replaced by spaces on an ordinary field (RFC 9112 §5.2).
    Fixture(name: "obs-fold", raw: "HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc\r\nContent-Length: 0\r\n\r\n", expected: [
        .head(200, "OK", fields("X-Long", "a    b  \tc".replacingTabs(), "Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // A higher minor version is HTTP/1.1-compatible.
    Fixture(name: "HTTP/1.9", raw: "HTTP/1.9 200 OK\r\nContent-Length: 0\r\n\r\n", expected: [
        .head(200, "OK", fields("Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Status codes 600-999 are kept (RFC 9110 §15: treat as 5xx); the client decides.
    Fixture(name: "status 999", raw: "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", expected: [
        .head(999, "Odd", fields("Content-Length", "0"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
    ]),
    // A folded Connection list still says close (fuzzer finding parser-folded-connection-close).
    Fixture(name: "folded connection close", raw: "HTTP/1.1 200 OK\r\nConnection: keep-alive,\r\n close\r\nContent-Length: 0\r\n\r\n", expected: [
        .head(200, "OK", fields("Connection", "keep-alive,   close", "Content-Length", "0"), .none, keepAlive: false), .end([], closeDelimited: false, keepAlive: false),
    ]),
    // A clean close with nothing outstanding is not an error.
    Fixture(name: "nothing expected, nothing sent", raw: "", methods: [], expected: []),
]

extension String {
    /// Tabs inside obs-fold become spaces as well.
    func replacingTabs() -> String { String(map { $0 == "\t" ? " " : $0 }) }
}

@Suite("Response fixtures")
struct ResponseFixtureTests {
    @Test("valid responses, every split", arguments: validFixtures)
    func valid(_ fixture: Fixture) {
        let (events, mismatch) = splitInvariantTranscript(Array(fixture.raw.utf8), methods: fixture.methods, eof: fixture.eof)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        #expect(events == fixture.expected)
    }

    @Test("bytes after the last expected response are never parsed as a response", arguments: validFixtures.filter {
        guard case .end(_, let closeDelimited, _)? = $0.expected.last else { return false }
        return !closeDelimited
    })
    func trailingBytes(_ fixture: Fixture) {
        let raw = Array(fixture.raw.utf8)
        let extra = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        let (events, mismatch) = splitInvariantTranscript(raw + extra, methods: fixture.methods, eof: true)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        #expect(Array(events.dropLast()) == fixture.expected)
        #expect(events.last == .error(.unsolicitedData, offset: raw.count))
    }
}
