// Byte-class scanning over borrowed memory: the only unsafe reads in Wire.
//
// Every function takes `base` and `end` where `base[0..<end]` is initialized memory the caller
// borrowed inside a `withUnsafeBytes` scope; no pointer is stored. Offsets are `Int`s into that
// range. Invariant of every wide read: a 16-byte vector is loaded at `i` only while
// `i + 16 <= end`, an 8-byte word only while `i + 8 <= end`, a byte only while `i < end`; so no
// read goes past `end` (WireTests' offset sweeps place the interesting byte in every lane of both
// widths and at the buffer's end; the fuzz targets run with ASan).
//
// Wide loops, by measurement (callgrind, wire-bench (a)): 16 bytes at a time as `SIMD16<UInt8>`
// for the long runs (field names and values), then one 8-byte word, then bytes.

/// ASCII bytes the codec names.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let del: UInt8 = 0x7F
}

/// The token characters of RFC 9110 §5.6.2 as a 128-bit set: bit `b` of `low` (b < 64) or
/// `high` (b ≥ 64) is set when byte `b` is a tchar. Bytes ≥ 0x80 are never tokens.
enum TokenSet {
    // tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    //       / DIGIT / ALPHA
    // Literal constants, not computed: a computed static goes through `swift_once` on every use
    // (measured: 8% of head-parsing instructions under callgrind). TokenSetTests checks them.
    static let low: UInt64 = 0x03FF_6CFA_0000_0000   // ! # $ % & ' * + - . 0-9
    static let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A-Z ^ _ ` a-z | ~

    /// One ASCII flag per byte value, "1" for a tchar: a string literal in read-only data, so a
    /// name byte costs one load (no `swift_once`, no copy, no exclusivity check: each of those
    /// was measured under callgrind). Must agree with `low`/`high` (TokenSetTests).
    static let table: StaticString = """
        0000000000000000000000000000000001011111001101101111111111000000\
        0111111111111111111111111110001111111111111111111111111111101010\
        0000000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000000000000000000000
        """

    /// Whether `byte` is a tchar.
    @inline(__always)
    static func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }
}

/// Word-at-a-time tests (the classic "has a byte less than n" bit tricks). A zero result is exact:
/// no byte of the word is in the class. A nonzero result means at least one is, and its lowest set
/// bit is exact (a borrow starts only at a byte in the class, and moves towards higher bytes), so
/// `firstFlagged` names the first such byte; flags above it may be false positives. Words must be
/// loaded with `Scan.word`, which puts the first byte in the low bits on every platform.
enum SWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Nonzero if some byte of `w` is below 0x20 or equal to 0x7F (a control character).
    @inline(__always)
    static func hasControl(_ w: UInt64) -> UInt64 {
        let below = (w &- ones &* 0x20) & ~w & highs
        let x = w ^ (ones &* 0x7F)
        let del = (x &- ones) & ~x & highs
        return below | del
    }

    /// Nonzero if some byte of `w` equals `byte`.
    @inline(__always)
    static func hasByte(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    /// 0x20 in each byte of `w` that is a lowercase ASCII letter, 0 elsewhere; every byte of `w`
    /// must be ASCII (below 0x80), so the additions do not carry between bytes.
    @inline(__always)
    static func lowercaseLetterBits(_ w: UInt64) -> UInt64 {
        // b + 0x1F reaches 0x80 from b = 0x61 ("a"); b + 0x05 from b = 0x7B (past "z").
        let letters = (w &+ ones &* 0x1F) & ~(w &+ ones &* 0x05) & highs
        return letters &>> 2
    }

    /// The index (0 to 7) of the byte whose flag is the lowest set bit of `flags` (nonzero).
    @inline(__always)
    static func firstFlagged(_ flags: UInt64) -> Int {
        flags.trailingZeroBitCount &>> 3
    }
}

/// 16-byte tests on `SIMD16<UInt8>`. Swift lowers the vector's wrapping arithmetic and bitwise
/// operators to SSE2 instructions, but its comparisons (`.<`, `.==`) to a loop over the lanes
/// (checked in the generated assembly, Swift 6.3.1), so these tests use arithmetic only: each
/// lane's high bit answers for that lane. Lanes do not borrow from each other, so every flag is
/// exact, not only the first.
enum Vector {
    typealias Bytes = SIMD16<UInt8>

    /// Lane flag (0x80) where the byte is a control character: below 0x20, or 0x7F.
    @inline(__always)
    static func controls(_ v: Bytes) -> Bytes {
        // v - 0x20 has its high bit set for v < 0x20 and for v >= 0xA0; `& ~v` drops v >= 0x80.
        let below = (v &- Bytes(repeating: 0x20)) & ~v
        let x = v ^ Bytes(repeating: 0x7F)
        // x - 1 has its high bit set for x == 0 (v == 0x7F) and for x >= 0x81 (v >= 0x80, dropped).
        let del = (x &- Bytes(repeating: 0x01)) & ~v
        return (below | del) & Bytes(repeating: 0x80)
    }

    /// Lane flag (0x80) where the byte is *not* an ASCII letter, digit or `-`: the tchars that make
    /// up nearly every field name. A flagged lane may still be another tchar (`_`, `.`, `!`, ...).
    @inline(__always)
    static func notAlphanumericOrDash(_ v: Bytes) -> Bytes {
        // `t in 0..<n` (t a byte) is the high bit of (t - n) & ~t.
        let letter = (v | Bytes(repeating: 0x20)) &- Bytes(repeating: 0x61)  // a-z, A-Z -> 0..<26
        let isLetter = (letter &- Bytes(repeating: 26)) & ~letter
        let digit = v &- Bytes(repeating: 0x30)                                // 0-9 -> 0..<10
        let isDigit = (digit &- Bytes(repeating: 10)) & ~digit
        let dash = v ^ Bytes(repeating: 0x2D)                                  // '-' -> 0
        let isDash = (dash &- Bytes(repeating: 1)) & ~dash
        return ~(isLetter | isDigit | isDash) & Bytes(repeating: 0x80)
    }

    /// The index (0 to 15) of the first flagged lane of `flags`, or `nil` when none is.
    @inline(__always)
    static func firstFlagged(_ flags: Bytes) -> Int? {
        let halves = unsafeBitCast(flags, to: SIMD2<UInt64>.self)
        // Lane 0 is the lowest address: the low byte of the first half once read as little-endian.
        let low = UInt64(littleEndian: halves[0]), high = UInt64(littleEndian: halves[1])
        if low != 0 { return low.trailingZeroBitCount &>> 3 }
        if high != 0 { return 8 &+ high.trailingZeroBitCount &>> 3 }
        return nil
    }
}

/// Scanners over `base[0..<end]`.
enum Scan {
    /// Returns the offset of the first LF at or after `from`, or `nil`.
    @inline(__always)
    static func lineFeed(_ base: UnsafeRawPointer, from: Int, end: Int) -> Int? {
        var i = from
        while i &+ 8 <= end {
            if SWAR.hasByte(word(base, i, end: end), ASCII.lf) != 0 { break }
            i &+= 8
        }
        while i < end {
            // SAFETY: i < end.
            if base.load(fromByteOffset: i, as: UInt8.self) == ASCII.lf { return i }
            i &+= 1
        }
        return nil
    }

    /// Skips field-value bytes that need no attention (VCHAR, SP, obs-text) from `from`, and
    /// returns the offset of the first byte that does (a control character, including HTAB, CR, LF,
    /// NUL), or `end`.
    @inline(__always)
    static func plainValueBytes(_ base: UnsafeRawPointer, from: Int, end: Int) -> Int {
        var i = from
        while i &+ 16 <= end {
            if let k = Vector.firstFlagged(Vector.controls(vector(base, i, end: end))) { return i &+ k }
            i &+= 16
        }
        if i &+ 8 <= end {
            let flags = SWAR.hasControl(word(base, i, end: end))
            if flags != 0 { return i &+ SWAR.firstFlagged(flags) }
            i &+= 8
        }
        while i < end {
            let b = byte(base, i)  // i < end
            if b < ASCII.space || b == ASCII.del { return i }
            i &+= 1
        }
        return end
    }

    /// Returns the offset of the first byte at or after `from` that is not a tchar, or `end`.
    @inline(__always)
    static func tokenBytes(_ base: UnsafeRawPointer, from: Int, end: Int) -> Int {
        let table = TokenSet.table.utf8Start
        var i = from
        while i &+ 16 <= end {
            guard let k = Vector.firstFlagged(Vector.notAlphanumericOrDash(vector(base, i, end: end))) else {
                i &+= 16
                continue
            }
            i &+= k
            // A table index is a byte value, so it is inside the 256-entry table.
            if table[Int(byte(base, i))] != 0x31 { return i }
            i &+= 1  // a rarer tchar (`_`, `.`, ...): keep going
        }
        while i < end {
            // A byte value indexes the 256-entry table in bounds.
            if table[Int(byte(base, i))] != 0x31 { return i }
            i &+= 1
        }
        return end
    }

    /// Loads the 16 bytes at `i`; the caller guarantees `i + 16 <= end`.
    @inline(__always)
    static func vector(_ base: UnsafeRawPointer, _ i: Int, end: Int) -> Vector.Bytes {
        assert(i >= 0 && i &+ 16 <= end)
        // SAFETY: i + 16 <= end, so bytes i..<i+16 are inside the borrowed range.
        return base.loadUnaligned(fromByteOffset: i, as: Vector.Bytes.self)
    }

    /// Loads the 8 bytes at `i` with the byte at `i` in the low bits; the caller guarantees
    /// `i + 8 <= end`.
    @inline(__always)
    static func word(_ base: UnsafeRawPointer, _ i: Int, end: Int) -> UInt64 {
        assert(i >= 0 && i &+ 8 <= end)
        // SAFETY: i + 8 <= end, so bytes i..<i+8 are inside the borrowed range.
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
    }

    /// Reads the byte at `i`; the caller guarantees `i < end`.
    @inline(__always)
    static func byte(_ base: UnsafeRawPointer, _ i: Int) -> UInt8 {
        base.load(fromByteOffset: i, as: UInt8.self)
    }

    /// Whether `base[range]` equals `lowercase` ignoring ASCII case. `lowercase` must be lowercase
    /// ASCII. `range` must lie inside the borrowed bytes.
    ///
    /// Eight bytes at a time from 8 bytes up (the last word overlaps the one before it): the field
    /// names and values Framing looks for are 10 to 17 bytes long (measured under callgrind:
    /// about a third of Framing's instructions per head went to the byte loop).
    @inline(__always)
    static func equalsIgnoringCase(_ base: UnsafeRawPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard range.count == count else { return false }
        let expected = UnsafeRawPointer(lowercase.utf8Start)
        if count >= 8 {
            var at = 0
            while true {
                // SAFETY: at + 8 <= count, the length of both `lowercase` and `range`.
                let e = UInt64(littleEndian: expected.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                let w = word(base, range.lowerBound &+ at, end: range.upperBound)
                // OR-ing 0x20 into the bytes where `lowercase` has a letter folds an uppercase
                // letter onto it and nothing else onto a letter; other bytes must match exactly.
                if w | SWAR.lowercaseLetterBits(e) != e { return false }
                if at == count &- 8 { return true }
                at = min(at &+ 8, count &- 8)
            }
        }
        var i = 0
        while i < count {
            var b = byte(base, range.lowerBound &+ i)  // i < range.count
            if b >= 0x41 && b <= 0x5A { b |= 0x20 }
            if b != expected.load(fromByteOffset: i, as: UInt8.self) { return false }
            i &+= 1
        }
        return true
    }
}
