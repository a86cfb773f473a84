import Testing
import Wire

// Fixtures added by the RFC 9112 / RFC 9110 audit (Sources/Wire/AUDIT.md lists every requirement
// and the fixture that covers it, here or in ResponseFixtureTests and MalformedFixtureTests).
// Each runs whole, byte by byte and, up to 2 KiB, split at every index.

/// One audited requirement: a stream and what the parser must make of it.
struct AuditFixture: CustomTestStringConvertible, Sendable {
    /// What the stream must produce.
    enum Outcome: Sendable, Equatable {
        /// Complete responses, no error; the bodies concatenated.
        case accepted(body: String)
        /// A switch of protocols; the bytes after the head.
        case upgraded(rest: String)
        /// An error with this rule (at this stream offset when given).
        case rejected(WireError.Rule, offset: Int?)
    }

    var name: String
    var raw: String
    var methods: [RequestMethod] = [.get]
    var limits: ParserLimits = .default
    var outcome: Outcome
    var testDescription: String { name }
}

private let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"  // 47 bytes: the body starts at 47
private let switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
private let continueHead = "HTTP/1.1 100 Continue\r\n\r\n"  // 25 bytes

/// `count` one-byte chunks, each with an extension of `extensionLength` bytes, then the last chunk.
private func tinyChunks(_ count: Int, extensionLength: Int) -> String {
    String(repeating: "1;" + String(repeating: "a", count: extensionLength) + "\r\nx\r\n", count: count) + "0\r\n\r\n"
}

let auditFixtures: [AuditFixture] = [
    // MARK: Chunk extensions (RFC 9112 §7.1.1: chunk-ext-name = token, chunk-ext-val = token / quoted-string)
    AuditFixture(name: "ext: name only", raw: chunked + "5;a\r\nhello\r\n0\r\n\r\n", outcome: .accepted(body: "hello")),
    AuditFixture(name: "ext: several, BWS everywhere", raw: chunked + "5 ; a = b ; c ;d=\"q\" \r\nhello\r\n0\r\n\r\n", outcome: .accepted(body: "hello")),
    AuditFixture(name: "ext: quoted string with escapes and obs-text", raw: chunked + "5;a=\"x\\\"y\\\\ \u{00E9};\"\r\nhello\r\n0;z\r\n\r\n", outcome: .accepted(body: "hello")),
    AuditFixture(name: "ext: empty", raw: chunked + "5;\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 49)),
    AuditFixture(name: "ext: name not a token", raw: chunked + "5;=x\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 49)),
    AuditFixture(name: "ext: separator in name", raw: chunked + "5;a@b\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 50)),
    AuditFixture(name: "ext: two names without ;", raw: chunked + "5;a b\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 51)),
    AuditFixture(name: "ext: = without value", raw: chunked + "5;a=\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 51)),
    AuditFixture(name: "ext: two values", raw: chunked + "5;a=b c\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 53)),
    AuditFixture(name: "ext: = inside a token value", raw: chunked + "5;a=b=c\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 52)),
    AuditFixture(name: "ext: unterminated quoted string", raw: chunked + "5;a=\"x\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 53)),
    AuditFixture(name: "ext: bytes after a quoted string", raw: chunked + "5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 54)),
    AuditFixture(name: "ext: control character after backslash", raw: chunked + "5;a=\"\\\u{1}\"\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 53)),
    AuditFixture(name: "ext: DEL in quoted string", raw: chunked + "5;a=\"\u{7F}\"\r\nhello\r\n0\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 52)),
    AuditFixture(name: "ext: bad extension on the last chunk", raw: chunked + "0;a=\"\r\n\r\n", outcome: .rejected(.chunkExtension, offset: 52)),

    // MARK: Chunked framing overhead (picohttpparser's bound; RFC 9112 §7.1.1 "ought to limit")
    AuditFixture(name: "overhead: tiny chunks past a small bound", raw: chunked + tinyChunks(10, extensionLength: 10),
                 limits: ParserLimits(maxChunkedOverhead: 64), outcome: .rejected(.chunkedOverhead, offset: 115)),
    AuditFixture(name: "overhead: framing under three times the data is never limited", raw: chunked + String(repeating: "4;a\r\nabcd\r\n", count: 20) + "0\r\n\r\n",
                 limits: ParserLimits(maxChunkedOverhead: 8), outcome: .accepted(body: String(repeating: "abcd", count: 20))),
    AuditFixture(name: "overhead: within the bound", raw: chunked + tinyChunks(3, extensionLength: 10),
                 limits: ParserLimits(maxChunkedOverhead: 64), outcome: .accepted(body: "xxx")),
    // 966 chunks of 106 framing bytes fit in 100 KiB; the 5th framing byte of the 967th is the 102,401st.
    AuditFixture(name: "overhead: the default bound", raw: chunked + tinyChunks(1000, extensionLength: 100),
                 outcome: .rejected(.chunkedOverhead, offset: 47 + 966 * 107 + 4)),

    // MARK: 101 Switching Protocols (RFC 9110 §7.8, §15.2.2)
    AuditFixture(name: "101: to a request offering Upgrade", raw: switching + "frames", methods: [.options], outcome: .upgraded(rest: "frames")),
    AuditFixture(name: "101: after 100 Continue", raw: continueHead + switching + "frames", methods: [.options], outcome: .upgraded(rest: "frames")),
    AuditFixture(name: "101: after a pipelined response", raw: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + switching + "frames", methods: [.get, .options], outcome: .upgraded(rest: "frames")),
    AuditFixture(name: "101: unsolicited, to GET", raw: switching, outcome: .rejected(.unsolicitedUpgrade, offset: 0)),
    AuditFixture(name: "101: unsolicited, to HEAD", raw: switching, methods: [.head], outcome: .rejected(.unsolicitedUpgrade, offset: 0)),
    AuditFixture(name: "101: unsolicited, to CONNECT", raw: switching, methods: [.connect], outcome: .rejected(.unsolicitedUpgrade, offset: 0)),
    AuditFixture(name: "101: unsolicited, after 100 Continue", raw: continueHead + switching, methods: [.post], outcome: .rejected(.unsolicitedUpgrade, offset: 25)),
    AuditFixture(name: "101: without Upgrade", raw: "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n", methods: [.options], outcome: .rejected(.upgradeField, offset: 0)),
    AuditFixture(name: "101: empty Upgrade", raw: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: \r\n\r\n", methods: [.options], outcome: .rejected(.upgradeField, offset: 0)),

    // MARK: Interim responses (RFC 9110 §15.2)
    AuditFixture(name: "1xx: the default bound of 16 is accepted", raw: String(repeating: continueHead, count: 16) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", outcome: .accepted(body: "ok")),
    AuditFixture(name: "1xx: the 17th is refused", raw: String(repeating: continueHead, count: 17), outcome: .rejected(.tooManyInterimResponses, offset: 400)),
    AuditFixture(name: "1xx: CL + TE refused even without content (stricter)", raw: "HTTP/1.1 103 Early Hints\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                 outcome: .rejected(.contentLengthWithTransferEncoding, offset: nil)),
    AuditFixture(name: "1xx: Content-Length ignored, no content", raw: "HTTP/1.1 103 Early Hints\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", outcome: .accepted(body: "ok")),
    AuditFixture(name: "1xx: unknown 1xx treated as interim", raw: "HTTP/1.1 199 Whatever\r\nX: 1\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", outcome: .accepted(body: "ok")),

    // MARK: No content (RFC 9110 §15.3.5, §15.4.5; RFC 9112 §6.3 point 1)
    AuditFixture(name: "204: Transfer-Encoding ignored", raw: "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", methods: [.get, .get], outcome: .accepted(body: "ok")),
    AuditFixture(name: "304: Transfer-Encoding ignored", raw: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", methods: [.get, .get], outcome: .accepted(body: "ok")),
]

@Suite("RFC audit fixtures")
struct AuditFixtureTests {
    @Test("each audited requirement, at every split", arguments: auditFixtures)
    func audited(_ fixture: AuditFixture) {
        let (events, mismatch) = splitInvariantTranscript(Array(fixture.raw.utf8), methods: fixture.methods, limits: fixture.limits)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        switch fixture.outcome {
        case .accepted(let body):
            #expect(!events.contains { if case .error = $0 { true } else { false } }, "\(events)")
            guard case .end? = events.last else {
                Issue.record("does not end with a complete response: \(events)")
                return
            }
            let bytes = events.flatMap { event -> [UInt8] in if case .body(let b) = event { b } else { [] } }
            #expect(bytes == Array(body.utf8))
        case .upgraded(let rest):
            #expect(events.last == .upgraded(101, rest: Array(rest.utf8)), "\(events)")
        case .rejected(let rule, let offset):
            guard case .error(let actual, let at)? = events.last else {
                Issue.record("no error; events: \(events)")
                return
            }
            #expect(actual == rule)
            if let offset { #expect(at == offset) }
        }
    }
}
