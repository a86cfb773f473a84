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
        var start = 0
        while let found = firstIndex(of: begin, in: bytes, from: start) {
            var cursor = found + begin.count
            while cursor + end.count <= bytes.count, bytes[cursor] != UInt8(ascii: "\n") {
                if matches(end, in: bytes, at: cursor) { return true }
                cursor += 1
            }
            start = found + 1
        }
        return false
    }

    /// Whether `bytes` can be a DER private key: every structure OpenSSL's `d2i_AutoPrivateKey`
    /// decodes (PKCS#8, and the RSA, EC and DSA ones) is a SEQUENCE, whose first octet is 0x30.
    static func mayBeDERSequence(_ bytes: [UInt8]) -> Bool { bytes.first == 0x30 }

    /// The first index at or after `start` where `needle` occurs in `bytes`.
    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where matches(needle, in: bytes, at: index) { return index }
        return nil
    }

    /// Whether `needle` occurs in `bytes` at `index` (which leaves room for it).
    private static func matches(_ needle: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        for offset in needle.indices where bytes[index + offset] != needle[offset] { return false }
        return true
    }
}
