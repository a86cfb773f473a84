import Testing
import Wire

/// A stream and the transcript it must give, whatever the split.
struct WSFixture: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: [UInt8]
    var expected: [WSRecorded]
    var setup = WSSetup()
    var testDescription: String { name }
}

/// A stream that must fail with `code` at `offset`, whatever the split.
struct WSMalformed: CustomTestStringConvertible, Sendable {
    var name: String
    var raw: [UInt8]
    var code: WebSocketError.Code
    var offset: Int?
    var setup = WSSetup()
    var testDescription: String { name }
}


private let rfcMask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
private let server = WSSetup(role: .server)
private let deflate = WSSetup(compression: true)
private let big = [UInt8](repeating: 0x5A, count: 65_536)

let wsFixtures: [WSFixture] = [
    // MARK: RFC 6455 §5.7 examples
    WSFixture(name: "RFC: single unmasked text", raw: hexBytes("81 05 48 65 6c 6c 6f"), expected: [.start(.text, compressed: false), utf8Data("Hello"), .end]),
    WSFixture(name: "RFC: fragmented unmasked text", raw: hexBytes("01 03 48 65 6c 80 02 6c 6f"), expected: [.start(.text, compressed: false), utf8Data("Hello"), .end]),
    WSFixture(name: "RFC: unmasked ping", raw: hexBytes("89 05 48 65 6c 6c 6f"), expected: [.ping(Array("Hello".utf8))]),
    WSFixture(name: "RFC: masked pong (server)", raw: hexBytes("8a 85 37 fa 21 3d 7f 9f 4d 51 58"), expected: [.pong(Array("Hello".utf8))], setup: server),
    WSFixture(name: "RFC: masked text (server)", raw: hexBytes("81 85 37 fa 21 3d 7f 9f 4d 51 58"), expected: [.start(.text, compressed: false), utf8Data("Hello"), .end], setup: server),
    WSFixture(name: "RFC: 256 bytes binary, 16-bit length", raw: RawFrame.make(0x2, [UInt8](repeating: 7, count: 256)), expected: [.start(.binary, compressed: false), .data([UInt8](repeating: 7, count: 256)), .end]),
    WSFixture(name: "RFC: 64 KiB binary, 64-bit length", raw: RawFrame.make(0x2, big), expected: [.start(.binary, compressed: false), .data(big), .end]),

    // MARK: Length boundaries (RFC 6455 §5.2)
    WSFixture(name: "empty text", raw: hexBytes("81 00"), expected: [.start(.text, compressed: false), .end]),
    WSFixture(name: "empty binary", raw: hexBytes("82 00"), expected: [.start(.binary, compressed: false), .end]),
    WSFixture(name: "125 bytes: 7-bit", raw: RawFrame.make(0x2, [UInt8](repeating: 1, count: 125)), expected: [.start(.binary, compressed: false), .data([UInt8](repeating: 1, count: 125)), .end]),
    WSFixture(name: "126 bytes: 16-bit", raw: RawFrame.make(0x2, [UInt8](repeating: 2, count: 126)), expected: [.start(.binary, compressed: false), .data([UInt8](repeating: 2, count: 126)), .end]),
    WSFixture(name: "65535 bytes: 16-bit", raw: RawFrame.make(0x2, [UInt8](repeating: 3, count: 65_535)), expected: [.start(.binary, compressed: false), .data([UInt8](repeating: 3, count: 65_535)), .end]),
    WSFixture(name: "message exactly at the limit", raw: RawFrame.make(0x2, [1, 2, 3], fin: false) + RawFrame.make(0x0, [4, 5]), expected: [.start(.binary, compressed: false), .data([1, 2, 3, 4, 5]), .end], setup: WSSetup(limits: WebSocketLimits(maxFramePayloadSize: 3, maxMessageSize: 5))),

    // MARK: Fragmentation and interleaved control frames (RFC 6455 §5.4)
    WSFixture(name: "ping between fragments", raw: RawFrame.text("Hel", fin: false) + hexBytes("89 00") + RawFrame.cont("lo"), expected: [.start(.text, compressed: false), utf8Data("Hel"), .ping([]), utf8Data("lo"), .end]),
    WSFixture(name: "pong and ping between fragments", raw: RawFrame.make(0x2, [1], fin: false) + hexBytes("8a 01 09") + RawFrame.make(0x0, [2], fin: false) + hexBytes("89 01 0a") + RawFrame.make(0x0, [3]), expected: [.start(.binary, compressed: false), .data([1]), .pong([9]), .data([2]), .ping([10]), .data([3]), .end]),
    WSFixture(name: "empty middle and last fragments", raw: RawFrame.text("a", fin: false) + RawFrame.cont("", fin: false) + RawFrame.cont("b", fin: false) + RawFrame.cont(""), expected: [.start(.text, compressed: false), utf8Data("ab"), .end]),
    WSFixture(name: "empty first fragment", raw: RawFrame.text("", fin: false) + RawFrame.cont("x"), expected: [.start(.text, compressed: false), utf8Data("x"), .end]),
    WSFixture(name: "UTF-8 character split across fragments", raw: [0x01, 0x03, 0x61, 0xCE, 0xBA] + [0x00, 0x02, 0xE1, 0xBD] + [0x80, 0x01, 0xB9], expected: [.start(.text, compressed: false), utf8Data("aκό"), .end]),
    WSFixture(name: "two messages back to back", raw: RawFrame.text("one") + RawFrame.make(0x2, [2]), expected: [.start(.text, compressed: false), utf8Data("one"), .end, .start(.binary, compressed: false), .data([2]), .end]),
    WSFixture(name: "ping of 125 bytes", raw: RawFrame.make(0x9, [UInt8](repeating: 0x70, count: 125)), expected: [.ping([UInt8](repeating: 0x70, count: 125))]),
    WSFixture(name: "empty pong", raw: hexBytes("8a 00"), expected: [.pong([])]),

    // MARK: UTF-8 (RFC 3629) edges that are valid
    WSFixture(name: "U+FFFF and U+10FFFF", raw: RawFrame.make(0x1, [0xEF, 0xBF, 0xBF, 0xF4, 0x8F, 0xBF, 0xBF]), expected: [.start(.text, compressed: false), .data([0xEF, 0xBF, 0xBF, 0xF4, 0x8F, 0xBF, 0xBF]), .end]),
    WSFixture(name: "U+D7FF and U+E000 around the surrogates", raw: RawFrame.make(0x1, [0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80]), expected: [.start(.text, compressed: false), .data([0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80]), .end]),
    WSFixture(name: "long ASCII run then a 4-byte character", raw: RawFrame.text(String(repeating: "abcdefgh", count: 20) + "𝄞"), expected: [.start(.text, compressed: false), utf8Data(String(repeating: "abcdefgh", count: 20) + "𝄞"), .end]),
    WSFixture(name: "binary is not UTF-8 checked", raw: RawFrame.make(0x2, [0xFF, 0xC0]), expected: [.start(.binary, compressed: false), .data([0xFF, 0xC0]), .end]),

    // MARK: Close (RFC 6455 §5.5.1, §7.4)
    WSFixture(name: "close without body", raw: hexBytes("88 00"), expected: [.close(nil, "")]),
    WSFixture(name: "close 1000 with reason", raw: RawFrame.close(1000, "bye ✓"), expected: [.close(1000, "bye ✓")]),
    WSFixture(name: "close 3000", raw: RawFrame.close(3000), expected: [.close(3000, "")]),
    WSFixture(name: "close 4999", raw: RawFrame.close(4999), expected: [.close(4999, "")]),
    WSFixture(name: "close 1013 (IANA: try again later)", raw: RawFrame.close(1013), expected: [.close(1013, "")]),
    WSFixture(name: "close inside a fragmented message", raw: RawFrame.text("a", fin: false) + RawFrame.close(1001), expected: [.start(.text, compressed: false), utf8Data("a"), .close(1001, "")]),
    WSFixture(name: "masked close with reason (server)", raw: RawFrame.make(0x8, [0x03, 0xE8] + Array("ok".utf8), mask: rfcMask), expected: [.close(1000, "ok")], setup: server),

    // MARK: Server role: masked frames, the key rotating across splits
    WSFixture(name: "masked fragments (server)", raw: RawFrame.make(0x1, Array("Hello, ".utf8), fin: false, mask: rfcMask) + RawFrame.make(0x0, Array("κόσμε".utf8), mask: [1, 2, 3, 4]), expected: [.start(.text, compressed: false), utf8Data("Hello, κόσμε"), .end], setup: server),
    WSFixture(name: "masked 300 bytes (server)", raw: RawFrame.make(0x2, (0..<300).map { UInt8($0 & 0xFF) }, mask: [9, 8, 7, 6]), expected: [.start(.binary, compressed: false), .data((0..<300).map { UInt8($0 & 0xFF) }), .end], setup: server),

    // MARK: permessage-deflate (RFC 7692 §6): RSV1 on the first frame only, payload unchecked
    WSFixture(name: "compressed text", raw: RawFrame.make(0x1, [0xF2, 0x48, 0x00], rsv: 4), expected: [.start(.text, compressed: true), .data([0xF2, 0x48, 0x00]), .end], setup: deflate),
    WSFixture(name: "compressed fragmented binary", raw: RawFrame.make(0x2, [1], fin: false, rsv: 4) + RawFrame.make(0x0, [2]), expected: [.start(.binary, compressed: true), .data([1, 2]), .end], setup: deflate),
    WSFixture(name: "uncompressed text under deflate is still checked", raw: RawFrame.text("plain"), expected: [.start(.text, compressed: false), utf8Data("plain"), .end], setup: deflate),
]

let wsMalformed: [WSMalformed] = [
    // MARK: Reserved bits and opcodes (RFC 6455 §5.2)
    WSMalformed(name: "RSV1 without an extension", raw: hexBytes("c1 00"), code: .reservedBits, offset: 0),
    WSMalformed(name: "RSV2", raw: hexBytes("a1 00"), code: .reservedBits, offset: 0),
    WSMalformed(name: "RSV3", raw: hexBytes("91 00"), code: .reservedBits, offset: 0),
    WSMalformed(name: "RSV2 under deflate", raw: hexBytes("e1 00"), code: .reservedBits, offset: 0, setup: deflate),
    WSMalformed(name: "RSV1 on a continuation under deflate", raw: RawFrame.make(0x1, [0x61], fin: false, rsv: 4) + RawFrame.make(0x0, [0x62], rsv: 4), code: .reservedBits, offset: 3, setup: deflate),
    WSMalformed(name: "RSV1 on a ping under deflate", raw: hexBytes("c9 00"), code: .reservedBits, offset: 0, setup: deflate),
    WSMalformed(name: "opcode 3", raw: hexBytes("83 00"), code: .reservedOpcode, offset: 0),
    WSMalformed(name: "opcode 0xB after a message", raw: RawFrame.text("x") + hexBytes("8b 00"), code: .reservedOpcode, offset: 3),

    // MARK: Control frames (RFC 6455 §5.5)
    WSMalformed(name: "fragmented ping", raw: hexBytes("09 00"), code: .fragmentedControlFrame, offset: 0),
    WSMalformed(name: "fragmented close", raw: hexBytes("08 00"), code: .fragmentedControlFrame, offset: 0),
    WSMalformed(name: "ping of 126 bytes", raw: RawFrame.make(0x9, [UInt8](repeating: 0, count: 126)), code: .controlFrameTooLong, offset: 1),
    WSMalformed(name: "close of 126 bytes in a 64-bit length", raw: hexBytes("88 7f 00 00 00 00 00 00 00 7e"), code: .controlFrameTooLong, offset: 1),
    WSMalformed(name: "masked ping to a client", raw: RawFrame.make(0x9, [1], mask: rfcMask), code: .maskedFrame, offset: 1),

    // MARK: Continuation rules (RFC 6455 §5.4)
    WSMalformed(name: "continuation without a message", raw: hexBytes("80 00"), code: .unexpectedContinuation, offset: 0),
    WSMalformed(name: "continuation after a finished message", raw: RawFrame.text("a") + RawFrame.cont("b"), code: .unexpectedContinuation, offset: 3),
    WSMalformed(name: "text inside a fragmented message", raw: RawFrame.text("a", fin: false) + RawFrame.text("b"), code: .expectedContinuation, offset: 3),
    WSMalformed(name: "binary inside a fragmented message after a ping", raw: RawFrame.text("a", fin: false) + hexBytes("89 00") + hexBytes("82 00"), code: .expectedContinuation, offset: 5),

    // MARK: Masking (RFC 6455 §5.1)
    WSMalformed(name: "masked text to a client", raw: hexBytes("81 85 37 fa 21 3d 7f 9f 4d 51 58"), code: .maskedFrame, offset: 1),
    WSMalformed(name: "unmasked text to a server", raw: hexBytes("81 05 48 65 6c 6c 6f"), code: .unmaskedFrame, offset: 1, setup: server),

    // MARK: Lengths (RFC 6455 §5.2: minimal encoding, 63 bits)
    WSMalformed(name: "5 in the 16-bit form", raw: RawFrame.make(0x2, [1, 2, 3, 4, 5], length: .sixteen), code: .nonMinimalLength, offset: 2),
    WSMalformed(name: "125 in the 16-bit form", raw: RawFrame.make(0x2, [UInt8](repeating: 0, count: 125), length: .sixteen), code: .nonMinimalLength, offset: 2),
    WSMalformed(name: "5 in the 64-bit form", raw: RawFrame.make(0x2, [1, 2, 3, 4, 5], length: .sixtyFour), code: .nonMinimalLength, offset: 2),
    WSMalformed(name: "65535 in the 64-bit form", raw: RawFrame.make(0x2, [UInt8](repeating: 0, count: 65_535), length: .sixtyFour), code: .nonMinimalLength, offset: 2),
    WSMalformed(name: "64-bit length with the top bit set", raw: hexBytes("82 7f 80 00 00 00 00 00 00 00"), code: .lengthTooLarge, offset: 2),
    WSMalformed(name: "64-bit length 2^63 - 1 over the limit", raw: hexBytes("82 7f 7f ff ff ff ff ff ff ff"), code: .frameTooLarge, offset: 2),

    // MARK: Limits (WebSocketLimits)
    WSMalformed(name: "frame over the limit, 7-bit", raw: RawFrame.make(0x2, [UInt8](repeating: 0, count: 11)), code: .frameTooLarge, offset: 1, setup: WSSetup(limits: WebSocketLimits(maxFramePayloadSize: 10))),
    WSMalformed(name: "frame over the limit, 16-bit", raw: hexBytes("82 7e 00 c8"), code: .frameTooLarge, offset: 2, setup: WSSetup(limits: WebSocketLimits(maxFramePayloadSize: 100))),
    WSMalformed(name: "message over the limit across fragments", raw: RawFrame.make(0x2, [1, 2, 3], fin: false) + RawFrame.make(0x0, [4, 5, 6]), code: .messageTooLarge, offset: 6, setup: WSSetup(limits: WebSocketLimits(maxMessageSize: 5))),
    WSMalformed(name: "default frame limit: 1 MiB + 1", raw: hexBytes("82 7f 00 00 00 00 00 10 00 01"), code: .frameTooLarge, offset: 2),

    // MARK: UTF-8, failing at the first byte that cannot continue (RFC 6455 §8.1)
    WSMalformed(name: "0xFF in text", raw: RawFrame.make(0x1, [0x61, 0xFF, 0x62]), code: .invalidUTF8, offset: 3),
    WSMalformed(name: "surrogate ED A0 80 fails at A0", raw: RawFrame.make(0x1, [0xED, 0xA0, 0x80]), code: .invalidUTF8, offset: 3),
    WSMalformed(name: "overlong C0 80 fails at C0", raw: RawFrame.make(0x1, [0xC0, 0x80]), code: .invalidUTF8, offset: 2),
    WSMalformed(name: "overlong E0 80 80 fails at the first 80", raw: RawFrame.make(0x1, [0xE0, 0x80, 0x80]), code: .invalidUTF8, offset: 3),
    WSMalformed(name: "overlong F0 80 80 80 fails at the first 80", raw: RawFrame.make(0x1, [0xF0, 0x80, 0x80, 0x80]), code: .invalidUTF8, offset: 3),
    WSMalformed(name: "past U+10FFFF: F4 90 fails at 90", raw: RawFrame.make(0x1, [0xF4, 0x90, 0x80, 0x80]), code: .invalidUTF8, offset: 3),
    WSMalformed(name: "F5 lead byte", raw: RawFrame.make(0x1, [0xF5, 0x80, 0x80, 0x80]), code: .invalidUTF8, offset: 2),
    WSMalformed(name: "lone continuation byte", raw: RawFrame.make(0x1, [0x80]), code: .invalidUTF8, offset: 2),
    WSMalformed(name: "text ends inside a sequence", raw: RawFrame.make(0x1, [0x61, 0xC3]), code: .invalidUTF8, offset: 4),
    WSMalformed(name: "invalid byte in a later fragment", raw: [0x01, 0x02, 0x61, 0xCE, 0x80, 0x01, 0x41], code: .invalidUTF8, offset: 6),
    WSMalformed(name: "sequence left open by an empty last fragment", raw: [0x01, 0x01, 0xCE, 0x80, 0x00], code: .invalidUTF8, offset: 5),
    WSMalformed(name: "invalid byte fails before the rest of a long frame arrives", raw: [0x81, 0x7E, 0x03, 0xE8, 0x61, 0xFF], code: .invalidUTF8, offset: 5),
    WSMalformed(name: "invalid UTF-8 in a masked text (server)", raw: RawFrame.make(0x1, [0x61, 0xED, 0xBF], mask: rfcMask), code: .invalidUTF8, offset: 8, setup: server),

    // MARK: Close bodies (RFC 6455 §5.5.1, §7.4)
    WSMalformed(name: "close body of one byte", raw: hexBytes("88 01 03"), code: .closePayload, offset: 2),
    WSMalformed(name: "close code 1005 on the wire", raw: RawFrame.close(1005), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 1006 on the wire", raw: RawFrame.close(1006), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 1015 on the wire", raw: RawFrame.close(1015), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 1004 (reserved)", raw: RawFrame.close(1004), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 999", raw: RawFrame.close(999), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 2999", raw: RawFrame.close(2999), code: .closeCode, offset: 2),
    WSMalformed(name: "close code 5000", raw: RawFrame.close(5000), code: .closeCode, offset: 2),
    WSMalformed(name: "close reason with 0xFF", raw: hexBytes("88 04 03 e8 ff 61"), code: .closeReason, offset: 4),
    WSMalformed(name: "close reason ends inside a sequence", raw: hexBytes("88 03 03 e8 ce"), code: .closeReason, offset: 5),

    // MARK: After close, and the end of the stream
    WSMalformed(name: "bytes after a close", raw: hexBytes("88 00 81 00"), code: .dataAfterClose, offset: 2),
    WSMalformed(name: "stream ends inside a header", raw: hexBytes("82 7e 01"), code: .truncatedFrame, offset: 0),
    WSMalformed(name: "stream ends inside a payload", raw: hexBytes("81 05 48 65"), code: .truncatedFrame, offset: 4),
    WSMalformed(name: "stream ends inside a fragmented message", raw: RawFrame.text("a", fin: false), code: .truncatedFrame, offset: 3),
    WSMalformed(name: "stream ends inside a ping", raw: hexBytes("89 05 48"), code: .truncatedFrame, offset: 0),
]

@Suite("WebSocket fixtures")
struct WebSocketFixtureTests {
    @Test("happy streams: same transcript at every split", arguments: wsFixtures)
    func happy(_ fixture: WSFixture) {
        let (transcript, mismatch) = wsSplitInvariantTranscript(fixture.raw, setup: fixture.setup)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        #expect(transcript == fixture.expected)
    }

    @Test("happy streams leave trailing bytes of the next frame unconsumed", arguments: wsFixtures.filter { fixture in
        !fixture.expected.contains { if case .close = $0 { return true } else { return false } }
    })
    func trailing(_ fixture: WSFixture) {
        // A partial next header after the fixture: parsed up to it, not past it, and reported as
        // truncated (at the fixture's end) when the stream stops there.
        let next: [UInt8] = fixture.setup.role == .server ? [0x82, 0xFE] : [0x82, 0x7E]
        let transcript = wsTranscript([fixture.raw + next], setup: fixture.setup)
        #expect(transcript == fixture.expected + [.error(.truncatedFrame, offset: fixture.raw.count)])
    }

    @Test("malformed streams: same error and offset at every split", arguments: wsMalformed)
    func malformed(_ fixture: WSMalformed) {
        let (transcript, mismatch) = wsSplitInvariantTranscript(fixture.raw, setup: fixture.setup)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        guard case .error(let code, let offset)? = transcript.last else {
            Issue.record("no error: \(transcript)")
            return
        }
        #expect(code == fixture.code)
        #expect(offset == fixture.offset)
    }

    @Test("a failed parser keeps failing with the same error")
    func failedStaysFailed() throws {
        var parser = WebSocketParser()
        let bad: [UInt8] = [0xC1, 0x00]
        var first: WebSocketError?
        for _ in 0..<2 {
            bad.withUnsafeBytes { raw in
                do throws(WebSocketError) { _ = try parser.parse(raw); Issue.record("accepted RSV1") } catch {
                    if let first { #expect(error == first) } else { first = error }
                    #expect(error.closeCode == .protocolError)
                }
            }
        }
        #expect(throws: WebSocketError.self) { try parser.finish() }
    }

    @Test("close codes the errors map to (RFC 6455 §7.4.1)")
    func closeCodes() {
        #expect(WebSocketError(.invalidUTF8, "").closeCode == .invalidFramePayloadData)
        #expect(WebSocketError(.closeReason, "").closeCode == .invalidFramePayloadData)
        #expect(WebSocketError(.messageTooLarge, "").closeCode == .messageTooBig)
        #expect(WebSocketError(.frameTooLarge, "").closeCode == .messageTooBig)
        #expect(WebSocketError(.reservedOpcode, "").closeCode == .protocolError)
        #expect(WebSocketError(.reservedBits, "x", offset: 3).description == "reserved-bits at byte 3: x")
    }
}
