// Byte-class scanning over borrowed memory: the only unsafe reads in Wire.
//
// Every function takes `base` and `end` where `base[0..<end]` is initialized memory the caller
// borrowed inside a `withUnsafeBytes` scope; no pointer is stored. Offsets are `Int`s into that
// range. The wide loops read 8 bytes at a time with `loadUnaligned` and only while `i + 8 <= end`,
// so they never read past `end` (the guard-page tests in WireTests check this under ASan).

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
/// no byte of the word is in the class. A nonzero result means at least one is; the caller then
/// looks byte by byte, so false positives after the first hit do not matter.
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
}

/// Scanners over `base[0..<end]`.
enum Scan {
    /// Returns the offset of the first LF at or after `from`, or `nil`.
    @inline(__always)
    static func lineFeed(_ base: UnsafeRawPointer, from: Int, end: Int) -> Int? {
        var i = from
        while i + 8 <= end {
            // SAFETY: i + 8 <= end, so bytes i..<i+8 are inside the borrowed range.
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if SWAR.hasByte(w, ASCII.lf) != 0 { break }
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
        while i + 8 <= end {
            // SAFETY: i + 8 <= end.
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if SWAR.hasControl(w) != 0 { break }
            i &+= 8
        }
        while i < end {
            // SAFETY: i < end.
            let b = base.load(fromByteOffset: i, as: UInt8.self)
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
        while i < end {
            // SAFETY: i < end; a byte value indexes the 256-entry table in bounds.
            if table[Int(base.load(fromByteOffset: i, as: UInt8.self))] != 0x31 { return i }
            i &+= 1
        }
        return end
    }

    /// Reads the byte at `i`; the caller guarantees `i < end`.
    @inline(__always)
    static func byte(_ base: UnsafeRawPointer, _ i: Int) -> UInt8 {
        base.load(fromByteOffset: i, as: UInt8.self)
    }

    /// Whether `base[range]` equals `lowercase` ignoring ASCII case. `lowercase` must be lowercase ASCII.
    static func equalsIgnoringCase(_ base: UnsafeRawPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        var i = 0
        while i < range.count {
            var b = base.load(fromByteOffset: range.lowerBound + i, as: UInt8.self)
            if b >= 0x41 && b <= 0x5A { b |= 0x20 }
            if b != expected[i] { return false }
            i += 1
        }
        return true
    }
}
