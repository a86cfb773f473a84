// RequestFramer: where does the first HTTP/1.1 request in a byte buffer end?
//
// An independent, deliberately small oracle (it does not use Wire, whose behaviour tests check):
// head up to CRLF CRLF, then a Content-Length body, a chunked body (sizes, data, trailers), or none.

/// Finds request boundaries in raw bytes received by ``ScriptedServer``.
public enum RequestFramer {
    /// The outcome of scanning a buffer.
    public enum Frame: Equatable, Sendable {
        /// The first request is complete and occupies this many bytes.
        case complete(Int)
        /// More bytes are needed.
        case incomplete
        /// The bytes cannot be a request (bad Content-Length or chunk size); the text says why.
        case malformed(String)
    }

    /// Scans `bytes` for one complete request (head plus its body).
    ///
    /// - Parameter bytes: Received bytes, starting at a request's first byte.
    /// - Returns: ``Frame/complete(_:)`` with the request's length, ``Frame/incomplete`` or ``Frame/malformed(_:)``.
    public static func frame(_ bytes: [UInt8]) -> Frame {
        guard let headEnd = find(crlfcrlf, in: bytes, from: 0) else { return .incomplete }
        let bodyStart = headEnd + 4
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
        var contentLength: Int?
        var chunked = false
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = trimmed(line[line.index(after: colon)...])
            if name == "content-length" {
                guard let length = Int(value), length >= 0 else { return .malformed("Content-Length: \(value)") }
                contentLength = length
            } else if name == "transfer-encoding" {
                chunked = value.lowercased().split(separator: ",").last.map(trimmed) == "chunked"
            }
        }
        if chunked { return chunkedEnd(bytes, from: bodyStart) }
        let end = bodyStart + (contentLength ?? 0)
        return bytes.count >= end ? .complete(end) : .incomplete
    }

    private static let crlf: [UInt8] = [13, 10]
    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func chunkedEnd(_ bytes: [UInt8], from start: Int) -> Frame {
        var cursor = start
        while true {
            guard let lineEnd = find(crlf, in: bytes, from: cursor) else { return .incomplete }
            let sizeText = String(decoding: bytes[cursor..<lineEnd], as: UTF8.self)
            let digits = sizeText.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(trimmed) ?? ""
            guard let size = Int(digits, radix: 16), size >= 0 else { return .malformed("chunk size \(sizeText)") }
            cursor = lineEnd + 2
            if size == 0 {
                // Trailer section: header lines until an empty line.
                while true {
                    guard let end = find(crlf, in: bytes, from: cursor) else { return .incomplete }
                    let empty = end == cursor
                    cursor = end + 2
                    if empty { return .complete(cursor) }
                }
            }
            guard bytes.count >= cursor + size + 2 else { return .incomplete }
            guard bytes[cursor + size] == 13, bytes[cursor + size + 1] == 10 else {
                return .malformed("chunk data not followed by CRLF")
            }
            cursor += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
