import Testing
import Wire

/// A response stream read with relaxations, the events it must produce whatever the split, and
/// what the strict parser makes of the same bytes (so each row shows what the option changes).
struct OptionFixture: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: String
    var options: ResponseParsingOptions
    var methods: [RequestMethod] = [.get]
    var expected: [Recorded]
    /// The strict transcript's last event (the error that the option lifts), when it differs.
    var strictEnd: Recorded?
    /// The whole strict transcript, when it differs otherwise (raw rows: the body without framing).
    var strict: [Recorded]?
    var testDescription: String { name }
}

private let http09 = ResponseParsingOptions(allowsHTTP09: true)
private let ignoringLength = ResponseParsingOptions(ignoresContentLength: true)
private let raw = ResponseParsingOptions(keepsChunkedFraming: true)
/// The head of every HTTP/0.9 answer: no status (0), no reason, no fields, close-delimited.
private let head09 = Recorded.head(0, "", [], .untilClose, keepAlive: false)
private let closed = Recorded.end([], closeDelimited: true, keepAlive: false)

private let chunkedWithTrailer = "5;a=b\r\nhello\r\nA\r\n0123456789\r\n0\r\nDigest: abc\r\n\r\n"

let optionFixtures: [OptionFixture] = [
    // MARK: allowsHTTP09 (curl's --http0.9)
    // No status line: the whole stream is the body, until close.
    OptionFixture(name: "0.9: text", raw: "hello there\n", options: http09,
                  expected: [head09, .body(Array("hello there\n".utf8)), closed], strictEnd: .error(.version, offset: 0)),
    // The verdict needs one differing byte among the first five: `HTTX` is 0.9 at its fourth.
    OptionFixture(name: "0.9: near miss of HTTP/", raw: "HTTX/1.1 200 OK\r\n\r\n", options: http09,
                  expected: [head09, .body(Array("HTTX/1.1 200 OK\r\n\r\n".utf8)), closed], strictEnd: .error(.version, offset: 3)),
    // Binary bytes and an empty line first.
    OptionFixture(name: "0.9: starts with CRLF", raw: "\r\nbody\u{0}", options: http09,
                  expected: [head09, .body(Array("\r\nbody\u{0}".utf8)), closed], strictEnd: .error(.version, offset: 0)),
    // `http/` in lower case is HTTP/1.x to curl's check, so not 0.9: the strict parser judges it.
    OptionFixture(name: "0.9: lower-case http/ is not 0.9", raw: "http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", options: http09,
                  expected: [.error(.version, offset: 0)]),
    // A real status line is read as always.
    OptionFixture(name: "0.9: HTTP/1.1 unchanged", raw: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", options: http09, expected: [
        .head(200, "OK", fields("Content-Length", "2"), .contentLength(2), keepAlive: true), .body(Array("ok".utf8)),
        .end([], closeDelimited: false, keepAlive: true),
    ]),
    // A matching prefix shorter than five bytes, then the close: no response came.
    OptionFixture(name: "0.9: HTT then close", raw: "HTT", options: http09,
                  expected: [.error(.closedBeforeResponse, offset: nil)], strictEnd: .error(.truncatedHead, offset: 0)),
    // The second response on a kept-alive connection may be 0.9 too (curl checks every head).
    OptionFixture(name: "0.9: after a keep-alive response", raw: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxjunk", options: http09,
                  methods: [.get, .get], expected: [
                      .head(200, "OK", fields("Content-Length", "1"), .contentLength(1), keepAlive: true), .body([0x78]),
                      .end([], closeDelimited: false, keepAlive: true), head09, .body(Array("junk".utf8)), closed,
                  ], strictEnd: .error(.version, offset: 39)),

    // MARK: ignoresContentLength (curl's --ignore-content-length)
    // The length is not read: the body runs to the close.
    OptionFixture(name: "ignore CL: body to the close", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello and more", options: ignoringLength, expected: [
        .head(200, "OK", fields("Content-Length", "5"), .untilClose, keepAlive: false), .body(Array("hello and more".utf8)), closed,
    ], strictEnd: .error(.unsolicitedData, offset: 43)),
    // Not even checked: an invalid or conflicting value frames nothing.
    OptionFixture(name: "ignore CL: invalid value", raw: "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nbody", options: ignoringLength, expected: [
        .head(200, "OK", fields("Content-Length", "abc"), .untilClose, keepAlive: false), .body(Array("body".utf8)), closed,
    ], strictEnd: .error(.contentLength, offset: 33)),
    OptionFixture(name: "ignore CL: differing values", raw: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nabc", options: ignoringLength, expected: [
        .head(200, "OK", fields("Content-Length", "1", "Content-Length", "2"), .untilClose, keepAlive: false), .body(Array("abc".utf8)), closed,
    ], strictEnd: .error(.contentLengthMismatch, offset: 52)),
    // Chunked still frames the body; the connection that also carried a length is not reused.
    OptionFixture(name: "ignore CL: chunked wins, no keep-alive", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                  options: ignoringLength, expected: [
                      .head(200, "OK", fields("Content-Length", "5", "Transfer-Encoding", "chunked"), .chunked, keepAlive: false),
                      .body(Array("abc".utf8)), .end([], closeDelimited: false, keepAlive: false),
                  ], strictEnd: .error(.contentLengthWithTransferEncoding, offset: 36)),
    // Chunked alone keeps the connection as ever.
    OptionFixture(name: "ignore CL: chunked alone", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", options: ignoringLength, expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .body([0x78]),
        .end([], closeDelimited: false, keepAlive: true),
    ]),
    // Bodiless answers stay bodiless.
    OptionFixture(name: "ignore CL: HEAD and 204", raw: "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
                  options: ignoringLength, methods: [.head, .get], expected: [
                      .head(200, "OK", fields("Content-Length", "9"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
                      .head(204, "No Content", fields("Content-Length", "9"), .none, keepAlive: true), .end([], closeDelimited: false, keepAlive: true),
                  ]),

    // MARK: keepsChunkedFraming (curl's --raw)
    // Size lines, extensions, CRLFs, the last chunk and the trailers are all body; no trailers at the end.
    OptionFixture(name: "raw: chunked with trailers", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedWithTrailer, options: raw, expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .body(Array(chunkedWithTrailer.utf8)),
        .end([], closeDelimited: false, keepAlive: true),
    ], strict: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .body(Array("hello0123456789".utf8)),
        .end(fields("Digest", "abc"), closeDelimited: false, keepAlive: true),
    ]),
    // The framing still ends the response: the next one on the connection parses.
    OptionFixture(name: "raw: pipelined", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nab\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nc",
                  options: raw, methods: [.get, .get], expected: [
                      .head(200, "OK", fields("Transfer-Encoding", "gzip, chunked"), .chunked, keepAlive: true), .body(Array("2\r\nab\r\n0\r\n\r\n".utf8)),
                      .end([], closeDelimited: false, keepAlive: true),
                      .head(200, "OK", fields("Content-Length", "1"), .contentLength(1), keepAlive: true), .body([0x63]),
                      .end([], closeDelimited: false, keepAlive: true),
                  ], strict: [
                      .head(200, "OK", fields("Transfer-Encoding", "gzip, chunked"), .chunked, keepAlive: true), .body(Array("ab".utf8)),
                      .end([], closeDelimited: false, keepAlive: true),
                      .head(200, "OK", fields("Content-Length", "1"), .contentLength(1), keepAlive: true), .body([0x63]),
                      .end([], closeDelimited: false, keepAlive: true),
                  ]),
    // Broken framing is refused exactly as without the option (same rule, same offset). How
    // much of the raw body came before the error depends on the split (a CRLF is consumed when
    // it arrives alone): the tests compare those transcripts without their body events.
    OptionFixture(name: "raw: bad chunk size", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\nzz\r\n", options: raw, expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .error(.chunkSize, offset: 54),
    ], strictEnd: .error(.chunkSize, offset: 54)),
    OptionFixture(name: "raw: truncated", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", options: raw, expected: [
        .head(200, "OK", fields("Transfer-Encoding", "chunked"), .chunked, keepAlive: true), .error(.truncatedBody, offset: 52),
    ], strictEnd: .error(.truncatedBody, offset: 52)),
    // A Content-Length body has no framing to keep.
    OptionFixture(name: "raw: content-length unchanged", raw: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", options: raw, expected: [
        .head(200, "OK", fields("Content-Length", "3"), .contentLength(3), keepAlive: true), .body(Array("abc".utf8)),
        .end([], closeDelimited: false, keepAlive: true),
    ]),
]

@Suite("Response parsing options")
struct ParsingOptionsFixtureTests {
    @Test("each relaxation, every split", arguments: optionFixtures)
    func relaxed(_ fixture: OptionFixture) {
        let bytes = Array(fixture.raw.utf8)
        let whole = Self.comparable(transcript([bytes], methods: fixture.methods, eof: true, options: fixture.options))
        #expect(whole == fixture.expected)
        var splits: [[[UInt8]]] = [Splits.byteByByte(bytes)] + (0...bytes.count).map { Splits.at($0, bytes) }
        splits += (1...8).map { Splits.random(bytes, seed: UInt64($0)) }
        for pieces in splits {
            let split = Self.comparable(transcript(pieces, methods: fixture.methods, eof: true, options: fixture.options))
            #expect(split == whole, "split \(pieces.map(\.count))")
        }
    }

    /// A transcript as compared: one that ends in an error keeps no body events (under
    /// `keepsChunkedFraming` how much framing was delivered before the error depends on the split).
    static func comparable(_ events: [Recorded]) -> [Recorded] {
        guard case .error? = events.last else { return events }
        return events.filter { if case .body = $0 { false } else { true } }
    }

    @Test("the strict parser (the default) reads the same bytes as before", arguments: optionFixtures)
    func strictDefault(_ fixture: OptionFixture) {
        let strict = transcript([Array(fixture.raw.utf8)], methods: fixture.methods, eof: true)
        if let strictEnd = fixture.strictEnd {
            #expect(strict.last == strictEnd, "\(strict)")
        } else if let expected = fixture.strict {
            #expect(strict == expected)
        } else {
            #expect(strict == fixture.expected)
        }
    }

    @Test("options apply to their own response only")
    func perResponse() {
        // The first request allows HTTP/0.9, the second does not: its 0.9 answer is refused.
        var parser = ResponseParser()
        parser.expectResponse(to: .get, options: ResponseParsingOptions(allowsHTTP09: true, ignoresContentLength: true))
        parser.expectResponse(to: .get)
        let bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nnot http".utf8)
        var events: [String] = []
        var failure: WireError?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while true {
                do throws(WireError) {
                    let step = try parser.parse(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                    offset += step.consumed
                    switch step.event {
                    case .needMoreData: return
                    case .head(let head): events.append("head \(head.status)")
                    case .end: events.append("end")
                    default: events.append("other")
                    }
                } catch {
                    failure = error
                    return
                }
            }
        }
        #expect(events == ["head 200", "end"])
        #expect(failure?.rule == .version)
    }

    @Test("strict is the default and relaxes nothing")
    func strictIsDefault() {
        #expect(ResponseParsingOptions() == .strict)
        #expect(!ResponseParsingOptions.strict.allowsHTTP09 && !ResponseParsingOptions.strict.ignoresContentLength
            && !ResponseParsingOptions.strict.keepsChunkedFraming)
    }
}
