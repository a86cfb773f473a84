import Testing
import Wire

@Suite("Request serializer")
struct RequestSerializerTests {
    @Test("writes the request line, Host first, fields in order, then framing")
    func layout() throws {
        let head = RequestHead(
            method: .post, target: "/anything?a=1", authority: "example.com:8080",
            fields: [("User-Agent", "Lariat"), ("X-Dup", "1"), ("x-dup", "2")],
            framing: .contentLength(11), expectContinue: true
        )
        let text = String(decoding: try RequestSerializer.serialize(head), as: UTF8.self)
        #expect(text == "POST /anything?a=1 HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: Lariat\r\nX-Dup: 1\r\nx-dup: 2\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
    }

    @Test("framing variants", arguments: [
        (RequestFraming.none, ""),
        (.contentLength(0), "Content-Length: 0\r\n"),
        (.contentLength(1_234_567_890_123), "Content-Length: 1234567890123\r\n"),
        (.chunked, "Transfer-Encoding: chunked\r\n"),
    ])
    func framing(_ framing: RequestFraming, _ expected: String) throws {
        let bytes = try RequestSerializer.serialize(RequestHead(method: .get, target: "/", authority: "h", framing: framing))
        #expect(String(decoding: bytes, as: UTF8.self) == "GET / HTTP/1.1\r\nHost: h\r\n" + expected + "\r\n")
    }

    @Test("HTTP/1.0 request line (curl's --http1.0); heads differing only in it differ")
    func http10() throws {
        var head = RequestHead(method: .get, target: "*", authority: "h")
        head.isHTTP10 = true
        #expect(String(decoding: try RequestSerializer.serialize(head), as: UTF8.self) == "GET * HTTP/1.0\r\nHost: h\r\n\r\n")
        #expect(head != RequestHead(method: .get, target: "*", authority: "h"))
    }

    /// Header injection and malformed components: each refused with its rule.
    static let rejected: [(String, RequestHead, WireError.Rule)] = [
        ("CRLF in value", RequestHead(method: .get, target: "/", authority: "h", fields: [("X", "a\r\nInjected: 1")]), .requestFieldValue),
        ("LF in value", RequestHead(method: .get, target: "/", authority: "h", fields: [("X", "a\nb")]), .requestFieldValue),
        ("CR in value", RequestHead(method: .get, target: "/", authority: "h", fields: [("X", "a\rb")]), .requestFieldValue),
        ("NUL in value", RequestHead(method: .get, target: "/", authority: "h", fields: [("X", "a\u{0}b")]), .requestFieldValue),
        ("DEL in value", RequestHead(method: .get, target: "/", authority: "h", fields: [("X", "a\u{7F}")]), .requestFieldValue),
        ("CRLF in name", RequestHead(method: .get, target: "/", authority: "h", fields: [("X\r\nY", "1")]), .requestFieldName),
        ("colon in name", RequestHead(method: .get, target: "/", authority: "h", fields: [("X:Y", "1")]), .requestFieldName),
        ("space in name", RequestHead(method: .get, target: "/", authority: "h", fields: [("X Y", "1")]), .requestFieldName),
        ("empty name", RequestHead(method: .get, target: "/", authority: "h", fields: [("", "1")]), .requestFieldName),
        ("CRLF in target", RequestHead(method: .get, target: "/a\r\nX: 1", authority: "h"), .requestTarget),
        ("space in target", RequestHead(method: .get, target: "/a b", authority: "h"), .requestTarget),
        ("NUL in target", RequestHead(method: .get, target: "/a\u{0}", authority: "h"), .requestTarget),
        ("non-ASCII target", RequestHead(method: .get, target: "/caf\u{E9}", authority: "h"), .requestTarget),
        ("empty target", RequestHead(method: .get, target: "", authority: "h"), .requestTarget),
        ("CRLF in method", RequestHead(method: RequestMethod("GET\r\n"), target: "/", authority: "h"), .requestMethod),
        ("space in method", RequestHead(method: RequestMethod("GET /x"), target: "/", authority: "h"), .requestMethod),
        ("empty method", RequestHead(method: RequestMethod(""), target: "/", authority: "h"), .requestMethod),
        ("CRLF in Host", RequestHead(method: .get, target: "/", authority: "h\r\nX: 1"), .requestFieldValue),
        ("caller Content-Length", RequestHead(method: .post, target: "/", authority: "h", fields: [("content-length", "5")]), .requestFramingField),
        ("caller Transfer-Encoding", RequestHead(method: .post, target: "/", authority: "h", fields: [("Transfer-Encoding", "chunked")]), .requestFramingField),
        ("caller Host", RequestHead(method: .get, target: "/", authority: "h", fields: [("HOST", "evil")]), .requestFramingField),
        ("negative length", RequestHead(method: .post, target: "/", authority: "h", framing: .contentLength(-1)), .requestFramingField),
    ]

    @Test("refuses injection and malformed components", arguments: rejected)
    func refuses(_ label: String, _ head: RequestHead, _ rule: WireError.Rule) {
        var buffer: [UInt8] = [1, 2, 3]
        let error = #expect(throws: WireError.self, "\(label)") { try RequestSerializer.serialize(head, into: &buffer) }
        #expect(error?.rule == rule, "\(label)")
        #expect(buffer == [1, 2, 3], "buffer untouched on error")
    }

    @Test("every control byte except HTAB is refused in values; every other byte accepted", arguments: 0...255)
    func valueByteSweep(_ byte: Int) {
        let value = String(decoding: [0x61, UInt8(byte), 0x62], as: UTF8.self)
        let head = RequestHead(method: .get, target: "/", authority: "h", fields: [("X", value)])
        let isControl = (byte < 0x20 && byte != 0x09) || byte == 0x7F
        let result = Result { () throws(WireError) in try RequestSerializer.serialize(head) }
        if isControl {
            #expect(throws: WireError.self) { try result.get() }
        } else {
            #expect(throws: Never.self) { try result.get() }
        }
    }

    @Test("chunk headers are lowercase hex with CRLF", arguments: [(1, "1"), (15, "f"), (16, "10"), (16_384, "4000"), (Int.max, "7fffffffffffffff")])
    func chunkHeader(_ size: Int, _ hex: String) {
        #expect(RequestSerializer.chunkHeader(size: size).bytes == Array((hex + "\r\n").utf8))
    }

    @Test("a serialized chunked body parses back as the same bytes")
    func chunkedRoundTrip() throws {
        var body: [UInt8] = []
        for piece in ["hello", String(repeating: "x", count: 300), "!"] {
            body += RequestSerializer.chunkHeader(size: piece.utf8.count).bytes + Array(piece.utf8) + RequestSerializer.chunkTrailer
        }
        body += RequestSerializer.lastChunk
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + body
        let (events, mismatch) = splitInvariantTranscript(response, methods: [.get])
        #expect(mismatch == nil)
        #expect(events.contains(.body(Array(("hello" + String(repeating: "x", count: 300) + "!").utf8))))
    }
}
