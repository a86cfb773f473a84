import Testing
import Wire

/// A stream that must fail with `rule` (at `offset` when given), whatever the split.
struct Malformed: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: String
    var rule: WireError.Rule
    var offset: Int? = nil
    var methods: [RequestMethod] = [.get]
    var limits: ParserLimits = .default
    var testDescription: String { name }
}

private let ok = "HTTP/1.1 200 OK\r\n"

/// Attacks and malformed responses. Each is also checked at every split.
let malformedFixtures: [Malformed] = [
    // MARK: Framing and smuggling (RFC 9112 §6)
    Malformed(name: "CL + TE", raw: ok + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", rule: .contentLengthWithTransferEncoding, offset: 36),
    Malformed(name: "TE + CL", raw: ok + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", rule: .contentLengthWithTransferEncoding),
    Malformed(name: "CL + TE on HEAD too", raw: ok + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", rule: .contentLengthWithTransferEncoding, methods: [.head]),
    Malformed(name: "duplicate differing CL", raw: ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", rule: .contentLengthMismatch),
    Malformed(name: "CL list differing", raw: ok + "Content-Length: 5, 6\r\n\r\nhello!", rule: .contentLengthMismatch),
    Malformed(name: "negative CL", raw: ok + "Content-Length: -1\r\n\r\n", rule: .contentLength, offset: 33),
    Malformed(name: "plus-signed CL", raw: ok + "Content-Length: +5\r\n\r\nhello", rule: .contentLength),
    Malformed(name: "huge CL", raw: ok + "Content-Length: 99999999999999999999\r\n\r\n", rule: .contentLength),
    Malformed(name: "hex CL", raw: ok + "Content-Length: 0x10\r\n\r\n", rule: .contentLength),
    Malformed(name: "empty CL", raw: ok + "Content-Length: \r\n\r\n", rule: .contentLength),
    Malformed(name: "CL with empty list element", raw: ok + "Content-Length: 5,\r\n\r\nhello", rule: .contentLength),
    Malformed(name: "CL with inner space", raw: ok + "Content-Length: 1 2\r\n\r\n", rule: .contentLength),
    Malformed(name: "folded CL", raw: ok + "Content-Length:\r\n 5\r\n\r\nhello", rule: .foldedFramingField),
    Malformed(name: "folded TE", raw: ok + "Transfer-Encoding: gzip,\r\n chunked\r\n\r\n", rule: .foldedFramingField),
    Malformed(name: "chunked twice", raw: ok + "Transfer-Encoding: chunked, chunked\r\n\r\n", rule: .transferEncoding),
    Malformed(name: "coding after chunked across fields", raw: ok + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", rule: .transferEncoding),
    Malformed(name: "chunked with parameter", raw: ok + "Transfer-Encoding: chunked;q=1\r\n\r\n", rule: .transferEncoding),
    Malformed(name: "empty TE", raw: ok + "Transfer-Encoding: \r\n\r\n", rule: .transferEncoding),
    Malformed(name: "TE in HTTP/1.0", raw: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", rule: .transferEncoding),
    Malformed(name: "TE with non-token", raw: ok + "Transfer-Encoding: \"chunked\"\r\n\r\n", rule: .transferEncoding),

    // MARK: Chunked body (RFC 9112 §7.1)
    Malformed(name: "chunk size overflow", raw: ok + "Transfer-Encoding: chunked\r\n\r\n8000000000000000\r\n", rule: .chunkSize),
    Malformed(name: "chunk size too many digits", raw: ok + "Transfer-Encoding: chunked\r\n\r\n00000000000000001\r\n", rule: .chunkSizeTooLong),
    Malformed(name: "chunk size missing", raw: ok + "Transfer-Encoding: chunked\r\n\r\n\r\nabc", rule: .chunkSize),
    Malformed(name: "chunk size negative", raw: ok + "Transfer-Encoding: chunked\r\n\r\n-1\r\n", rule: .chunkSize),
    Malformed(name: "chunk size 0x prefix", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", rule: .chunkSize),
    Malformed(name: "chunk size bare LF", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", rule: .bareLF),
    Malformed(name: "chunk size bare CR", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\rhello\r\n0\r\n\r\n", rule: .bareCR),
    Malformed(name: "chunk data not followed by CRLF", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", rule: .chunkTerminator),
    Malformed(name: "chunk data followed by LF only", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n", rule: .chunkTerminator),
    Malformed(name: "chunk data CR then junk", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\rX0\r\n\r\n", rule: .chunkTerminator),
    Malformed(name: "chunk extension with NUL", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5;a=\u{0}\r\nhello\r\n0\r\n\r\n", rule: .chunkExtension),
    Malformed(name: "chunk extension with bare LF", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5;a\nhello\r\n0\r\n\r\n", rule: .bareLF),
    Malformed(name: "chunk extension too long", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "a", count: 40) + "\r\nhello\r\n0\r\n\r\n", rule: .chunkExtensionTooLong, limits: ParserLimits(maxChunkExtensionLength: 32)),
    Malformed(name: "junk after chunk size", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5 x\r\nhello\r\n0\r\n\r\n", rule: .chunkSize),
    Malformed(name: "trailer with space in name", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nBad Name: x\r\n\r\n", rule: .fieldName),
    Malformed(name: "trailer with space before colon", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nX-T : x\r\n\r\n", rule: .whitespaceBeforeColon),
    Malformed(name: "trailer with NUL", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nX: a\u{0}\r\n\r\n", rule: .fieldValue),
    Malformed(name: "trailers too large", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n", rule: .trailerSectionTooLarge, limits: ParserLimits(maxTrailerSectionSize: 64)),

    // MARK: Truncation: never a short success
    Malformed(name: "truncated content-length body", raw: ok + "Content-Length: 10\r\n\r\nhello", rule: .truncatedBody),
    Malformed(name: "truncated chunked body", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhel", rule: .truncatedBody),
    Malformed(name: "chunked without last chunk", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", rule: .truncatedBody),
    Malformed(name: "chunked without final CRLF", raw: ok + "Transfer-Encoding: chunked\r\n\r\n0\r\n", rule: .truncatedBody),
    Malformed(name: "truncated head", raw: ok + "Content-Len", rule: .truncatedHead),
    Malformed(name: "closed before response", raw: "", rule: .closedBeforeResponse),
    Malformed(name: "closed before second response", raw: ok + "Content-Length: 0\r\n\r\n", rule: .closedBeforeResponse, methods: [.get, .get]),
    Malformed(name: "closed after interim only", raw: "HTTP/1.1 100 Continue\r\n\r\n", rule: .closedBeforeResponse, methods: [.post]),
    Malformed(name: "unsolicited bytes", raw: ok + "Content-Length: 0\r\n\r\nX", rule: .unsolicitedData, offset: 38),
    Malformed(name: "bytes after Connection: close", raw: ok + "Connection: close\r\nContent-Length: 0\r\n\r\n" + ok + "\r\n", rule: .unsolicitedData, methods: [.get, .get]),
    Malformed(name: "pipelined request lost to Connection: close", raw: ok + "Connection: close\r\nContent-Length: 0\r\n\r\n", rule: .closedBeforeResponse, methods: [.get, .get]),

    // MARK: Status line (RFC 9112 §4)
    Malformed(name: "not HTTP", raw: "HTTZ/1.1 200 OK\r\n\r\n", rule: .version, offset: 3),
    Malformed(name: "lower-case http", raw: "http/1.1 200 OK\r\n\r\n", rule: .version, offset: 0),
    Malformed(name: "TLS alert bytes", raw: "\u{15}\u{03}\u{03}\u{00}\u{02}\u{02}\u{46}", rule: .version, offset: 0),
    Malformed(name: "HTTP/2.0", raw: "HTTP/2.0 200 OK\r\n\r\n", rule: .unsupportedVersion),
    Malformed(name: "HTTP/0.9 style", raw: "HTTP/0.9 200 OK\r\n\r\n", rule: .unsupportedVersion),
    Malformed(name: "version without minor", raw: "HTTP/1 200 OK\r\n\r\n", rule: .version),
    Malformed(name: "version two-digit minor", raw: "HTTP/1.10 200 OK\r\n\r\n", rule: .statusLine),
    Malformed(name: "two-digit status", raw: "HTTP/1.1 20 OK\r\n\r\n", rule: .statusCode),
    Malformed(name: "four-digit status", raw: "HTTP/1.1 2000 OK\r\n\r\n", rule: .statusCode),
    Malformed(name: "status with letter", raw: "HTTP/1.1 2O0 OK\r\n\r\n", rule: .statusCode),
    Malformed(name: "status below 100", raw: "HTTP/1.1 099 Odd\r\n\r\n", rule: .statusCode),
    Malformed(name: "missing status", raw: "HTTP/1.1\r\n\r\n", rule: .statusLine),
    Malformed(name: "double space", raw: "HTTP/1.1  200 OK\r\n\r\n", rule: .statusCode),
    Malformed(name: "tab separator", raw: "HTTP/1.1\t200 OK\r\n\r\n", rule: .statusLine),
    Malformed(name: "reason with NUL", raw: "HTTP/1.1 200 O\u{0}K\r\n\r\n", rule: .reasonPhrase),
    Malformed(name: "reason with bare CR", raw: "HTTP/1.1 200 O\rK\r\n\r\n", rule: .bareCR),
    Malformed(name: "status line bare LF", raw: "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", rule: .bareLF, offset: 15),
    Malformed(name: "empty line before status", raw: "\r\nHTTP/1.1 200 OK\r\n\r\n", rule: .version, offset: 0),

    // MARK: Fields (RFC 9112 §5, RFC 9110 §5)
    Malformed(name: "space before colon", raw: ok + "Content-Length : 0\r\n\r\n", rule: .whitespaceBeforeColon, offset: 31),
    Malformed(name: "tab before colon", raw: ok + "X\t: 0\r\n\r\n", rule: .whitespaceBeforeColon),
    Malformed(name: "space inside name", raw: ok + "Content Length: 0\r\n\r\n", rule: .fieldName),
    Malformed(name: "empty name", raw: ok + ": x\r\n\r\n", rule: .fieldName),
    Malformed(name: "non-token in name", raw: ok + "X(y): 1\r\n\r\n", rule: .fieldName),
    Malformed(name: "non-ASCII in name", raw: ok + "X\u{00E9}: 1\r\n\r\n", rule: .fieldName),
    Malformed(name: "no colon", raw: ok + "NoColon\r\n\r\n", rule: .missingColon),
    Malformed(name: "NUL in value", raw: ok + "X: a\u{0}b\r\n\r\n", rule: .fieldValue, offset: 21),
    Malformed(name: "bare CR in value", raw: ok + "X: a\rb\r\n\r\n", rule: .bareCR, offset: 21),
    Malformed(name: "bare CR before CRLF", raw: ok + "X: a\r\r\n\r\n", rule: .bareCR),
    Malformed(name: "DEL in value", raw: ok + "X: a\u{7F}\r\n\r\n", rule: .fieldValue),
    Malformed(name: "ESC in value", raw: ok + "X: \u{1B}[31m\r\n\r\n", rule: .fieldValue),
    Malformed(name: "bare LF between fields", raw: ok + "X: 1\nY: 2\r\n\r\n", rule: .bareLF),
    Malformed(name: "bare LF end of head", raw: ok + "X: 1\r\n\n", rule: .bareLF),
    Malformed(name: "whitespace before first field", raw: ok + " X: 1\r\n\r\n", rule: .leadingWhitespace),
    Malformed(name: "bare CR in name", raw: ok + "X\rY: 1\r\n\r\n", rule: .bareCR),

    // MARK: Limits
    Malformed(name: "status line too long", raw: "HTTP/1.1 200 " + String(repeating: "O", count: 100) + "\r\n\r\n", rule: .statusLineTooLong, offset: 64, limits: ParserLimits(maxStatusLineLength: 64)),
    Malformed(name: "header section too large", raw: ok + "X: " + String(repeating: "a", count: 200) + "\r\n\r\n", rule: .headerSectionTooLarge, offset: 128, limits: ParserLimits(maxHeaderSectionSize: 128)),
    Malformed(name: "status line past a smaller section limit", raw: "HTTP/1.1 200 " + String(repeating: "O", count: 100) + "\r\n\r\n", rule: .headerSectionTooLarge, offset: 32, limits: ParserLimits(maxStatusLineLength: 64, maxHeaderSectionSize: 32)),
    Malformed(name: "header section never ends", raw: ok + String(repeating: "X: 1\r\n", count: 40), rule: .headerSectionTooLarge, limits: ParserLimits(maxHeaderSectionSize: 128)),
    Malformed(name: "too many fields", raw: ok + String(repeating: "X: 1\r\n", count: 9) + "\r\n", rule: .tooManyFields, limits: ParserLimits(maxFieldCount: 8)),
    Malformed(name: "too many interim responses", raw: String(repeating: "HTTP/1.1 103 Early Hints\r\n\r\n", count: 5), rule: .tooManyInterimResponses, limits: ParserLimits(maxInterimResponses: 4)),
]

@Suite("Malformed responses")
struct MalformedFixtureTests {
    @Test("each is rejected with its rule, at every split", arguments: malformedFixtures)
    func rejected(_ fixture: Malformed) {
        let (events, mismatch) = splitInvariantTranscript(Array(fixture.raw.utf8), methods: fixture.methods, limits: fixture.limits)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        guard case .error(let rule, let offset)? = events.last else {
            Issue.record("no error; events: \(events)")
            return
        }
        #expect(rule == fixture.rule)
        if let expected = fixture.offset { #expect(offset == expected) }
    }

    @Test("a failed parser stays failed")
    func staysFailed() throws {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        let bad = Array("HTTP/1.1 200 OK\r\nX : 1\r\n\r\n".utf8)
        let first = #expect(throws: WireError.self) { try bad.withUnsafeBytes { _ = try parser.parse($0) } }
        let again = #expect(throws: WireError.self) { try bad.withUnsafeBytes { _ = try parser.parse($0) } }
        #expect(first == again)
        #expect(throws: WireError.self) { _ = try parser.finish() }
    }
}
