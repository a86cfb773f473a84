/// Cheap checks that refuse key input OpenSSL could never decode, before OpenSSL 3 builds a
/// decoder context for it.
///
/// Building an `OSSL_DECODER_CTX` walks every provider's decoders under the method store's lock,
/// which costs far more than reading the input (most of the time of a failed key load). Each check
/// here accepts a superset of what OpenSSL 3 accepts, so a key that loads today still loads; only
/// the cost of refusing changes. `KeyInputPrefilterTests` compares them with OpenSSL's verdicts.
enum KeyInputPrefilter {
    /// Whether `bytes` can hold a PEM block whose label ends in `labelSuffix` (`"PRIVATE KEY"`,
    /// `"PUBLIC KEY"`): some `-----BEGIN ` followed on the same line by `labelSuffix` and `-----`.
    ///
    /// OpenSSL's PEM reader is stricter: `-----BEGIN ` starts the line, the label runs to the
    /// line's closing `-----`, and only whitespace may follow. Every label its key decoders (and
    /// the legacy fallback for private keys) take ends in `PRIVATE KEY` or `PUBLIC KEY`.
    static func mayHoldPEMBlock(_ bytes: [UInt8], labelSuffix: String) -> Bool {
        let begin: [UInt8] = Array("-----BEGIN ".utf8)
        let end: [UInt8] = Array((labelSuffix + "-----").utf8)
        // One pass, line by line: the first BEGIN of a line, then the label's end after it on the
        // same line. Linear in the input, however many BEGINs a hostile line repeats.
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if let found = firstIndex(of: begin, in: bytes, from: lineStart, before: lineEnd),
               firstIndex(of: end, in: bytes, from: found + begin.count, before: lineEnd) != nil {
                return true
            }
            lineStart = lineEnd + 1
        }
        return false
    }

    /// Whether `bytes` can be a DER private key: every structure OpenSSL's `d2i_AutoPrivateKey`
    /// decodes (PKCS#8, and the RSA, EC and DSA ones) is a SEQUENCE, whose first octet is 0x30.
    static func mayBeDERSequence(_ bytes: [UInt8]) -> Bool { bytes.first == 0x30 }

    /// The first index at or after `start` where `needle` occurs in `bytes`, ending at or before
    /// `limit` (the whole input by default).
    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int, before limit: Int? = nil) -> Int? {
        let limit = min(limit ?? bytes.count, bytes.count)
        guard !needle.isEmpty, start >= 0, limit - needle.count >= start else { return nil }
        for index in start...(limit - needle.count) where matches(needle, in: bytes, at: index) { return index }
        return nil
    }

    /// Whether `needle` occurs in `bytes` at `index` (which leaves room for it).
    private static func matches(_ needle: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        for offset in needle.indices where bytes[index + offset] != needle[offset] { return false }
        return true
    }
}
