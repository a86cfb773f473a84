// A slow reading of a chunked body (RFC 9112 §7.1) with the parser's documented choices: BWS
// after the size, extensions by their grammar (§7.1.1) with BWS also before the CR, strict CRLF,
// every chunk limit, and the framing-overhead bound (framing over `maxChunkedOverhead` bytes and
// over three times the data, judged at the end of each size line: framing only grows between
// two chunks' data, so that is where it is largest). The
// bytes the parser consumed between a head and its end must be exactly one such body, with the
// same data and trailers; and a body this reading accepts must not be rejected by the parser.

import Wire

/// A chunked body as the reference reads it.
struct ReferenceChunkedBody {
    var data: [UInt8] = []
    var trailers: [CopiedField] = []
    /// The bytes of framing, data and trailer section, through the trailer section's empty line.
    var length = 0

    /// Reads the chunked body at the start of `bytes`; what follows it is left alone.
    /// - Throws: a description when the bytes are not one complete chunked body within `limits`.
    init(_ bytes: ArraySlice<UInt8>, limits: ParserLimits) throws(Disagreement) {
        var i = bytes.startIndex
        var overhead = 0
        while true {
            let lineStart = i
            // chunk-size: 1*HEXDIG, within the digit limit and 63 bits.
            var size = 0
            var digits = 0
            while i < bytes.endIndex, let digit = Self.hexValue(bytes[i]) {
                guard size <= (Int.max - digit) / 16 else { throw Disagreement("a chunk size over 63 bits") }
                size = size * 16 + digit
                digits += 1
                i += 1
            }
            guard digits > 0 else { throw Disagreement("a chunk without a size at \(i)") }
            guard digits <= limits.maxChunkSizeDigits else {
                throw Disagreement("a \(digits)-digit chunk size, limit \(limits.maxChunkSizeDigits)")
            }
            // BWS, then optional extensions up to the CR.
            Self.skipWhitespace(bytes, &i)
            if i < bytes.endIndex && bytes[i] == 0x3B {
                let start = i + 1
                try Self.readExtensions(bytes, &i)
                guard i - start <= limits.maxChunkExtensionLength else {
                    throw Disagreement("\(i - start) bytes of chunk extensions, limit \(limits.maxChunkExtensionLength)")
                }
            }
            try Self.expectCRLF(bytes, &i, "after the chunk size")
            // The CRLF that ended the previous chunk's data counts as framing too.
            overhead += i - lineStart + (lineStart == bytes.startIndex ? 0 : 2)
            if overhead > limits.maxChunkedOverhead && data.count * 3 < overhead {
                throw Disagreement("\(overhead) framing bytes for \(data.count) data bytes")
            }
            if size == 0 { break }
            guard bytes.endIndex - i >= size else { throw Disagreement("chunk data runs past the end") }
            data += bytes[i..<(i + size)]
            i += size
            try Self.expectCRLF(bytes, &i, "after chunk data")
        }
        guard let end = ReferenceSection.end(of: bytes[i...], isHeader: false) else { throw Disagreement("no end of the trailer section") }
        guard end - i <= limits.maxTrailerSectionSize else {
            throw Disagreement("a \(end - i)-byte trailer section, limit \(limits.maxTrailerSectionSize)")
        }
        trailers = try ReferenceSection(bytes[i..<end], isHeader: false).fields
        guard trailers.count <= limits.maxFieldCount else {
            throw Disagreement("\(trailers.count) trailer fields, limit \(limits.maxFieldCount)")
        }
        length = end - bytes.startIndex
    }

    private static func expectCRLF(_ bytes: ArraySlice<UInt8>, _ i: inout Int, _ place: String) throws(Disagreement) {
        guard bytes.endIndex - i >= 2, bytes[i] == 0x0D, bytes[i + 1] == 0x0A else {
            throw Disagreement("something other than CRLF \(place) at \(i)")
        }
        i += 2
    }

    /// Reads `*( ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] BWS )` from `i`.
    private static func readExtensions(_ bytes: ArraySlice<UInt8>, _ i: inout Int) throws(Disagreement) {
        while i < bytes.endIndex && bytes[i] == 0x3B {
            i += 1
            skipWhitespace(bytes, &i)
            guard readToken(bytes, &i) else { throw Disagreement("a chunk extension name that is not a token at \(i)") }
            skipWhitespace(bytes, &i)
            if i < bytes.endIndex && bytes[i] == 0x3D {
                i += 1
                skipWhitespace(bytes, &i)
                if i < bytes.endIndex && bytes[i] == 0x22 {
                    try readQuotedString(bytes, &i)
                } else if !readToken(bytes, &i) {
                    throw Disagreement("a chunk extension value that is neither token nor quoted-string at \(i)")
                }
                skipWhitespace(bytes, &i)
            }
        }
    }

    /// Reads a quoted-string starting at its opening quote (RFC 9110 §5.6.4).
    private static func readQuotedString(_ bytes: ArraySlice<UInt8>, _ i: inout Int) throws(Disagreement) {
        i += 1
        while i < bytes.endIndex {
            let b = bytes[i]
            i += 1
            if b == 0x22 { return }
            // qdtext, or the octet after a backslash: HTAB, SP, VCHAR, obs-text.
            var octet = b
            if b == 0x5C {
                guard i < bytes.endIndex else { break }
                octet = bytes[i]
                i += 1
            }
            guard octet == 0x09 || (octet >= 0x20 && octet != 0x7F) else { throw Disagreement("byte \(octet) in a quoted string") }
        }
        throw Disagreement("an unterminated quoted string")
    }

    /// Reads one or more token bytes; false if there is none.
    private static func readToken(_ bytes: ArraySlice<UInt8>, _ i: inout Int) -> Bool {
        let start = i
        while i < bytes.endIndex && ReferenceSection.isTokenByte(bytes[i]) { i += 1 }
        return i > start
    }

    private static func skipWhitespace(_ bytes: ArraySlice<UInt8>, _ i: inout Int) {
        while i < bytes.endIndex && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }
}
