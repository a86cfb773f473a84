// Incremental UTF-8 validation for text messages (RFC 6455 §8.1, RFC 3629 §4).
//
// A text message arrives in frames, and frames in reads: a multi-byte sequence can be split
// anywhere. The validator keeps the only state that crosses a split, the bytes still owed by the
// current sequence and the range the next one must fall in, so the verdict does not depend on the
// split. It fails at the first byte that cannot continue any valid sequence (Autobahn's "fail
// fast" cases 6.x): for ED A0 (a surrogate) that is A0, not the end of the message.
//
//   ready ──00–7F──▶ ready
//     ├──C2–DF──▶ need(1, 80–BF)
//     ├──E0──▶ need(2, A0–BF)   (no overlong 3-byte forms)
//     ├──ED──▶ need(2, 80–9F)   (no surrogates D800–DFFF)
//     ├──E1–EC, EE–EF──▶ need(2, 80–BF)
//     ├──F0──▶ need(3, 90–BF)   (no overlong 4-byte forms)
//     ├──F4──▶ need(3, 80–8F)   (nothing past U+10FFFF)
//     ├──F1–F3──▶ need(3, 80–BF)
//     └──80–C1, F5–FF──▶ invalid
//   need(n, lo–hi) ──byte in lo–hi──▶ need(n-1, 80–BF), or ready when n was 1
//                  └──anything else──▶ invalid

/// Validates UTF-8 incrementally, across any split of the input.
public struct WebSocketUTF8Validator: Sendable, Hashable {
    /// Continuation bytes still owed by the current sequence (0: between characters).
    private var remaining: UInt8 = 0
    /// The range the next continuation byte must fall in.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator between characters.
    public init() {}

    /// Whether the bytes so far end on a character boundary: a message may end here.
    public var isComplete: Bool { remaining == 0 }

    /// Validates `count` bytes at `base`, each XORed with `mask` (rotated to `base`) first when
    /// given, continuing the sequence the previous call left open.
    /// - Returns: the index (from `base`) of the first invalid byte, or `nil` when every byte may
    ///   continue into valid UTF-8. After an invalid byte the validator is left as it was before
    ///   that byte, so a caller may hand out the valid prefix and report the error afterwards.
    public mutating func validate(_ base: UnsafeRawPointer, count: Int, mask: WebSocketMaskKey? = nil) -> Int? {
        var i = 0
        if let mask {
            while i < count {
                if !consume(base.load(fromByteOffset: i, as: UInt8.self) ^ mask[i]) { return i }
                i += 1
            }
            return nil
        }
        // The state lives in a local copy for the loop, written back on every exit: through `self`
        // it was reloaded and stored per byte (measured figures in the commit adding this).
        var state = self
        defer { self = state }
        while i < count {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            if b < 0x80 && state.remaining == 0 {
                // An ASCII byte between characters: skip the ASCII run after it 8 bytes at a time
                // (text is mostly ASCII; multi-byte text does not pay for the word test per byte).
                i += 1
                while i + 8 <= count, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                }
                continue
            }
            if !state.consume(b) { return i }
            i += 1
        }
        return nil
    }

    /// Validates the bytes of `buffer` (see ``validate(_:count:mask:)``).
    public mutating func validate(_ buffer: UnsafeRawBufferPointer) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        return validate(base, count: buffer.count)
    }

    /// One byte through the state diagram in the file header; `false` when it is invalid here.
    @inline(__always)
    private mutating func consume(_ b: UInt8) -> Bool {
        if remaining > 0 {
            guard b >= lower && b <= upper else { return false }
            remaining -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch b {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: remaining = 1
        case 0xE0: remaining = 2; lower = 0xA0
        case 0xED: remaining = 2; upper = 0x9F
        case 0xE1...0xEC, 0xEE...0xEF: remaining = 2
        case 0xF0: remaining = 3; lower = 0x90
        case 0xF4: remaining = 3; upper = 0x8F
        case 0xF1...0xF3: remaining = 3
        default: return false
        }
        return true
    }
}
