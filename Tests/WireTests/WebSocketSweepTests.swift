import Testing
import Wire

/// Every value of the bytes whose class matters: the first header byte in three contexts, the
/// second header byte, and UTF-8 lead and continuation bytes against the standard library.
@Suite("WebSocket byte sweeps")
struct WebSocketSweepTests {
    /// What the first header byte `b` must do, worked out from RFC 6455 §5.2 independently of the
    /// parser: `nil` when accepted, else the error.
    private func expectedFirstByte(_ b: UInt8, compression: Bool, inMessage: Bool) -> WebSocketError.Code? {
        let fin = b & 0x80 != 0, rsv1 = b & 0x40 != 0, rsv23 = b & 0x30 != 0, opcode = b & 0x0F
        let control = opcode >= 8
        if ![0, 1, 2, 8, 9, 10].contains(opcode) { return .reservedOpcode }
        if rsv23 { return .reservedBits }
        if rsv1 && !(compression && (opcode == 1 || opcode == 2)) { return .reservedBits }
        if control && !fin { return .fragmentedControlFrame }
        if opcode == 0 && !inMessage { return .unexpectedContinuation }
        if (opcode == 1 || opcode == 2) && inMessage { return .expectedContinuation }
        return nil
    }

    private func firstByteOutcome(_ b: UInt8, compression: Bool, prefix: [UInt8]) -> [WSRecorded] {
        wsTranscript([prefix + [b, 0x00]], setup: WSSetup(compression: compression), eof: false)
    }

    @Test("first byte between messages, no extension", arguments: 0...255)
    func firstByte(_ value: Int) {
        let b = UInt8(value)
        let events = firstByteOutcome(b, compression: false, prefix: [])
        if let code = expectedFirstByte(b, compression: false, inMessage: false) {
            #expect(events.last == .error(code, offset: 0), "byte \(value): \(events)")
        } else {
            guard let last = events.last, case .error = last else { return }
            Issue.record("byte \(value) refused: \(events)")
        }
    }

    @Test("first byte between messages, permessage-deflate negotiated", arguments: 0...255)
    func firstByteDeflate(_ value: Int) {
        let b = UInt8(value)
        let events = firstByteOutcome(b, compression: true, prefix: [])
        if let code = expectedFirstByte(b, compression: true, inMessage: false) {
            #expect(events.last == .error(code, offset: 0), "byte \(value): \(events)")
        } else if case .start(_, let compressed)? = events.first {
            #expect(compressed == (b & 0x40 != 0), "byte \(value)")
        } else if case .error? = events.last {
            Issue.record("byte \(value) refused: \(events)")
        }
    }

    @Test("first byte inside a fragmented message", arguments: 0...255)
    func firstByteInMessage(_ value: Int) {
        let b = UInt8(value)
        // An empty, unfinished binary first fragment opens the message.
        let events = firstByteOutcome(b, compression: false, prefix: [0x02, 0x00])
        if let code = expectedFirstByte(b, compression: false, inMessage: true) {
            #expect(events.last == .error(code, offset: 2), "byte \(value): \(events)")
        } else if case .error? = events.last {
            Issue.record("byte \(value) refused: \(events)")
        }
    }

    @Test("second byte: mask bit and 7-bit length, client and server", arguments: 0...255)
    func secondByte(_ value: Int) {
        let b = UInt8(value)
        let masked = b & 0x80 != 0, short = Int(b & 0x7F)
        for role in [WebSocketRole.client, .server] {
            // A binary frame and a ping with this second byte, the payload all there when short.
            for first: UInt8 in [0x82, 0x89] {
                let payload = [UInt8](repeating: 0x20, count: short < 126 ? short : 0)
                let raw = [first, b] + (masked ? [1, 2, 3, 4] : []) + payload
                let events = wsTranscript([raw], setup: WSSetup(role: role), eof: false)
                let maskError: WebSocketError.Code? = masked && role == .client ? .maskedFrame : !masked && role == .server ? .unmaskedFrame : nil
                if let maskError {
                    #expect(events == [.error(maskError, offset: 1)], "\(role) \(first) \(value)")
                } else if first == 0x89 && short > 125 {
                    #expect(events == [.error(.controlFrameTooLong, offset: 1)], "\(role) ping \(value)")
                } else if short >= 126 {
                    #expect(events == [], "\(role) \(value): extended length awaited")
                } else if first == 0x89 {
                    let unmasked = masked ? payload.enumerated().map { $0.element ^ UInt8($0.offset % 4 + 1) } : payload
                    #expect(events == [.ping(unmasked)], "\(role) ping \(value)")
                } else {
                    #expect(events.first == .start(.binary, compressed: false) && events.last == .end, "\(role) \(value)")
                }
            }
        }
    }

    @Test("UTF-8: every 1- and 2-byte text agrees with the standard library")
    func utf8TwoBytes() {
        // Disagreements collected, then one expectation: 65,792 `#expect`s cost seconds.
        var disagreements: [[UInt8]] = []
        for a in 0...255 {
            for bytes in [[UInt8(a)]] + (0...255).map({ [UInt8(a), UInt8($0)] })
            where validates(bytes) != (String(validating: bytes, as: UTF8.self) != nil) {
                disagreements.append(bytes)
            }
        }
        #expect(disagreements == [])
    }

    @Test("UTF-8: 3-byte leads, every second byte, the third at each class edge, agree with the standard library", arguments: 0xE0...0xEF)
    func utf8ThreeBytes(_ lead: Int) {
        // The third byte only matters by class (continuation 80-BF or not): its edges stand for all.
        for b in 0...255 {
            for c in [0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF] {
                let bytes = [UInt8(lead), UInt8(b), UInt8(c)]
                if validates(bytes) != (String(validating: bytes, as: UTF8.self) != nil) {
                    Issue.record("disagree on \(bytes)")
                    return
                }
            }
        }
    }

    @Test("UTF-8: 4-byte leads, each second byte, with valid continuations", arguments: 0xF0...0xF7)
    func utf8FourBytes(_ lead: Int) {
        for b in 0...255 {
            let bytes = [UInt8(lead), UInt8(b), 0x80, 0xBF]
            #expect(validates(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    @Test("UTF-8: the same verdict byte by byte and through a mask")
    func utf8Incremental() {
        let samples: [[UInt8]] = [Array("κόσμε 𝄞 ascii".utf8), [0xED, 0xA0, 0x80], [0xF4, 0x90], [0x61, 0xE0, 0x9F], [0xEF, 0xBF, 0xBF]]
        let mask = WebSocketMaskKey(0x12345678)
        for bytes in samples {
            var whole = WebSocketUTF8Validator()
            let wholeBad = bytes.withUnsafeBytes { whole.validate($0) }
            var single = WebSocketUTF8Validator()
            var singleBad: Int?
            for (i, byte) in bytes.enumerated() where singleBad == nil {
                if [byte].withUnsafeBytes({ single.validate($0) }) != nil { singleBad = i }
            }
            var masked = bytes
            masked.withUnsafeMutableBytes { mask.apply(to: $0) }
            var throughMask = WebSocketUTF8Validator()
            let maskedBad = masked.withUnsafeBytes { throughMask.validate($0.baseAddress!, count: $0.count, mask: mask) }
            #expect(wholeBad == singleBad && wholeBad == maskedBad, "\(bytes)")
            if wholeBad == nil { #expect(whole.isComplete == single.isComplete && whole.isComplete == throughMask.isComplete) }
        }
    }

    /// Whether `bytes` is a complete, valid text for the validator.
    private func validates(_ bytes: [UInt8]) -> Bool {
        var v = WebSocketUTF8Validator()
        return bytes.withUnsafeBytes { v.validate($0) } == nil && v.isComplete
    }
}
