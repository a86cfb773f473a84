import Testing
@testable import Wire

/// `Scan.equalsIgnoringCase` compares 8 bytes at a time from 8 bytes up: it must agree with a
/// byte-by-byte ASCII case fold for every byte value at every position, for the names and values
/// Framing looks for (5 to 17 bytes long, so the word path, its overlapping last word, and the
/// byte path all run).
@Suite("Case-insensitive comparison")
struct CaseInsensitiveTests {
    static let patterns: [StaticString] = [
        "close", "chunked", "keep-alive", "connection", "content-length", "transfer-encoding",
    ]

    private static func reference(_ bytes: [UInt8], _ pattern: StaticString) -> Bool {
        let expected = Array(UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount))
        guard bytes.count == expected.count else { return false }
        return zip(bytes, expected).allSatisfy { b, e in (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) == e }
    }

    private static func compare(_ bytes: [UInt8], _ pattern: StaticString, offset: Int) -> Bool {
        // Padding on both sides, so a read outside `range` would show as a wrong answer here and
        // as an overflow under `swift test --sanitize=address`.
        let padded = [UInt8](repeating: 0x61, count: offset) + bytes + [UInt8](repeating: 0x61, count: 3)
        return padded.withUnsafeBytes { raw in
            Scan.equalsIgnoringCase(raw.baseAddress!, offset..<(offset + bytes.count), pattern)
        }
    }

    @Test("every byte value at every position, at several alignments", arguments: 0..<6)
    func everyByte(_ which: Int) {
        let pattern = Self.patterns[which]
        let base = Array(UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount))
        for offset in 0..<3 {
            #expect(Self.compare(base, pattern, offset: offset))
            #expect(Self.compare(base.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, pattern, offset: offset))
            #expect(!Self.compare(Array(base.dropLast()), pattern, offset: offset))
            for position in base.indices {
                for value in 0...255 {
                    var bytes = base
                    bytes[position] = UInt8(value)
                    #expect(
                        Self.compare(bytes, pattern, offset: offset) == Self.reference(bytes, pattern),
                        "\(pattern): byte \(value) at \(position), offset \(offset)"
                    )
                }
            }
        }
    }
}
