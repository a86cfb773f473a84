// The sending side of RFC 6455 §5: frame headers and whole frames.
//
// Pure functions: the caller supplies the masking key (a client draws a fresh one per frame from a
// strong random source, RFC 6455 §10.3), so every output is a function of the arguments and
// testable byte for byte. The serializer refuses what the parser would refuse (a fragmented or
// oversized control frame, RSV1 where permessage-deflate does not allow it, a close body with a
// code that may not be sent or a reason that is not UTF-8), so a well-behaved endpoint cannot
// emit a frame its peer must fail the connection over. Lengths always take their minimal form.

/// Serializes WebSocket frames.
public enum WebSocketSerializer {
    /// The longest frame header: 2 bytes, a 64-bit extended length and a masking key.
    public static let maxHeaderLength = 14

    /// Appends a frame header to `buffer`.
    /// - Parameters:
    ///   - opcode: the frame's opcode.
    ///   - payloadLength: the payload's length in bytes; at most 125 for control frames.
    ///   - fin: whether this is the message's last frame; `true` by default, required for control frames.
    ///   - compressed: RSV1 (permessage-deflate, RFC 7692 §6): only on a text or binary frame;
    ///     `false` by default.
    ///   - mask: the masking key, for frames a client sends; `nil` (the default) for a server's.
    /// - Throws: ``WebSocketError/Code/fragmentedControlFrame``,
    ///   ``WebSocketError/Code/controlFrameTooLong``, ``WebSocketError/Code/reservedBits``;
    ///   `buffer` is left unchanged on error.
    public static func appendHeader(
        opcode: WebSocketOpcode, payloadLength: Int, fin: Bool = true, compressed: Bool = false,
        mask: WebSocketMaskKey? = nil, into buffer: inout [UInt8]
    ) throws(WebSocketError) {
        precondition(payloadLength >= 0, "negative payload length")
        if opcode.isControl {
            guard fin else { throw WebSocketError(.fragmentedControlFrame, "\(opcode) frame without FIN") }
            guard payloadLength <= 125 else { throw WebSocketError(.controlFrameTooLong, "\(opcode) payload of \(payloadLength) bytes") }
        }
        if compressed && !(opcode == .text || opcode == .binary) {
            throw WebSocketError(.reservedBits, "RSV1 on a \(opcode) frame")
        }
        buffer.append((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch payloadLength {
        case 0...125:
            buffer.append(maskBit | UInt8(payloadLength))
        case 126...0xFFFF:
            buffer.append(maskBit | 126)
            buffer.append(UInt8(payloadLength >> 8))
            buffer.append(UInt8(payloadLength & 0xFF))
        default:
            buffer.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: payloadLength >> shift)) }
        }
        if let mask {
            buffer.append(mask.bytes.0); buffer.append(mask.bytes.1)
            buffer.append(mask.bytes.2); buffer.append(mask.bytes.3)
        }
    }

    /// Appends a whole frame (header, then the payload masked with `mask` when given) to `buffer`.
    /// A close frame's payload is checked as the parser checks it (see ``closePayload(code:reason:)``).
    /// - Parameters: as for ``appendHeader(opcode:payloadLength:fin:compressed:mask:into:)``, plus
    ///   `payload`, the unmasked payload bytes.
    /// - Throws: as ``appendHeader(opcode:payloadLength:fin:compressed:mask:into:)``, and
    ///   ``WebSocketError/Code/closePayload``, ``WebSocketError/Code/closeCode``,
    ///   ``WebSocketError/Code/closeReason`` for a bad close body; `buffer` is left unchanged on error.
    public static func appendFrame(
        opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, compressed: Bool = false,
        mask: WebSocketMaskKey? = nil, into buffer: inout [UInt8]
    ) throws(WebSocketError) {
        if opcode == .close { try validateClose(payload) }
        try appendHeader(opcode: opcode, payloadLength: payload.count, fin: fin, compressed: compressed, mask: mask, into: &buffer)
        let start = buffer.count
        buffer.append(contentsOf: payload)
        if let mask {
            buffer.withUnsafeMutableBytes { mask.apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        }
    }

    /// Appends a whole frame whose payload is `payload` (see
    /// ``appendFrame(opcode:payload:fin:compressed:mask:into:)``).
    public static func appendFrame(
        opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, compressed: Bool = false,
        mask: WebSocketMaskKey? = nil, into buffer: inout [UInt8]
    ) throws(WebSocketError) {
        // `withUnsafeBytes` cannot forward a typed throw, so the error travels out as a value.
        let result: Result<Void, WebSocketError> = payload.withUnsafeBytes { raw in
            do throws(WebSocketError) {
                try appendFrame(opcode: opcode, payload: raw, fin: fin, compressed: compressed, mask: mask, into: &buffer)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    /// A close frame's payload: the code in network byte order, then the reason's UTF-8.
    /// - Parameters:
    ///   - code: the close code; `nil` for an empty payload (the peer then reports 1005).
    ///   - reason: the reason, at most 123 UTF-8 bytes; empty by default. Ignored without a code.
    /// - Throws: ``WebSocketError/Code/closeCode`` for a code that may not be sent
    ///   (``WebSocketCloseCode/isValidOnWire``), ``WebSocketError/Code/controlFrameTooLong`` for a
    ///   reason over 123 bytes.
    public static func closePayload(code: WebSocketCloseCode?, reason: String = "") throws(WebSocketError) -> [UInt8] {
        guard let code else { return [] }
        guard code.isValidOnWire else { throw WebSocketError(.closeCode, "close code \(code) may not be sent") }
        let utf8 = reason.utf8
        guard utf8.count <= 123 else { throw WebSocketError(.controlFrameTooLong, "close reason of \(utf8.count) bytes (at most 123)") }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + utf8
    }

    private static func validateClose(_ payload: UnsafeRawBufferPointer) throws(WebSocketError) {
        guard !payload.isEmpty else { return }
        guard payload.count >= 2 else { throw WebSocketError(.closePayload, "close payload of one byte") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { throw WebSocketError(.closeCode, "close code \(code) may not be sent") }
        var utf8 = WebSocketUTF8Validator()
        let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
        if let bad = utf8.validate(reason) {
            throw WebSocketError(.closeReason, "close reason is not UTF-8", offset: 2 + bad)
        }
        guard utf8.isComplete else { throw WebSocketError(.closeReason, "close reason ends inside a UTF-8 sequence", offset: payload.count) }
    }
}
