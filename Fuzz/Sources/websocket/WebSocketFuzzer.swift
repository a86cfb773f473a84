// libFuzzer target: a WebSocket frame stream (RFC 6455) through Wire's WebSocketParser.
//
// Oracles, besides the per-call ones in `WebSocketDriver.swift`:
// - split invariance: whole, at a seeded split and (up to 256 bytes) byte by byte, the same events
//   and the same error (code and offset);
// - reference: `referenceDecode`, a plain whole-stream reading, gives exactly those events;
// - round trip: the complete messages and control frames are serialized again with
//   `WebSocketSerializer` (re-cut into other fragments, masked for a server) and parse back to
//   the same events, with no error.
import ClientFuzzHarness
import Wire

@main
enum WebSocketFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            WebSocketFuzzer.check(WebSocketCase(inputBytes(data, count)))
            return 0
        }
    }

    static func check(_ c: WebSocketCase) {
        let whole = parse([c.stream], c)
        let split = parse(seededSplit(c.stream, seed: c.splitSeed), c)
        require(split == whole, "split gave \(split), whole \(whole)")
        if c.stream.count <= 256 {
            let single = parse(c.stream.map { [$0] }, c)
            require(single == whole, "byte by byte gave \(single), whole \(whole)")
        }
        let reference = referenceDecode(c)
        require(reference == whole, "reference gave \(reference), parser \(whole)")
        roundTrip(whole, c)
    }

    /// Cuts `bytes` into pieces of 1–16 bytes, chosen by a xorshift seeded with `seed`.
    static func seededSplit(_ bytes: [UInt8], seed: UInt64) -> [[UInt8]] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var pieces: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let n = Int(state % 16) + 1
            pieces.append(Array(bytes[i..<min(bytes.count, i + n)]))
            i += n
        }
        return pieces
    }

    /// Serializes the complete part of `events` again and checks it parses back to itself.
    static func roundTrip(_ events: [Event], _ c: WebSocketCase) {
        // Drop a trailing error and a message left open by it (or by the end of the stream).
        var kept = events
        if case .error? = kept.last { kept.removeLast() }
        if let open = kept.lastIndex(where: { if case .start = $0 { return true } else { return false } }),
           !kept[open...].contains(.end) {
            kept.removeSubrange(open...)
        }
        var wire: [UInt8] = []
        var keyState: UInt32 = 0x1234_5678
        func key() -> WebSocketMaskKey? {
            guard c.role == .server else { return nil }
            keyState = keyState &* 1_664_525 &+ 1_013_904_223
            return WebSocketMaskKey(keyState)
        }
        var opcode: WebSocketOpcode?, compressed = false
        let chunk = max(1, c.limits.maxFramePayloadSize)
        do throws(WebSocketError) {
            for event in kept {
                switch event {
                case .start(let op, let isCompressed):
                    opcode = op
                    compressed = isCompressed
                case .data(let bytes):
                    var k = 0
                    while k < bytes.count {
                        let piece = Array(bytes[k..<min(bytes.count, k + chunk)])
                        try WebSocketSerializer.appendFrame(opcode: opcode ?? .continuation, payload: piece, fin: false, compressed: compressed && opcode != nil, mask: key(), into: &wire)
                        opcode = nil
                        k += chunk
                    }
                case .end:
                    try WebSocketSerializer.appendFrame(opcode: opcode ?? .continuation, payload: [], compressed: compressed && opcode != nil, mask: key(), into: &wire)
                    opcode = nil
                case .control(let op, let payload, _):
                    if let first = opcode {
                        // The message began with an empty frame before this control frame.
                        try WebSocketSerializer.appendFrame(opcode: first, payload: [], fin: false, compressed: compressed, mask: key(), into: &wire)
                        opcode = nil
                    }
                    try WebSocketSerializer.appendFrame(opcode: op, payload: payload, mask: key(), into: &wire)
                case .error:
                    violation("an error before the end of a transcript")
                }
            }
        } catch {
            violation("the serializer refused what the parser accepted: \(error)")
        }
        let again = parse([wire], c)
        require(again == kept, "round trip gave \(again), expected \(kept)")
    }

    static func violation(_ message: String) -> Never {
        fatalError("oracle violated: \(message)")
    }
}
