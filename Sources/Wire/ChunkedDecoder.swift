// The chunked transfer coding's framing (RFC 9112 §7.1), one explicit state per position:
//
//   size ──hex──▶ size ──BWS──▶ sizeWhitespace ──";"──▶ extensions(…) ──CR──▶ sizeLF
//     │            └──";"──▶ extensions(…)        └──CR──▶ sizeLF
//     └──CR──▶ sizeLF ──LF──▶ data(n) (n > 0) ─▶ dataCR ─▶ dataLF ─▶ size
//                      └─LF──▶ (last chunk: the caller reads the trailer section)
//
// Extensions follow their grammar (RFC 9112 §7.1.1), one `ExtensionPosition` per place in it:
//
//   chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//   chunk-ext-name = token;  chunk-ext-val = token / quoted-string (RFC 9110 §5.6.4)
//
// Framing bytes are consumed one at a time (there are few per chunk); chunk data is handed out as
// ranges of the input, never copied. Every deviation is an error: a bare LF or CR, a missing
// size, a size that overflows 63 bits, an extension off its grammar, data not followed by CRLF,
// and framing that outweighs its data past ``ParserLimits/maxChunkedOverhead``.

/// Decodes chunked framing incrementally.
struct ChunkedDecoder: Sendable {
    /// Where in the chunk grammar the next byte falls.
    enum State: Sendable, Hashable {
        /// Reading the chunk size's hex digits. Exits: a digit (stay), BWS, ";", CR.
        case size(value: Int, digits: Int)
        /// After the size, before `;` or CR (BWS of RFC 9112 §7.1.1). Exits: SP/HTAB (stay), ";", CR.
        case sizeWhitespace(value: Int)
        /// Inside chunk extensions, at `position` in their grammar, `length` bytes after the first
        /// `;`. Exits: bytes the grammar allows (stay), CR where an extension may end.
        case extensions(value: Int, length: Int, position: ExtensionPosition)
        /// After the size line's CR. Exits: LF to data, or to the trailer section for size 0.
        case sizeLF(value: Int)
        /// Inside chunk data. Exits: dataCR once `remaining` bytes have been handed out.
        case data(remaining: Int)
        /// After chunk data, expecting CR. Exit: dataLF.
        case dataCR
        /// Expecting the LF after chunk data. Exit: size.
        case dataLF
    }

    /// What one call produced.
    enum Step: Sendable, Equatable {
        /// Chunk data at these offsets; everything up to `range.upperBound` is consumed.
        case data(Range<Int>)
        /// All bytes up to `consumed` were framing; more input is needed.
        case needMore(consumed: Int)
        /// The last chunk's size line ended at `consumed`; the trailer section follows.
        case lastChunk(consumed: Int)
    }

    /// Where inside a chunk extension the next byte falls (RFC 9112 §7.1.1).
    enum ExtensionPosition: UInt8, Sendable, Hashable {
        /// After `;`: BWS, then the first byte of a name.
        case nameStart
        /// Inside a name: token bytes, BWS, `=`, `;` or CR.
        case name
        /// After a name and BWS: `=`, `;` or CR.
        case afterName
        /// After `=`: BWS, then a token byte or `"`.
        case valueStart
        /// Inside a token value: token bytes, BWS, `;` or CR.
        case token
        /// Inside a quoted string: qdtext, `\` or the closing `"`.
        case quoted
        /// After `\` in a quoted string: HTAB, SP, VCHAR or obs-text.
        case quotedPair
        /// After a value: BWS, `;` or CR.
        case afterValue
    }

    private(set) var state: State = .size(value: 0, digits: 0)
    /// Framing bytes (size lines, extensions, the CRLF after data) consumed so far in this body.
    private var overhead = 0
    /// Chunk data bytes handed out so far in this body.
    private var dataBytes = 0

    /// Whether the decoder sits exactly between chunks (used to tell a clean end from truncation).
    var isAtChunkBoundary: Bool { state == .size(value: 0, digits: 0) }

    /// Decodes from `p[from..<end]`.
    mutating func decode(_ p: UnsafeRawPointer, from: Int, end: Int, limits: ParserLimits) throws(WireError) -> Step {
        var i = from
        while i < end {
            if case .data(let remaining) = state {
                let count = min(remaining, end - i)
                state = remaining == count ? .dataCR : .data(remaining: remaining - count)
                dataBytes += count
                return .data(i..<(i + count))
            }
            // Every framing byte counts, checked as it is read, so the error sits at the same
            // offset however the input is split.
            overhead += 1
            if overhead > limits.maxChunkedOverhead && dataBytes <= (overhead - 1) / 3 {
                throw WireError(.chunkedOverhead, "\(overhead) bytes of chunked framing for \(dataBytes) bytes of data", offset: i)
            }
            let b = Scan.byte(p, i)
            switch state {
            case .size(let value, let digits):
                if let digit = Self.hexValue(b) {
                    guard digits < limits.maxChunkSizeDigits else {
                        throw WireError(.chunkSizeTooLong, "chunk size longer than \(limits.maxChunkSizeDigits) digits", offset: i)
                    }
                    guard value <= (Int.max - digit) >> 4 else {
                        throw WireError(.chunkSize, "chunk size does not fit in 63 bits", offset: i)
                    }
                    state = .size(value: value << 4 | digit, digits: digits + 1)
                } else if digits == 0 {
                    throw WireError(.chunkSize, "missing or invalid chunk size (0x\(hex(b)))", offset: i)
                } else {
                    state = try Self.afterSize(b, value: value, at: i)
                }
            case .sizeWhitespace(let value):
                state = try Self.afterSize(b, value: value, at: i)
            case .extensions(let value, let length, let position):
                if b == ASCII.lf {
                    throw WireError(.bareLF, "chunk-size line ends in LF without CR", offset: i)
                } else if b == ASCII.cr {
                    guard position.canEnd else {
                        throw WireError(.chunkExtension, "chunk-size line ends inside an extension (\(position))", offset: i)
                    }
                    state = .sizeLF(value: value)
                } else {
                    let next = try Self.extensionStep(b, after: position, at: i)
                    guard length < limits.maxChunkExtensionLength else {
                        throw WireError(.chunkExtensionTooLong, "chunk extensions longer than \(limits.maxChunkExtensionLength) bytes", offset: i)
                    }
                    state = .extensions(value: value, length: length + 1, position: next)
                }
            case .sizeLF(let value):
                guard b == ASCII.lf else { throw WireError(.bareCR, "CR not followed by LF after chunk size", offset: i) }
                if value == 0 {
                    state = .size(value: 0, digits: 0)
                    return .lastChunk(consumed: i + 1)
                }
                state = .data(remaining: value)
            case .dataCR:
                guard b == ASCII.cr else { throw WireError(.chunkTerminator, "chunk data not followed by CRLF", offset: i) }
                state = .dataLF
            case .dataLF:
                guard b == ASCII.lf else { throw WireError(.chunkTerminator, "chunk data not followed by CRLF", offset: i) }
                state = .size(value: 0, digits: 0)
            case .data:
                preconditionFailure("unreachable: data is handled above")
            }
            i += 1
        }
        return .needMore(consumed: end)
    }

    /// The transition for a byte after at least one size digit.
    private static func afterSize(_ b: UInt8, value: Int, at i: Int) throws(WireError) -> State {
        switch b {
        case ASCII.space, ASCII.tab: return .sizeWhitespace(value: value)
        case ASCII.semicolon: return .extensions(value: value, length: 0, position: .nameStart)
        case ASCII.cr: return .sizeLF(value: value)
        case ASCII.lf: throw WireError(.bareLF, "chunk-size line ends in LF without CR", offset: i)
        default: throw WireError(.chunkSize, "invalid character 0x\(hex(b)) after chunk size", offset: i)
        }
    }

    /// The position after byte `b` (not CR or LF) inside an extension, or the grammar's error.
    private static func extensionStep(_ b: UInt8, after position: ExtensionPosition, at i: Int) throws(WireError) -> ExtensionPosition {
        let isSpace = b == ASCII.space || b == ASCII.tab
        switch position {
        case .nameStart:
            if isSpace { return .nameStart }
            if TokenSet.contains(b) { return .name }
        case .name, .afterName:
            if position == .name && TokenSet.contains(b) { return .name }
            if isSpace { return .afterName }
            if b == ASCII.equals { return .valueStart }
            if b == ASCII.semicolon { return .nameStart }
        case .valueStart:
            if isSpace { return .valueStart }
            if b == ASCII.quote { return .quoted }
            if TokenSet.contains(b) { return .token }
        case .token, .afterValue:
            if position == .token && TokenSet.contains(b) { return .token }
            if isSpace { return .afterValue }
            if b == ASCII.semicolon { return .nameStart }
        case .quoted:
            if b == ASCII.quote { return .afterValue }
            if b == ASCII.backslash { return .quotedPair }
            if b == ASCII.tab || (b >= ASCII.space && b != ASCII.del) { return .quoted }
        case .quotedPair:
            if b == ASCII.tab || (b >= ASCII.space && b != ASCII.del) { return .quoted }
        }
        throw WireError(.chunkExtension, "byte 0x\(hex(b)) not allowed in a chunk extension (\(position))", offset: i)
    }

    @inline(__always)
    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }
}

extension ChunkedDecoder.ExtensionPosition {
    /// Whether a CR may end the chunk-size line here: after a name or a complete value. Trailing
    /// BWS before the CR is accepted, as it is after a bare size (see ``ChunkedDecoder``).
    var canEnd: Bool {
        switch self {
        case .name, .afterName, .token, .afterValue: return true
        case .nameStart, .valueStart, .quoted, .quotedPair: return false
        }
    }
}
