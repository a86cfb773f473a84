// Drives Wire's WebSocketParser over a stream cut into pieces, as a connection driver does, and
// checks the properties every call must have on the way.
//
//   input:        [options] stream…
//   options byte: bit 0: role (0 client, 1 server: frames must be masked)
//                 bit 1: permessage-deflate negotiated (RSV1 allowed on a message's first frame)
//                 bits 2-3: limits (0 `.default`, 1 small, 2 tiny, 3 zero-size messages)
//                 bits 4-7: the split seed

import ClientFuzzHarness
import Wire

/// One event, copied and unmasked, so transcripts compare; data between other events is merged.
enum Event: Equatable {
    case start(WebSocketOpcode, compressed: Bool)
    case data([UInt8])
    case end
    case control(WebSocketOpcode, [UInt8], closeCode: UInt16?)
    case error(WebSocketError.Code, offset: Int?)
}

/// A stream and how to parse it.
struct WebSocketCase {
    var role: WebSocketRole
    var compression: Bool
    var limits: WebSocketLimits
    var splitSeed: UInt64
    var stream: [UInt8]

    init(_ input: [UInt8]) {
        let options = input.first ?? 0
        role = options & 1 == 0 ? .client : .server
        compression = options & 2 != 0
        switch options >> 2 & 3 {
        case 0: limits = .default
        case 1: limits = WebSocketLimits(maxFramePayloadSize: 300, maxMessageSize: 1000)
        case 2: limits = WebSocketLimits(maxFramePayloadSize: 3, maxMessageSize: 5)
        default: limits = WebSocketLimits(maxFramePayloadSize: 0, maxMessageSize: 0)
        }
        splitSeed = UInt64(options >> 4)
        stream = Array(input.dropFirst())
    }

    func parser() -> WebSocketParser {
        WebSocketParser(role: role, perMessageCompression: compression, limits: limits)
    }
}

/// Appends `event`, merging adjacent data and dropping empty data.
func record(_ event: Event, into events: inout [Event]) {
    if case .data(let more) = event {
        if more.isEmpty { return }
        if case .data(let previous)? = events.last { events[events.count - 1] = .data(previous + more); return }
    }
    events.append(event)
}

/// Parses `pieces` with a fresh parser, checking per call: only `WebSocketError` escapes (typed
/// throws make that a compile-time fact), `consumed` within the input, every range inside what its
/// call consumed, progress (at most one event in a row consumes nothing), a failed parser stays
/// failed with the same error. Each call's input sits in an allocation of exactly its size, so
/// AddressSanitizer catches a read past it.
func parse(_ pieces: [[UInt8]], _ c: WebSocketCase) -> [Event] {
    var parser = c.parser()
    var buffer: [UInt8] = []
    var events: [Event] = []
    for piece in pieces {
        buffer += piece
        var idle = 0
        while true {
            let input = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count, alignment: 1)
            defer { input.deallocate() }
            buffer.withUnsafeBytes { input.copyMemory(from: $0) }
            let raw = UnsafeRawBufferPointer(input)
            let step: WebSocketStep
            do throws(WebSocketError) {
                step = try parser.parse(raw)
            } catch {
                record(.error(error.code, offset: error.offset), into: &events)
                do throws(WebSocketError) {
                    _ = try parser.parse(raw)
                    require(false, "a failed parser parsed again")
                } catch let again {
                    require(again == error, "a failed parser threw \(again), first \(error)")
                }
                return events
            }
            require(step.consumed >= 0 && step.consumed <= raw.count, "consumed \(step.consumed) of \(raw.count)")
            switch step.event {
            case .needMoreData:
                buffer.removeFirst(step.consumed)
            case .messageStart(let opcode, let compressed):
                require(opcode == .text || opcode == .binary, "message starts with \(opcode)")
                require(!compressed || c.compression, "compressed without negotiation")
                record(.start(opcode, compressed: compressed), into: &events)
            case .messageData(let range, let mask):
                require(range.lowerBound >= 0 && range.upperBound <= step.consumed, "data \(range) past consumed \(step.consumed)")
                require((mask != nil) == (c.role == .server), "mask \(String(describing: mask)) for \(c.role)")
                var bytes = Array(raw[range])
                if let mask { bytes.withUnsafeMutableBytes { mask.apply(to: $0) } }
                record(.data(bytes), into: &events)
            case .messageEnd:
                record(.end, into: &events)
            case .control(let frame):
                require(frame.opcode.isControl, "control event for \(frame.opcode)")
                require(frame.payload.count <= 125 && frame.payload.upperBound <= step.consumed, "control payload \(frame.payload)")
                require(frame.closeCode == nil || frame.closeCode!.isValidOnWire, "close code \(String(describing: frame.closeCode))")
                require(frame.opcode == .close || frame.closeCode == nil, "close code on \(frame.opcode)")
                record(.control(frame.opcode, frame.payloadBytes(in: raw), closeCode: frame.closeCode?.rawValue), into: &events)
            }
            if case .needMoreData = step.event { break }
            buffer.removeFirst(step.consumed)
            idle = step.consumed == 0 ? idle + 1 : 0
            require(idle <= 1, "two events in a row consumed nothing")
        }
    }
    do throws(WebSocketError) { try parser.finish() } catch {
        record(.error(error.code, offset: error.offset), into: &events)
    }
    return events
}
