// Writes HTTP/1.1 request heads and chunked framing (RFC 9112 §3, §7.1).
//
// Everything that reaches the wire from a caller is validated first: the method must be a token;
// the target, field names and values must not hold CR, LF, NUL or other control characters (header
// injection), and names must be tokens. Framing is decided here, not by the caller's fields: the
// serializer writes `Content-Length` or `Transfer-Encoding: chunked` from ``RequestHead/framing``
// and refuses those fields (and `Host`) among the caller's, so a request can never carry two
// framings (swift-nio's `correctlyFrameTransportHeaders` idea, made strict).
//
// The head is appended to a caller-owned byte buffer; body bytes are never copied here. For
// chunked bodies the caller writes `chunkHeader(size:)`, the data and `chunkTrailer` as separate
// pieces of one `writev`.

/// How a request body is delimited.
public enum RequestFraming: Sendable, Hashable {
    /// No body and no framing field (GET, HEAD, DELETE without a body).
    case none
    /// A body of exactly this many bytes, announced with Content-Length (0 is written, for POST/PUT
    /// with an empty body).
    case contentLength(Int)
    /// A body of unknown length, sent with `Transfer-Encoding: chunked`.
    case chunked
}

/// A request head to serialize.
public struct RequestHead: Sendable, Hashable {
    /// The method.
    public var method: RequestMethod
    /// The request target: origin-form (`/path?query`), absolute-form, authority-form or `*`.
    public var target: String
    /// The `Host` field value (RFC 9112 §3.2), written first after the request line.
    public var authority: String
    /// The other fields, in order. Must not contain Host, Content-Length or Transfer-Encoding.
    public var fields: [(name: String, value: String)]
    /// Fields whose values are bytes rather than strings, written after ``fields``: a value that
    /// came from a server and must go back as it came (a cookie holding obs-text bytes, which no
    /// `String` can carry). Validated as ``fields`` are. Empty by default.
    public var byteFields: [(name: String, value: [UInt8])] = []
    /// How the body is delimited. ``RequestFraming/none`` by default.
    public var framing: RequestFraming
    /// Whether to send `Expect: 100-continue` and wait for an interim response before the body.
    /// `false` by default.
    public var expectContinue: Bool
    /// Whether the request line says `HTTP/1.0` instead of `HTTP/1.1` (curl's `--http1.0`).
    /// `false` by default.
    public var isHTTP10 = false

    /// Creates a request head.
    public init(
        method: RequestMethod, target: String, authority: String,
        fields: [(name: String, value: String)] = [], framing: RequestFraming = .none, expectContinue: Bool = false
    ) {
        self.method = method
        self.target = target
        self.authority = authority
        self.fields = fields
        self.framing = framing
        self.expectContinue = expectContinue
    }

    /// Heads are equal when every component and every field, in order, is equal.
    public static func == (lhs: RequestHead, rhs: RequestHead) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.authority == rhs.authority
            && lhs.framing == rhs.framing && lhs.expectContinue == rhs.expectContinue && lhs.isHTTP10 == rhs.isHTTP10
            && lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
            && lhs.byteFields.count == rhs.byteFields.count
            && zip(lhs.byteFields, rhs.byteFields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes every component.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(authority)
        hasher.combine(framing)
        hasher.combine(expectContinue)
        hasher.combine(isHTTP10)
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
        for field in byteFields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

/// Serializes request heads and chunk framing.
public enum RequestSerializer {
    /// Appends `head` as bytes to `buffer`.
    /// - Throws: ``WireError`` (``WireError/Rule/requestMethod``, ``WireError/Rule/requestTarget``,
    ///   ``WireError/Rule/requestFieldName``, ``WireError/Rule/requestFieldValue``,
    ///   ``WireError/Rule/requestFramingField``); `buffer` is left unchanged on error.
    public static func serialize(_ head: RequestHead, into buffer: inout [UInt8]) throws(WireError) {
        try validate(head)
        let start = buffer.count
        buffer.reserveCapacity(start + estimatedSize(head))
        buffer.append(contentsOf: head.method.rawValue.utf8)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: head.target.utf8)
        buffer.append(contentsOf: (head.isHTTP10 ? " HTTP/1.0\r\nHost: " : " HTTP/1.1\r\nHost: ").utf8)
        buffer.append(contentsOf: head.authority.utf8)
        buffer.append(contentsOf: crlf)
        for field in head.fields {
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(contentsOf: ": ".utf8)
            buffer.append(contentsOf: field.value.utf8)
            buffer.append(contentsOf: crlf)
        }
        for field in head.byteFields {
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(contentsOf: ": ".utf8)
            buffer.append(contentsOf: field.value)
            buffer.append(contentsOf: crlf)
        }
        switch head.framing {
        case .none:
            break
        case .contentLength(let count):
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(count, to: &buffer)
            buffer.append(contentsOf: crlf)
        case .chunked:
            buffer.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        }
        if head.expectContinue { buffer.append(contentsOf: "Expect: 100-continue\r\n".utf8) }
        buffer.append(contentsOf: crlf)
    }

    /// Serializes `head` into a new array.
    public static func serialize(_ head: RequestHead) throws(WireError) -> [UInt8] {
        var buffer: [UInt8] = []
        try serialize(head, into: &buffer)
        return buffer
    }

    /// The chunk-size line for a chunk of `size` bytes (`size` > 0): hexadecimal digits and CRLF.
    public static func chunkHeader(size: Int) -> ChunkHeader { ChunkHeader(size: size) }

    /// The CRLF that follows each chunk's data.
    public static let chunkTrailer: [UInt8] = [ASCII.cr, ASCII.lf]

    /// The last chunk and an empty trailer section: `0\r\n\r\n`.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    // MARK: Validation

    private static let crlf: [UInt8] = [ASCII.cr, ASCII.lf]

    private static func validate(_ head: RequestHead) throws(WireError) {
        let method = head.method.rawValue.utf8
        guard !method.isEmpty, method.allSatisfy(TokenSet.contains) else {
            throw WireError(.requestMethod, "method \(debugQuoted(head.method.rawValue)) is not a token", offset: firstNonToken(method))
        }
        if let bad = head.target.utf8.firstIndex(where: { $0 <= ASCII.space || $0 >= ASCII.del }) ?? (head.target.isEmpty ? head.target.utf8.startIndex : nil) {
            let offset = head.target.utf8.distance(from: head.target.utf8.startIndex, to: bad)
            throw WireError(.requestTarget, "request target is empty or holds whitespace, a control or a non-ASCII byte", offset: offset)
        }
        if let bad = firstInvalidValueByte(head.authority.utf8) {
            throw WireError(.requestFieldValue, "Host value holds a control character", offset: bad)
        }
        for (index, field) in head.fields.enumerated() {
            try validateField(name: field.name, value: field.value.utf8, index: index)
        }
        for (index, field) in head.byteFields.enumerated() {
            try validateField(name: field.name, value: field.value, index: head.fields.count + index)
        }
        if case .contentLength(let count) = head.framing, count < 0 {
            throw WireError(.requestFramingField, "negative Content-Length \(count)")
        }
    }

    /// One field: a token name the serializer does not write itself, a value without CR, LF,
    /// NUL or another control character. `index` counts ``RequestHead/fields`` then
    /// ``RequestHead/byteFields``.
    private static func validateField(name: String, value: some Sequence<UInt8>, index: Int) throws(WireError) {
        guard !name.utf8.isEmpty, name.utf8.allSatisfy(TokenSet.contains) else {
            throw WireError(.requestFieldName, "field name \(debugQuoted(name)) is not a token", offset: index)
        }
        if isReserved(name) {
            throw WireError(.requestFramingField, "\(name) is written by the serializer, not taken from fields", offset: index)
        }
        if firstInvalidValueByte(value) != nil {
            throw WireError(.requestFieldValue, "value of \(name) holds CR, LF, NUL or another control character", offset: index)
        }
    }

    private static func isReserved(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "content-length" || lower == "transfer-encoding" || lower == "host"
    }

    /// The offset of the first byte that is not HTAB, SP, VCHAR or obs-text.
    private static func firstInvalidValueByte(_ bytes: some Sequence<UInt8>) -> Int? {
        var offset = 0
        for b in bytes {
            if (b < ASCII.space && b != ASCII.tab) || b == ASCII.del { return offset }
            offset += 1
        }
        return nil
    }

    private static func firstNonToken(_ bytes: String.UTF8View) -> Int {
        var offset = 0
        for b in bytes {
            if !TokenSet.contains(b) { return offset }
            offset += 1
        }
        return 0
    }

    private static func debugQuoted(_ s: String) -> String { s.debugDescription }

    private static func estimatedSize(_ head: RequestHead) -> Int {
        var size = head.method.rawValue.utf8.count + head.target.utf8.count + head.authority.utf8.count + 64
        for field in head.fields { size += field.name.utf8.count + field.value.utf8.count + 4 }
        for field in head.byteFields { size += field.name.utf8.count + field.value.count + 4 }
        return size
    }

    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value == 0 {
            buffer.append(0x30)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while v > 0 {
                raw[count] = UInt8(v % 10) + 0x30
                v /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[i]) }
        }
    }
}

/// A chunk-size line (`<hex>\r\n`) held inline: no allocation per chunk.
public struct ChunkHeader: Sendable {
    private var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// The number of bytes in the line.
    public private(set) var count = 0

    init(size: Int) {
        precondition(size > 0, "a chunk of data has a positive size; use RequestSerializer.lastChunk to end the body")
        withUnsafeMutableBytes(of: &storage) { raw in
            var shift = (Int.bitWidth - size.leadingZeroBitCount + 3) / 4 * 4
            while shift > 0 {
                shift -= 4
                let digit = UInt8((size >> shift) & 0xF)
                raw[count] = digit < 10 ? 0x30 + digit : 0x57 + digit  // 0-9, a-f
                count += 1
            }
            raw[count] = ASCII.cr
            raw[count + 1] = ASCII.lf
            count += 2
        }
    }

    /// Calls `body` with the line's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// The line's bytes as an array.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
