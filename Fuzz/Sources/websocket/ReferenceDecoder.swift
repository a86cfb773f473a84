// A slow, plain reading of RFC 6455 §5 over the whole stream at once: the fuzz oracle the
// incremental parser must agree with, event for event and error for error (code and offset).
//
// It shares nothing with Wire but the result types. UTF-8 is judged arithmetically rather than by
// byte ranges: a sequence so far is acceptable while the scalars it could still complete to
// intersect the scalars its length may encode (RFC 3629 §3: no overlongs, no surrogates, nothing
// past U+10FFFF). The checks run in the order the parser documents, which is wire order: the
// first header byte's rules, then the second's, the extended length, the limits, the payload.

import Wire

/// Open UTF-8 sequence state: the bytes of the character being read.
private struct ReferenceUTF8 {
    var open: [UInt8] = []
    var length = 0

    /// Whether `b` may come next.
    mutating func accept(_ b: UInt8) -> Bool {
        if open.isEmpty {
            if b < 0x80 { return true }
            let ones = (b ^ 0xFF).leadingZeroBitCount
            guard (2...4).contains(ones) else { return false }
            length = ones
        } else if b & 0xC0 != 0x80 {
            return false
        }
        open.append(b)
        guard plausible() else { return false }
        if open.count == length { open = [] }
        return true
    }

    var isComplete: Bool { open.isEmpty }

    /// Whether some completion of `open` is a scalar that `length` bytes may encode.
    private func plausible() -> Bool {
        var value = UInt32(open[0]) & (0x7F >> UInt32(length))
        for c in open.dropFirst() { value = value << 6 | UInt32(c & 0x3F) }
        let missing = UInt32(6 * (length - open.count))
        let lo = value << missing, hi = lo | ((1 << missing) - 1)
        let allowed: [ClosedRange<UInt32>]
        switch length {
        case 2: allowed = [0x80...0x7FF]
        case 3: allowed = [0x800...0xD7FF, 0xE000...0xFFFF]
        default: allowed = [0x1_0000...0x10_FFFF]
        }
        return allowed.contains { $0.overlaps(lo...hi) }
    }
}

/// Decodes `c.stream` whole and returns the events the parser must produce.
func referenceDecode(_ c: WebSocketCase) -> [Event] {
    let s = c.stream, n = s.count
    var events: [Event] = []
    var i = 0
    var closed = false
    var message: (opcode: UInt8, size: Int, utf8: ReferenceUTF8?)?

    func fail(_ code: WebSocketError.Code, _ offset: Int) -> [Event] {
        record(.error(code, offset: offset), into: &events)
        return events
    }

    while i < n {
        if closed { return fail(.dataAfterClose, i) }
        let b0 = s[i]
        let fin = b0 & 0x80 != 0, rsv1 = b0 & 0x40 != 0, opcode = b0 & 0x0F
        let control = opcode >= 8
        let isData = opcode == 1 || opcode == 2
        guard [0, 1, 2, 8, 9, 10].contains(opcode) else { return fail(.reservedOpcode, i) }
        if b0 & 0x30 != 0 { return fail(.reservedBits, i) }
        if rsv1 && !(c.compression && isData) { return fail(.reservedBits, i) }
        if control && !fin { return fail(.fragmentedControlFrame, i) }
        if opcode == 0 && message == nil { return fail(.unexpectedContinuation, i) }
        if isData && message != nil { return fail(.expectedContinuation, i) }
        guard i + 1 < n else { return fail(.truncatedFrame, i) }

        let masked = s[i + 1] & 0x80 != 0
        if masked && c.role == .client { return fail(.maskedFrame, i + 1) }
        if !masked && c.role == .server { return fail(.unmaskedFrame, i + 1) }
        let short = Int(s[i + 1] & 0x7F)
        if control && short > 125 { return fail(.controlFrameTooLong, i + 1) }
        var length = short, header = 2
        if short == 126 {
            guard i + 4 <= n else { return fail(.truncatedFrame, i) }
            length = Int(s[i + 2]) * 256 + Int(s[i + 3])
            if length < 126 { return fail(.nonMinimalLength, i + 2) }
            header = 4
        } else if short == 127 {
            guard i + 10 <= n else { return fail(.truncatedFrame, i) }
            if s[i + 2] >= 0x80 { return fail(.lengthTooLarge, i + 2) }
            var value = 0
            for k in 2..<10 { value = value * 256 + Int(s[i + k]) }
            if value <= 65_535 { return fail(.nonMinimalLength, i + 2) }
            length = value
            header = 10
        }
        let lengthAt = short < 126 ? i + 1 : i + 2
        if !control && length > c.limits.maxFramePayloadSize { return fail(.frameTooLarge, lengthAt) }
        if !control && (message?.size ?? 0) + length > c.limits.maxMessageSize { return fail(.messageTooLarge, lengthAt) }
        var key: [UInt8] = [0, 0, 0, 0]
        if masked {
            guard i + header + 4 <= n else { return fail(.truncatedFrame, i) }
            key = Array(s[(i + header)..<(i + header + 4)])
            header += 4
        }
        let start = i + header

        if control {
            guard start + length <= n else { return fail(.truncatedFrame, i) }
            let payload = (0..<length).map { s[start + $0] ^ key[$0 % 4] }
            var code: UInt16?
            if opcode == 8 && length > 0 {
                if length == 1 { return fail(.closePayload, start) }
                let raw = UInt16(payload[0]) << 8 | UInt16(payload[1])
                let valid = (1000...1003).contains(raw) || (1007...1014).contains(raw) || (3000...4999).contains(raw)
                if !valid { return fail(.closeCode, start) }
                var utf8 = ReferenceUTF8()
                for k in 2..<length where !utf8.accept(payload[k]) { return fail(.closeReason, start + k) }
                if !utf8.isComplete { return fail(.closeReason, start + length) }
                code = raw
            }
            record(.control(WebSocketOpcode(rawValue: opcode)!, payload, closeCode: code), into: &events)
            closed = opcode == 8
            i = start + length
            continue
        }

        if message == nil {
            record(.start(WebSocketOpcode(rawValue: opcode)!, compressed: rsv1), into: &events)
            message = (opcode, 0, opcode == 1 && !rsv1 ? ReferenceUTF8() : nil)
        }
        message!.size += length
        let available = min(length, n - start)
        var bytes: [UInt8] = []
        for k in 0..<available {
            let b = s[start + k] ^ key[k % 4]
            if message!.utf8 != nil && !message!.utf8!.accept(b) {
                record(.data(bytes), into: &events)
                return fail(.invalidUTF8, start + k)
            }
            bytes.append(b)
        }
        record(.data(bytes), into: &events)
        if available < length { return fail(.truncatedFrame, n) }
        i = start + length
        if fin {
            if let utf8 = message!.utf8, !utf8.isComplete { return fail(.invalidUTF8, i) }
            record(.end, into: &events)
            message = nil
        }
    }
    if !closed && message != nil { return fail(.truncatedFrame, n) }
    return events
}
