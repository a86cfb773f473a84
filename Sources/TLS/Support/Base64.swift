/// Standard base64 (RFC 4648 section 4, with `=` padding), used for curl-style public key pins
/// (`sha256//BASE64`). Pure Swift so it is table-testable without OpenSSL.
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes as padded base64.
    ///
    /// - Parameter bytes: the bytes to encode; empty input gives an empty string.
    /// - Returns: the base64 text, always a multiple of four characters.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((word >> UInt32(shift)) & 0x3F)]) }
            index += 3
        }
        let remaining = input.count - index
        if remaining > 0 {
            var word = UInt32(input[index]) << 16
            if remaining == 2 { word |= UInt32(input[index + 1]) << 8 }
            output.append(alphabet[Int((word >> 18) & 0x3F)])
            output.append(alphabet[Int((word >> 12) & 0x3F)])
            output.append(remaining == 2 ? alphabet[Int((word >> 6) & 0x3F)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded base64 strictly: no whitespace, no URL-safe alphabet, correct padding,
    /// and unused trailing bits must be zero (so every byte string has exactly one encoding).
    ///
    /// - Parameter text: the base64 text.
    /// - Returns: the decoded bytes.
    /// - Throws: ``TLSError`` of kind ``TLSError/Kind/decoding`` for any malformed input.
    public static func decode(_ text: String) throws(TLSError) -> [UInt8] {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else {
            throw TLSError(.decoding, "base64 length \(input.count) is not a multiple of 4")
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: [UInt32] = []
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if byte == UInt8(ascii: "=") {
                    // Padding is only allowed in the last one or two positions of the last quantum.
                    guard isLast, offset >= 2 else { throw TLSError(.decoding, "misplaced base64 padding at \(index + offset)") }
                    padding += 1
                    values.append(0)
                } else {
                    guard padding == 0, let value = sextet(byte) else {
                        throw TLSError(.decoding, "invalid base64 byte 0x\(String(byte, radix: 16)) at \(index + offset)")
                    }
                    values.append(value)
                }
            }
            let word = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            let bytes = [UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
            // Non-canonical encodings (non-zero bits under the padding) are refused.
            if padding == 1, bytes[2] != 0 { throw TLSError(.decoding, "non-canonical base64 ending") }
            if padding == 2, bytes[1] != 0 || bytes[2] != 0 { throw TLSError(.decoding, "non-canonical base64 ending") }
            output.append(contentsOf: bytes.prefix(3 - padding))
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
