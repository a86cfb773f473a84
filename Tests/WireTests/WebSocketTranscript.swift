import Wire

/// One WebSocket parser event, copied (and unmasked) out of the buffer so transcripts compare.
enum WSRecorded: Equatable, Sendable, CustomStringConvertible {
    case start(WebSocketOpcode, compressed: Bool)
    case data([UInt8])
    case end
    case ping([UInt8])
    case pong([UInt8])
    case close(UInt16?, String)
    case error(WebSocketError.Code, offset: Int?)

    var description: String {
        switch self {
        case .start(let op, let c): return "start(\(op)\(c ? ", compressed" : ""))"
        case .data(let b): return "data(\(b.count) bytes: \(String(decoding: b.prefix(40), as: UTF8.self).debugDescription))"
        case .end: return "end"
        case .ping(let b): return "ping(\(b))"
        case .pong(let b): return "pong(\(b))"
        case .close(let c, let r): return "close(\(c.map(String.init) ?? "-"), \(r.debugDescription))"
        case .error(let c, let o): return "error(\(c) at \(o.map(String.init) ?? "-"))"
        }
    }
}

/// How a parser is set up for one fixture.
struct WSSetup: Sendable {
    var role: WebSocketRole = .client
    var compression = false
    var limits: WebSocketLimits = .default
}

/// Feeds `pieces` to a fresh parser as a connection driver does (unconsumed bytes kept at the front
/// of one buffer) and records every event, merging adjacent data. `eof` calls `finish()` at the end.
func wsTranscript(_ pieces: [[UInt8]], setup: WSSetup = WSSetup(), eof: Bool = true) -> [WSRecorded] {
    var parser = WebSocketParser(role: setup.role, perMessageCompression: setup.compression, limits: setup.limits)
    var buffer: [UInt8] = []
    var events: [WSRecorded] = []
    func record(_ event: WSRecorded) {
        if case .data(let more) = event, case .data(let previous)? = events.last {
            events[events.count - 1] = .data(previous + more)
        } else if case .data(let bytes) = event, bytes.isEmpty {
            return
        } else {
            events.append(event)
        }
    }
    for piece in pieces {
        buffer += piece
        while true {
            let result: Result<(WSRecorded?, Int), WebSocketError> = buffer.withUnsafeBytes { raw in
                do throws(WebSocketError) {
                    let step = try parser.parse(raw)
                    precondition(step.consumed <= raw.count, "consumed more than the input")
                    switch step.event {
                    case .needMoreData:
                        return .success((nil, step.consumed))
                    case .messageStart(let op, let compressed):
                        return .success((.start(op, compressed: compressed), step.consumed))
                    case .messageData(let range, let mask):
                        precondition(range.upperBound <= step.consumed)
                        var bytes = Array(raw[range])
                        if let mask { bytes.withUnsafeMutableBytes { mask.apply(to: $0) } }
                        return .success((.data(bytes), step.consumed))
                    case .messageEnd:
                        return .success((.end, step.consumed))
                    case .control(let frame):
                        precondition(frame.payload.upperBound <= step.consumed)
                        let payload = frame.payloadBytes(in: raw)
                        switch frame.opcode {
                        case .ping: return .success((.ping(payload), step.consumed))
                        case .pong: return .success((.pong(payload), step.consumed))
                        default: return .success((.close(frame.closeCode?.rawValue, frame.closeReason(in: raw)), step.consumed))
                        }
                    }
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .failure(let error):
                record(.error(error.code, offset: error.offset))
                return events
            case .success(let (event, consumed)):
                buffer.removeFirst(consumed)
                guard let event else { break }
                record(event)
                continue
            }
            break
        }
    }
    if eof {
        do throws(WebSocketError) { try parser.finish() } catch { record(.error(error.code, offset: error.offset)) }
    }
    return events
}

/// Checks that every split of `bytes` (whole, byte by byte, at every index up to 2 KiB, random)
/// gives the transcript of the whole input; returns it, or a description of the first that differs.
/// `everyIndex: false` skips the split at every index (the replayed fuzz corpus: 676 files).
func wsSplitInvariantTranscript(_ bytes: [UInt8], setup: WSSetup = WSSetup(), eof: Bool = true, everyIndex: Bool = true) -> (transcript: [WSRecorded], mismatch: String?) {
    let whole = wsTranscript(Splits.whole(bytes), setup: setup, eof: eof)
    var candidates: [(String, [[UInt8]])] = [("byte by byte", Splits.byteByByte(bytes))]
    if everyIndex && bytes.count <= 2048 {
        for i in 0...bytes.count { candidates.append(("split at \(i)", Splits.at(i, bytes))) }
    }
    for seed in 1...8 { candidates.append(("random seed \(seed)", Splits.random(bytes, seed: UInt64(seed)))) }
    for (label, pieces) in candidates {
        let other = wsTranscript(pieces, setup: setup, eof: eof)
        if other != whole { return (whole, "\(label) gave \(other)\n whole gave \(whole)") }
    }
    return (whole, nil)
}

/// An independent frame encoder for fixtures (not the serializer under test), able to write the
/// non-minimal lengths and odd bits a peer might send.
enum RawFrame {
    enum LengthForm { case minimal, sixteen, sixtyFour }

    static func make(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
        mask: [UInt8]? = nil, length: LengthForm = .minimal
    ) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let m: UInt8 = mask == nil ? 0 : 0x80
        let n = payload.count
        switch (length, n) {
        case (.minimal, 0...125): out.append(m | UInt8(n))
        case (.minimal, 126...0xFFFF), (.sixteen, _): out += [m | 126, UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        default: out.append(m | 127); for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(n >> s & 0xFF)) }
        }
        if let mask {
            out += mask
            out += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            out += payload
        }
        return out
    }

    static func text(_ s: String, fin: Bool = true) -> [UInt8] { make(0x1, Array(s.utf8), fin: fin) }
    static func cont(_ s: String, fin: Bool = true) -> [UInt8] { make(0x0, Array(s.utf8), fin: fin) }
    static func close(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        make(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }
}

/// `bytes("81 05 48")`: bytes from hexadecimal pairs.
func hexBytes(_ s: String) -> [UInt8] {
    s.split(separator: " ").map { UInt8($0, radix: 16)! }
}

/// A text payload's bytes as recorded data.
func utf8Data(_ s: String) -> WSRecorded { .data(Array(s.utf8)) }
