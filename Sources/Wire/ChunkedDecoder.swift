// The chunked transfer coding's framing (RFC 9112 §7.1), one explicit state per position:
//
//   size ──hex──▶ size ──BWS──▶ sizeWhitespace ──";"──▶ extension ──CR──▶ sizeLF
//     │            └──";"──▶ extension            └──CR──▶ sizeLF
//     └──CR──▶ sizeLF ──LF──▶ data(n) (n > 0) ─▶ dataCR ─▶ dataLF ─▶ size
//                      └─LF──▶ (last chunk: the caller reads the trailer section)
//
// Framing bytes are consumed one at a time (there are few per chunk); chunk data is handed out as
// ranges of the input, never copied. Every deviation is an error: a bare LF or CR, a missing
// size, a size that overflows 63 bits, a control character in an extension, data not followed
// by CRLF.

/// Decodes chunked framing incrementally.
struct ChunkedDecoder: Sendable {
    /// Where in the chunk grammar the next byte falls.
    enum State: Sendable, Hashable {
        /// Reading the chunk size's hex digits. Exits: a digit (stay), BWS, ";", CR.
        case size(value: Int, digits: Int)
        /// After the size, before `;` or CR (BWS of RFC 9112 §7.1.1). Exits: SP/HTAB (stay), ";", CR.
        case sizeWhitespace(value: Int)
        /// Inside chunk extensions. Exits: allowed bytes (stay), CR.
        case extensions(value: Int, length: Int)
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

    private(set) var state: State = .size(value: 0, digits: 0)

    /// Whether the decoder sits exactly between chunks (used to tell a clean end from truncation).
    var isAtChunkBoundary: Bool { state == .size(value: 0, digits: 0) }

    /// Decodes from `p[from..<end]`.
    mutating func decode(_ p: UnsafeRawPointer, from: Int, end: Int, limits: ParserLimits) throws(WireError) -> Step {
        var i = from
        while i < end {
            if case .data(let remaining) = state {
                let count = min(remaining, end - i)
                state = remaining == count ? .dataCR : .data(remaining: remaining - count)
                return .data(i..<(i + count))
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
            case .extensions(let value, let length):
                if b == ASCII.cr {
                    state = .sizeLF(value: value)
                } else if b == ASCII.lf {
                    throw WireError(.bareLF, "chunk-size line ends in LF without CR", offset: i)
                } else if (b < ASCII.space && b != ASCII.tab) || b == ASCII.del {
                    throw WireError(.chunkExtension, "control character 0x\(hex(b)) in chunk extension", offset: i)
                } else if length >= limits.maxChunkExtensionLength {
                    throw WireError(.chunkExtensionTooLong, "chunk extensions longer than \(limits.maxChunkExtensionLength) bytes", offset: i)
                } else {
                    state = .extensions(value: value, length: length + 1)
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
        case ASCII.semicolon: return .extensions(value: value, length: 0)
        case ASCII.cr: return .sizeLF(value: value)
        case ASCII.lf: throw WireError(.bareLF, "chunk-size line ends in LF without CR", offset: i)
        default: throw WireError(.chunkSize, "invalid character 0x\(hex(b)) after chunk size", offset: i)
        }
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
