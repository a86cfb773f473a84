// The receiving side of one WebSocket connection (RFC 6455 §5), sans I/O: bytes in, events out.
//
// Two things are tracked, because they change at different times: where the next byte falls in
// its frame (`state`), and which message, if any, is in progress (`message`): control frames may
// arrive between a message's fragments (§5.4) without ending it.
//
//   header ──control frame, all of it buffered──▶ header  (event: .control)
//     │  └──close frame──▶ closed (terminal: the peer sends nothing after a close, §5.5.1)
//     ├──text/binary header──▶ payload  (event: .messageStart; message begins)
//     ├──continuation header──▶ payload (no event)
//     └──empty payload with FIN──▶ messageEnd
//   payload(remaining) ──bytes──▶ payload (event: .messageData(range)), then at remaining 0:
//     ├──frame without FIN──▶ header
//     └──frame with FIN──▶ messageEnd ──▶ header (event: .messageEnd; message ends)
//   any ──malformed input──▶ failed (terminal: every later call throws the same error)
//
// Frame headers (2–14 bytes) and control frames (at most 125 payload bytes) are not consumed until
// they are whole, so the caller keeps them in its buffer and nothing is copied here; each header
// byte is checked as soon as it is present, in wire order, so an error names the same offset
// however the input is split. Data payloads stream out as ranges of the caller's buffer. A text
// message's bytes are validated as they pass (``WebSocketUTF8Validator``): the bytes before an
// invalid one are handed out first, then the next call throws at the invalid byte itself.
//
// Contract with the caller (the connection driver), as for ``ResponseParser``: pass the bytes not
// yet consumed, starting at the first unconsumed byte; each call returns one event and how many
// bytes it consumed; call again with the rest until the event is `.needMoreData`.

/// One thing the WebSocket parser found in the input.
public enum WebSocketEvent: Sendable, Hashable {
    /// Nothing more can be done with these bytes; read more from the connection.
    case needMoreData
    /// A text or binary message begins. `compressed`: its first frame had RSV1 set under
    /// permessage-deflate (RFC 7692 §6), so its payload is deflated and its UTF-8 is not checked
    /// here (the caller checks the inflated text with a ``WebSocketUTF8Validator``).
    case messageStart(WebSocketOpcode, compressed: Bool)
    /// Payload bytes of the current message at these offsets of the input. `mask` is `nil` for a
    /// client; for a server, the frame's key already rotated to the range's first byte.
    case messageData(Range<Int>, mask: WebSocketMaskKey?)
    /// The current message's last fragment ended.
    case messageEnd
    /// A whole, valid close, ping or pong frame.
    case control(WebSocketControlFrame)
}

/// A control frame, as offsets into the input of the call that returned it.
public struct WebSocketControlFrame: Sendable, Hashable {
    /// `.close`, `.ping` or `.pong`.
    public var opcode: WebSocketOpcode
    /// The payload's offsets (at most 125 bytes), masked when ``mask`` is not `nil`.
    public var payload: Range<Int>
    /// The frame's masking key (frames a server receives), or `nil`.
    public var mask: WebSocketMaskKey?
    /// For a close frame with a body, its code (already validated); `nil` otherwise (1005: no
    /// status received).
    public var closeCode: WebSocketCloseCode?

    /// The payload, unmasked, copied out of `input` (the buffer this frame was parsed from).
    public func payloadBytes(in input: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = Array(input[payload])
        if let mask { bytes.withUnsafeMutableBytes { mask.apply(to: $0) } }
        return bytes
    }

    /// A close frame's reason (valid UTF-8, possibly empty); empty for other frames.
    public func closeReason(in input: UnsafeRawBufferPointer) -> String {
        guard opcode == .close, payload.count >= 2 else { return "" }
        return String(decoding: payloadBytes(in: input).dropFirst(2), as: UTF8.self)
    }
}

/// An event and the number of input bytes it consumed.
public struct WebSocketStep: Sendable, Hashable {
    /// What was found.
    public var event: WebSocketEvent
    /// How many bytes from the start of the input are consumed; never more than the input held.
    public var consumed: Int
}

/// An incremental, strict RFC 6455 frame parser for one connection.
///
/// - Warning: Every rule of RFC 6455 §5 is enforced (see ``WebSocketError/Code``): on an error the
///   caller fails the connection with ``WebSocketError/closeCode``. Sizes are checked against
///   ``WebSocketLimits`` from the frame header, before the payload is awaited.
public struct WebSocketParser: Sendable {
    private enum State: Sendable {
        /// At a frame header. Exits: control frame (stay, or `closed`), data header to `payload` or
        /// `messageEnd` (empty final frame).
        case header
        /// Inside a data frame's payload; `index` payload bytes already handed out. Exit: at
        /// `remaining` 0, `header` (no FIN) or `messageEnd` (FIN).
        case payload(remaining: Int, index: Int, fin: Bool, mask: WebSocketMaskKey?)
        /// A final frame's payload is done; the next call ends the message. Exit: `header`.
        case messageEnd
        /// A close frame was returned: terminal, any later byte is ``WebSocketError/Code/dataAfterClose``.
        case closed
        /// Terminal: every call rethrows this error.
        case failed(WebSocketError)
    }

    /// The message in progress between its first frame and its last.
    private struct Message: Sendable {
        var opcode: WebSocketOpcode
        /// Payload bytes declared by its frames so far.
        var size: Int
        /// Present for an uncompressed text message.
        var utf8: WebSocketUTF8Validator?
    }

    private var state: State = .header
    /// `nil` between messages.
    private var message: Message?
    /// Whether the last `.needMoreData` left a partial frame header or control frame unconsumed.
    private var holdsPartialFrame = false
    /// Bytes consumed since the start of the stream, for error offsets.
    private var streamOffset = 0

    /// Which end this parser serves: a client refuses masked frames, a server unmasked ones.
    public let role: WebSocketRole
    /// Whether permessage-deflate (RFC 7692) was negotiated: only then may RSV1 be set, and only
    /// on a message's first frame.
    public let perMessageCompression: Bool
    /// The limits in force.
    public let limits: WebSocketLimits

    /// Creates a parser for a connection whose opening handshake just completed.
    /// - Parameters:
    ///   - role: `.client` (the default) expects unmasked frames.
    ///   - perMessageCompression: whether permessage-deflate was negotiated; `false` by default,
    ///     which refuses RSV1 like RSV2 and RSV3.
    ///   - limits: ``WebSocketLimits/default`` by default.
    public init(role: WebSocketRole = .client, perMessageCompression: Bool = false, limits: WebSocketLimits = .default) {
        self.role = role
        self.perMessageCompression = perMessageCompression
        self.limits = limits
    }

    /// Bytes consumed since the start of the stream.
    public var bytesConsumed: Int { streamOffset }

    /// Whether a close frame has been received.
    public var receivedClose: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Parses the next event from `input`, the bytes not yet consumed.
    /// - Returns: the event and how many bytes of `input` it consumed.
    /// - Throws: ``WebSocketError`` when the bytes break a rule; the parser then stays failed.
    public mutating func parse(_ input: UnsafeRawBufferPointer) throws(WebSocketError) -> WebSocketStep {
        if case .failed(let error) = state { throw error }
        do {
            let step = try step(input)
            streamOffset += step.consumed
            return step
        } catch {
            let located = error.shifted(by: streamOffset)
            state = .failed(located)
            throw located
        }
    }

    /// Reports that the connection ended (end of stream).
    /// - Throws: ``WebSocketError/Code/truncatedFrame`` when it ended inside a frame or a
    ///   fragmented message. A clean end between messages without a close frame is not an error
    ///   here: the caller reports it as 1006 (``WebSocketCloseCode/abnormalClosure``).
    public mutating func finish() throws(WebSocketError) {
        switch state {
        case .failed(let error):
            throw error
        case .closed:
            return
        case .header where message == nil && !holdsPartialFrame:
            return
        case .header, .payload, .messageEnd:
            let error = WebSocketError(.truncatedFrame, "connection closed inside a frame or message", offset: streamOffset)
            state = .failed(error)
            throw error
        }
    }

    // MARK: One step

    private mutating func step(_ input: UnsafeRawBufferPointer) throws(WebSocketError) -> WebSocketStep {
        holdsPartialFrame = false
        let end = input.count
        var i = 0
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .closed:
                if i < end { throw WebSocketError(.dataAfterClose, "\(end - i) bytes after a close frame", offset: i) }
                return WebSocketStep(event: .needMoreData, consumed: i)
            case .messageEnd:
                if let utf8 = message?.utf8, !utf8.isComplete {
                    throw WebSocketError(.invalidUTF8, "text message ends inside a UTF-8 sequence", offset: i)
                }
                message = nil
                state = .header
                return WebSocketStep(event: .messageEnd, consumed: i)
            case .payload(let remaining, let index, let fin, let mask):
                guard i < end, let base = input.baseAddress else {
                    return WebSocketStep(event: .needMoreData, consumed: i)
                }
                var count = min(remaining, end - i)
                if message?.utf8 != nil, let bad = message!.utf8!.validate(base + i, count: count, mask: mask?.rotated(by: index)) {
                    // Hand out the valid prefix first; the next call fails at the bad byte itself,
                    // so the error's offset and the bytes delivered do not depend on the split.
                    guard bad > 0 else { throw WebSocketError(.invalidUTF8, "byte 0x\(hex(input[i + bad])) cannot continue UTF-8 text", offset: i) }
                    count = bad
                }
                let left = remaining - count
                state = left > 0 ? .payload(remaining: left, index: index + count, fin: fin, mask: mask)
                    : fin ? .messageEnd : .header
                return WebSocketStep(event: .messageData(i..<(i + count), mask: mask?.rotated(by: index)), consumed: i + count)
            case .header:
                switch try frame(input, at: i) {
                case .incomplete:
                    holdsPartialFrame = i < end
                    return WebSocketStep(event: .needMoreData, consumed: i)
                case .event(let event, let next):
                    return WebSocketStep(event: event, consumed: next)
                case .continueAt(let next):
                    i = next
                }
            }
        }
    }

    private enum HeaderOutcome {
        /// The header (or control frame) is not all there; nothing consumed.
        case incomplete
        /// A frame produced an event; consumed up to `next`.
        case event(WebSocketEvent, next: Int)
        /// A continuation header was consumed silently; parse on from `next`.
        case continueAt(Int)
    }

    /// Reads the frame header at `i`, checking each byte as soon as it is present.
    private mutating func frame(_ input: UnsafeRawBufferPointer, at i: Int) throws(WebSocketError) -> HeaderOutcome {
        let end = input.count
        guard i < end else { return .incomplete }
        let b0 = input[i]
        let fin = b0 & 0x80 != 0
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw WebSocketError(.reservedOpcode, "reserved opcode 0x\(hex(b0 & 0x0F))", offset: i)
        }
        let compressed = b0 & 0x40 != 0
        if b0 & 0x30 != 0 {
            throw WebSocketError(.reservedBits, "RSV2 or RSV3 set and no extension defines them", offset: i)
        }
        if compressed && !(perMessageCompression && (opcode == .text || opcode == .binary)) {
            throw WebSocketError(.reservedBits, perMessageCompression
                ? "RSV1 on a \(opcode) frame (permessage-deflate sets it only on a message's first frame)"
                : "RSV1 set and no extension was negotiated", offset: i)
        }
        if opcode.isControl && !fin {
            throw WebSocketError(.fragmentedControlFrame, "\(opcode) frame without FIN", offset: i)
        }
        if opcode == .continuation && message == nil {
            throw WebSocketError(.unexpectedContinuation, "continuation frame with no message in progress", offset: i)
        }
        if (opcode == .text || opcode == .binary) && message != nil {
            throw WebSocketError(.expectedContinuation, "\(opcode) frame inside a fragmented message", offset: i)
        }

        guard i + 1 < end else { return .incomplete }
        let b1 = input[i + 1]
        let masked = b1 & 0x80 != 0
        if masked && role == .client { throw WebSocketError(.maskedFrame, "a server frame is masked", offset: i + 1) }
        if !masked && role == .server { throw WebSocketError(.unmaskedFrame, "a client frame is not masked", offset: i + 1) }
        let short = Int(b1 & 0x7F)
        if opcode.isControl && short > 125 {
            throw WebSocketError(.controlFrameTooLong, "\(opcode) frame longer than 125 bytes", offset: i + 1)
        }
        var headerLength = 2
        var length = short
        if short == 126 {
            guard i + 4 <= end else { return .incomplete }
            length = Int(input[i + 2]) << 8 | Int(input[i + 3])
            guard length >= 126 else {
                throw WebSocketError(.nonMinimalLength, "length \(length) in the 16-bit form", offset: i + 2)
            }
            headerLength = 4
        } else if short == 127 {
            guard i + 10 <= end else { return .incomplete }
            var value: UInt64 = 0
            for k in 2..<10 { value = value << 8 | UInt64(input[i + k]) }
            guard value >> 63 == 0 else {
                throw WebSocketError(.lengthTooLarge, "64-bit length with its most significant bit set", offset: i + 2)
            }
            guard value > 0xFFFF else {
                throw WebSocketError(.nonMinimalLength, "length \(value) in the 64-bit form", offset: i + 2)
            }
            length = Int(value)
            headerLength = 10
        }
        let lengthOffset = short < 126 ? i + 1 : i + 2
        // Control frames are bounded by 125 bytes above; the limits bound messages.
        if !opcode.isControl && length > limits.maxFramePayloadSize {
            throw WebSocketError(.frameTooLarge, "frame of \(length) bytes, limit \(limits.maxFramePayloadSize)", offset: lengthOffset)
        }
        // Subtracted, not added: `length` may be near 2^63 when the frame limit allows it.
        let sizeSoFar = message?.size ?? 0
        if !opcode.isControl && length > limits.maxMessageSize - sizeSoFar {
            throw WebSocketError(.messageTooLarge, "message of \(sizeSoFar) + \(length) bytes, limit \(limits.maxMessageSize)", offset: lengthOffset)
        }
        var mask: WebSocketMaskKey?
        if masked {
            guard i + headerLength + 4 <= end else { return .incomplete }
            let k = i + headerLength
            mask = WebSocketMaskKey(input[k], input[k + 1], input[k + 2], input[k + 3])
            headerLength += 4
        }
        let payloadStart = i + headerLength

        if opcode.isControl {
            guard payloadStart + length <= end else { return .incomplete }
            let control = try Self.control(opcode, input, payload: payloadStart..<(payloadStart + length), mask: mask)
            if opcode == .close { state = .closed }
            return .event(.control(control), next: payloadStart + length)
        }

        let first = message == nil
        if first {
            let text = opcode == .text && !compressed
            message = Message(opcode: opcode, size: length, utf8: text ? WebSocketUTF8Validator() : nil)
        } else {
            message!.size = sizeSoFar + length
        }
        state = length > 0 ? .payload(remaining: length, index: 0, fin: fin, mask: mask) : fin ? .messageEnd : .header
        return first ? .event(.messageStart(opcode, compressed: compressed), next: payloadStart) : .continueAt(payloadStart)
    }

    /// Validates a whole control frame: a close body is empty or a valid code plus UTF-8 (§5.5.1).
    private static func control(_ opcode: WebSocketOpcode, _ input: UnsafeRawBufferPointer, payload: Range<Int>, mask: WebSocketMaskKey?) throws(WebSocketError) -> WebSocketControlFrame {
        var frame = WebSocketControlFrame(opcode: opcode, payload: payload, mask: mask, closeCode: nil)
        guard opcode == .close, !payload.isEmpty else { return frame }
        func byte(_ k: Int) -> UInt8 { input[payload.lowerBound + k] ^ (mask?[k] ?? 0) }
        guard payload.count >= 2 else {
            throw WebSocketError(.closePayload, "close payload of one byte", offset: payload.lowerBound)
        }
        let code = WebSocketCloseCode(rawValue: UInt16(byte(0)) << 8 | UInt16(byte(1)))
        guard code.isValidOnWire else {
            throw WebSocketError(.closeCode, "close code \(code) may not be sent", offset: payload.lowerBound)
        }
        var utf8 = WebSocketUTF8Validator()
        let reasonStart = payload.lowerBound + 2
        if let base = input.baseAddress, let bad = utf8.validate(base + reasonStart, count: payload.upperBound - reasonStart, mask: mask?.rotated(by: 2)) {
            throw WebSocketError(.closeReason, "close reason is not UTF-8", offset: reasonStart + bad)
        }
        if !utf8.isComplete {
            throw WebSocketError(.closeReason, "close reason ends inside a UTF-8 sequence", offset: payload.upperBound)
        }
        frame.closeCode = code
        return frame
    }
}
