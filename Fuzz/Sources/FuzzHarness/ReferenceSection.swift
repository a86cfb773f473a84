// A slow, deliberately plain reading of a header or trailer section (RFC 9112 §2.2, §4, §5, with
// the parser's documented choices: strict CRLF, reason phrase optional, obs-fold accepted and
// replaced by spaces). It works on arrays with bounds-checked indexing and no shortcuts, so when the
// parser accepts a section this reading must accept it too and find the same fields.

import Wire

/// Why the reference rejects bytes, or how its reading differs from the parser's.
struct Disagreement: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A header or trailer section as the reference reads it.
struct ReferenceSection {
    var version = HTTPVersion.http11
    var status = 0
    var reason: [UInt8] = []
    var fields: [CopiedField] = []

    /// Reads `bytes`, which must be exactly one section: its lines, then the empty line.
    init(_ bytes: ArraySlice<UInt8>, isHeader: Bool) throws(Disagreement) {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var ended = false
        for i in bytes.indices where bytes[i] == 0x0A {
            guard i > start, bytes[i - 1] == 0x0D else { throw Disagreement("line ending in a bare LF at \(i)") }
            let line = bytes[start..<(i - 1)]
            start = i + 1
            if line.isEmpty && !(isHeader && lines.isEmpty) {
                guard start == bytes.endIndex else { throw Disagreement("bytes after the empty line") }
                ended = true
                break
            }
            lines.append(line)
        }
        guard ended else { throw Disagreement("no empty line ends the section") }
        var fieldLines = lines[...]
        if isHeader {
            guard let statusLine = lines.first else { throw Disagreement("no status line") }
            try readStatusLine(statusLine)
            fieldLines = lines.dropFirst()
        }
        var parts: [[ArraySlice<UInt8>]] = []  // per field: the value part of each of its lines
        for line in fieldLines {
            if let first = line.first, first == 0x20 || first == 0x09 {
                guard !parts.isEmpty else { throw Disagreement("continuation line before any field") }
                guard line.allSatisfy(Self.isValueByte) else { throw Disagreement("control byte in a continuation line") }
                parts[parts.count - 1].append(Self.trimmed(line))
                continue
            }
            guard let colon = line.firstIndex(of: 0x3A) else { throw Disagreement("field line without a colon") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else { throw Disagreement("field name \(text(Array(name))) is not a token") }
            let value = line[(colon + 1)...]
            guard value.allSatisfy(Self.isValueByte) else { throw Disagreement("control byte in the value of \(text(Array(name)))") }
            fields.append(CopiedField(name: Array(name), value: [], isFolded: false))
            parts.append([Self.trimmed(value)])
        }
        for index in fields.indices {
            let nonEmpty = parts[index].filter { !$0.isEmpty }
            fields[index].isFolded = parts[index].count > 1
            guard let first = nonEmpty.first, let last = nonEmpty.last else { continue }
            // The value runs from its first to its last non-blank byte, across folds; CR, LF and
            // HTAB in a folded value read as SP (RFC 9112 §5.2).
            var value = Array(bytes[first.startIndex..<last.endIndex])
            if fields[index].isFolded {
                for i in value.indices where value[i] == 0x0D || value[i] == 0x0A || value[i] == 0x09 { value[i] = 0x20 }
            }
            fields[index].value = value
        }
    }

    /// The end of the section that starts `bytes` (just past its empty line), or `nil` if the
    /// empty line is missing. Lines hold no CR or LF, so the first CRLF CRLF ends a header section;
    /// a trailer section may also be the empty line alone.
    static func end(of bytes: ArraySlice<UInt8>, isHeader: Bool) -> Int? {
        if !isHeader && bytes.starts(with: [0x0D, 0x0A]) { return bytes.startIndex + 2 }
        var i = bytes.startIndex
        while i + 4 <= bytes.endIndex {
            if bytes[i] == 0x0D && bytes[i + 1] == 0x0A && bytes[i + 2] == 0x0D && bytes[i + 3] == 0x0A { return i + 4 }
            i += 1
        }
        return nil
    }

    /// `HTTP/1.D SP DDD [SP reason]`, status 100-999, reason without control bytes but HTAB.
    private mutating func readStatusLine(_ line: ArraySlice<UInt8>) throws(Disagreement) {
        let b = Array(line)
        guard b.count >= 12, Array(b[0..<5]) == Array("HTTP/".utf8), b[5] == 0x31, b[6] == 0x2E,
              Self.isDigit(b[7]), b[8] == 0x20, b[9..<12].allSatisfy(Self.isDigit)
        else { throw Disagreement("status line \(text(b))") }
        version = HTTPVersion(major: 1, minor: Int(b[7] - 0x30))
        status = b[9..<12].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw Disagreement("status \(status)") }
        if b.count > 12 {
            guard b[12] == 0x20 else { throw Disagreement("no SP after the status code") }
            reason = Array(b[13...])
            guard reason.allSatisfy(Self.isValueByte) else { throw Disagreement("control byte in the reason phrase") }
        }
    }

    // MARK: Byte classes (RFC 9110 §5.5, §5.6.2)

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// HTAB, SP, VCHAR, obs-text.
    static func isValueByte(_ b: UInt8) -> Bool { b == 0x09 || (b >= 0x20 && b != 0x7F) }

    static func isTokenByte(_ b: UInt8) -> Bool {
        if b >= 0x30 && b <= 0x39 { return true }
        if (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A { return true }
        return "!#$%&'*+-.^_`|~".utf8.contains(b)
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = bytes.startIndex, e = bytes.endIndex
        while s < e && (bytes[s] == 0x20 || bytes[s] == 0x09) { s += 1 }
        while e > s && (bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
        return bytes[s..<e]
    }

    static func lowercased(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The comma-separated elements of a list value, OWS-trimmed, empty ones included.
    static func elements(_ value: [UInt8]) -> [ArraySlice<UInt8>] {
        value.split(separator: 0x2C, omittingEmptySubsequences: false).map { trimmed($0) }
    }
}
