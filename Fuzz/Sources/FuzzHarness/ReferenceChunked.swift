// A slow reading of a chunked body (RFC 9112 §7.1) with the parser's documented choices: BWS
// after the size, extension text of any field-value bytes, strict CRLF. Used on the exact bytes
// the parser consumed between a head and its end event: they must form one complete chunked body
// whose framing respects every chunk limit, with the same data and trailers.

import Wire

/// A chunked body as the reference reads it.
struct ReferenceChunkedBody {
    var data: [UInt8] = []
    var trailers: [CopiedField] = []

    /// Reads `bytes`, which must be exactly one chunked body, last chunk and trailer section included.
    init(_ bytes: ArraySlice<UInt8>, limits: ParserLimits) throws(Disagreement) {
        var i = bytes.startIndex
        while true {
            // chunk-size: 1*HEXDIG, within the digit limit and 63 bits.
            var size = 0
            var digits = 0
            while i < bytes.endIndex, let digit = Self.hexValue(bytes[i]) {
                guard size <= (Int.max - digit) / 16 else { throw Disagreement("accepted a chunk size over 63 bits") }
                size = size * 16 + digit
                digits += 1
                i += 1
            }
            guard digits > 0 else { throw Disagreement("accepted a chunk without a size at \(i)") }
            guard digits <= limits.maxChunkSizeDigits else {
                throw Disagreement("accepted a \(digits)-digit chunk size, limit \(limits.maxChunkSizeDigits)")
            }
            // BWS, then optional extensions up to the CR.
            while i < bytes.endIndex && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
            if i < bytes.endIndex && bytes[i] == 0x3B {
                let start = i + 1
                guard let cr = bytes[start...].firstIndex(where: { !ReferenceSection.isValueByte($0) }) else {
                    throw Disagreement("chunk extension runs to the end")
                }
                guard cr - start <= limits.maxChunkExtensionLength else {
                    throw Disagreement("accepted \(cr - start) bytes of chunk extensions, limit \(limits.maxChunkExtensionLength)")
                }
                i = cr
            }
            try expectCRLF(bytes, &i, "after the chunk size")
            if size == 0 { break }
            guard bytes.endIndex - i >= size else { throw Disagreement("chunk data runs past the consumed bytes") }
            data += bytes[i..<(i + size)]
            i += size
            try expectCRLF(bytes, &i, "after chunk data")
        }
        let section = bytes[i...]
        guard section.count <= limits.maxTrailerSectionSize else {
            throw Disagreement("accepted a \(section.count)-byte trailer section, limit \(limits.maxTrailerSectionSize)")
        }
        trailers = try ReferenceSection(section, isHeader: false).fields
        guard trailers.count <= limits.maxFieldCount else {
            throw Disagreement("accepted \(trailers.count) trailer fields, limit \(limits.maxFieldCount)")
        }
    }

    private func expectCRLF(_ bytes: ArraySlice<UInt8>, _ i: inout Int, _ place: String) throws(Disagreement) {
        guard bytes.endIndex - i >= 2, bytes[i] == 0x0D, bytes[i + 1] == 0x0A else {
            throw Disagreement("accepted something other than CRLF \(place) at \(i)")
        }
        i += 2
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
