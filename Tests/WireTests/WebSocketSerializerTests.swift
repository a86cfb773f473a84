import Testing
import Wire

/// A frame to serialize and the exact bytes it must give.
struct WSEncoding: CustomTestStringConvertible, Sendable {
    var name: String
    var opcode: WebSocketOpcode
    var payload: [UInt8]
    var fin = true
    var compressed = false
    var mask: WebSocketMaskKey?
    /// The expected header (the payload, masked when `mask` is set, follows it).
    var header: [UInt8]
    var testDescription: String { name }
}

/// A frame the serializer must refuse.
struct WSRefusal: CustomTestStringConvertible, Sendable {
    var name: String
    var opcode: WebSocketOpcode
    var payload: [UInt8]
    var fin = true
    var compressed = false
    var code: WebSocketError.Code
    var testDescription: String { name }
}

private let rfc = WebSocketMaskKey(0x37, 0xFA, 0x21, 0x3D)

let wsEncodings: [WSEncoding] = [
    WSEncoding(name: "RFC: unmasked Hello", opcode: .text, payload: Array("Hello".utf8), header: [0x81, 0x05]),
    WSEncoding(name: "RFC: masked Hello", opcode: .text, payload: Array("Hello".utf8), mask: rfc, header: [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D]),
    WSEncoding(name: "empty binary", opcode: .binary, payload: [], header: [0x82, 0x00]),
    WSEncoding(name: "first fragment", opcode: .text, payload: [0x61], fin: false, header: [0x01, 0x01]),
    WSEncoding(name: "continuation, last", opcode: .continuation, payload: [0x61], header: [0x80, 0x01]),
    WSEncoding(name: "compressed text", opcode: .text, payload: [1], compressed: true, header: [0xC1, 0x01]),
    WSEncoding(name: "125 bytes, 7-bit", opcode: .binary, payload: [UInt8](repeating: 0, count: 125), header: [0x82, 0x7D]),
    WSEncoding(name: "126 bytes, 16-bit", opcode: .binary, payload: [UInt8](repeating: 0, count: 126), header: [0x82, 0x7E, 0x00, 0x7E]),
    WSEncoding(name: "65535 bytes, 16-bit", opcode: .binary, payload: [UInt8](repeating: 0, count: 65_535), header: [0x82, 0x7E, 0xFF, 0xFF]),
    WSEncoding(name: "65536 bytes, 64-bit", opcode: .binary, payload: [UInt8](repeating: 0, count: 65_536), header: [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0]),
    WSEncoding(name: "65536 bytes, 64-bit, masked", opcode: .binary, payload: [UInt8](repeating: 9, count: 65_536), mask: rfc, header: [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 0x37, 0xFA, 0x21, 0x3D]),
    WSEncoding(name: "ping 125 bytes", opcode: .ping, payload: [UInt8](repeating: 1, count: 125), header: [0x89, 0x7D]),
    WSEncoding(name: "masked pong", opcode: .pong, payload: [1, 2], mask: WebSocketMaskKey(0x01020304), header: [0x8A, 0x82, 1, 2, 3, 4]),
    WSEncoding(name: "empty close", opcode: .close, payload: [], header: [0x88, 0x00]),
    WSEncoding(name: "close 1000 'ok'", opcode: .close, payload: [0x03, 0xE8, 0x6F, 0x6B], header: [0x88, 0x04]),
]

let wsRefusals: [WSRefusal] = [
    WSRefusal(name: "ping of 126 bytes", opcode: .ping, payload: [UInt8](repeating: 0, count: 126), code: .controlFrameTooLong),
    WSRefusal(name: "pong of 126 bytes", opcode: .pong, payload: [UInt8](repeating: 0, count: 126), code: .controlFrameTooLong),
    WSRefusal(name: "fragmented ping", opcode: .ping, payload: [], fin: false, code: .fragmentedControlFrame),
    WSRefusal(name: "fragmented close", opcode: .close, payload: [], fin: false, code: .fragmentedControlFrame),
    WSRefusal(name: "compressed ping", opcode: .ping, payload: [], compressed: true, code: .reservedBits),
    WSRefusal(name: "compressed continuation", opcode: .continuation, payload: [1], compressed: true, code: .reservedBits),
    WSRefusal(name: "close body of one byte", opcode: .close, payload: [0x03], code: .closePayload),
    WSRefusal(name: "close code 1005", opcode: .close, payload: [0x03, 0xED], code: .closeCode),
    WSRefusal(name: "close code 0", opcode: .close, payload: [0, 0], code: .closeCode),
    WSRefusal(name: "close reason not UTF-8", opcode: .close, payload: [0x03, 0xE8, 0xC0, 0x80], code: .closeReason),
    WSRefusal(name: "close reason ends inside a sequence", opcode: .close, payload: [0x03, 0xE8, 0xE2, 0x82], code: .closeReason),
    WSRefusal(name: "close of 126 bytes", opcode: .close, payload: [0x03, 0xE8] + [UInt8](repeating: 0x61, count: 124), code: .controlFrameTooLong),
]

@Suite("WebSocket serializer")
struct WebSocketSerializerTests {
    @Test("exact bytes, minimal lengths, masking", arguments: wsEncodings)
    func encodes(_ e: WSEncoding) throws {
        var out: [UInt8] = [0xEE]  // bytes already in the buffer stay
        try WebSocketSerializer.appendFrame(opcode: e.opcode, payload: e.payload, fin: e.fin, compressed: e.compressed, mask: e.mask, into: &out)
        let masked = e.mask.map { key in e.payload.enumerated().map { $0.element ^ key[$0.offset] } } ?? e.payload
        #expect(out.first == 0xEE)
        #expect(Array(out.dropFirst().prefix(e.header.count)) == e.header)
        #expect(Array(out.dropFirst(1 + e.header.count)) == masked)
        #expect(e.header.count <= WebSocketSerializer.maxHeaderLength)
    }

    @Test("refusals leave the buffer unchanged", arguments: wsRefusals)
    func refuses(_ r: WSRefusal) {
        var out: [UInt8] = [1, 2]
        do throws(WebSocketError) {
            try WebSocketSerializer.appendFrame(opcode: r.opcode, payload: r.payload, fin: r.fin, compressed: r.compressed, mask: rfc, into: &out)
            Issue.record("serialized \(r.name)")
        } catch {
            #expect(error.code == r.code)
        }
        #expect(out == [1, 2])
    }

    @Test("close payloads")
    func closePayloads() throws {
        #expect(try WebSocketSerializer.closePayload(code: nil) == [])
        #expect(try WebSocketSerializer.closePayload(code: .normalClosure, reason: "é") == [0x03, 0xE8, 0xC3, 0xA9])
        #expect(try WebSocketSerializer.closePayload(code: .goingAway, reason: String(repeating: "a", count: 123)).count == 125)
        #expect(throws: WebSocketError.self) { try WebSocketSerializer.closePayload(code: .normalClosure, reason: String(repeating: "a", count: 124)) }
        for bad: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            #expect(throws: WebSocketError.self) { try WebSocketSerializer.closePayload(code: WebSocketCloseCode(rawValue: bad)) }
        }
    }

    @Test("close codes valid on the wire, all 65,536")
    func closeCodeSweep() {
        var wrong: [Int] = []
        for raw in 0...65535 {
            let code = WebSocketCloseCode(rawValue: UInt16(raw))
            let expected = (1000...1003).contains(raw) || (1007...1014).contains(raw) || (3000...4999).contains(raw)
            // The predicate and the parser agree with the list above.
            let events = wsTranscript([RawFrame.close(UInt16(raw))], eof: false)
            if code.isValidOnWire != expected || events != (expected ? [.close(UInt16(raw), "")] : [.error(.closeCode, offset: 2)]) {
                wrong.append(raw)
            }
        }
        #expect(wrong == [])
    }

    @Test("serialize then parse: the same messages, masked (server parser) and unmasked (client)")
    func roundTrip() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        for round in 0..<60 {
            let masked = round % 2 == 0
            var wire: [UInt8] = []
            var expected: [WSRecorded] = []
            for _ in 0..<(1 + Int(next() % 4)) {
                let fragments = 1 + Int(next() % 3)
                let binary = next() % 2 == 0
                var message: [UInt8] = []
                expected.append(.start(binary ? .binary : .text, compressed: false))
                for f in 0..<fragments {
                    let size = [0, 1, 125, 126, 300, 70_000][Int(next() % 6)]
                    let seed = UInt8(truncatingIfNeeded: next()); let piece: [UInt8] = binary ? (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed } : Array(String(repeating: "ü", count: size / 2).utf8)
                    message += piece
                    let mask = masked ? WebSocketMaskKey(UInt32(truncatingIfNeeded: next())) : nil
                    try WebSocketSerializer.appendFrame(opcode: f == 0 ? (binary ? .binary : .text) : .continuation, payload: piece, fin: f == fragments - 1, mask: mask, into: &wire)
                    if next() % 3 == 0 && f < fragments - 1 {
                        try WebSocketSerializer.appendFrame(opcode: .ping, payload: [UInt8(f)], mask: mask, into: &wire)
                        if !message.isEmpty { expected.append(.data(message)); message = [] }
                        expected.append(.ping([UInt8(f)]))
                    }
                }
                if !message.isEmpty { expected.append(.data(message)) }
                expected.append(.end)
            }
            try WebSocketSerializer.appendFrame(opcode: .close, payload: WebSocketSerializer.closePayload(code: .normalClosure, reason: "done"), mask: masked ? rfc : nil, into: &wire)
            expected.append(.close(1000, "done"))
            let setup = WSSetup(role: masked ? .server : .client)
            #expect(wsTranscript([wire], setup: setup) == expected, "round \(round)")
            if wire.count <= 16_384 {  // random splits of the 70 KB rounds cost seconds in debug builds
                #expect(wsTranscript(Splits.random(wire, seed: UInt64(round + 1)), setup: setup) == expected, "round \(round), split")
            }
        }
    }
}
