/// Where one field line sits in the buffer it was parsed from.
///
/// Offsets are relative to the start of the input passed to the ``ResponseParser/parse(_:)`` call
/// that returned the event; they are valid until the caller discards or moves those bytes.
public struct FieldRange: Hashable, Sendable {
    /// The field name's bytes, case preserved.
    public var name: Range<Int>
    /// The field value's bytes, without leading or trailing whitespace.
    public var value: Range<Int>
    /// Whether the value spans obs-fold line breaks (RFC 9112 §5.2). Such a value's raw bytes hold
    /// CR LF; read it with ``HeaderFields/value(at:in:)``, which replaces them by spaces as §5.2
    /// requires of a user agent.
    public var isFolded: Bool

    /// Creates a field range.
    public init(name: Range<Int>, value: Range<Int>, isFolded: Bool = false) {
        self.name = name
        self.value = value
        self.isFolded = isFolded
    }

    /// This range moved by `delta` bytes.
    func shifted(by delta: Int) -> FieldRange {
        FieldRange(
            name: (name.lowerBound + delta)..<(name.upperBound + delta),
            value: (value.lowerBound + delta)..<(value.upperBound + delta),
            isFolded: isFolded
        )
    }
}

/// The fields of a header or trailer section, in order, duplicates and name case preserved.
///
/// This is a list of offsets, not of strings: nothing is copied or allocated per field. Read names
/// and values against the buffer the event came from; lookups by name ignore ASCII case.
public struct HeaderFields: RandomAccessCollection, Sendable, Hashable {
    var storage: [FieldRange]

    init(_ storage: [FieldRange]) { self.storage = storage }

    /// An empty field list.
    public init() { storage = [] }

    /// The index of the first field.
    public var startIndex: Int { storage.startIndex }
    /// One past the index of the last field.
    public var endIndex: Int { storage.endIndex }
    /// The field at `index`.
    public subscript(index: Int) -> FieldRange { storage[index] }

    /// The field name at `index`, decoded as UTF-8 (names are ASCII tokens).
    public func name(at index: Int, in buffer: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[storage[index].name]), as: UTF8.self)
    }

    /// The field value at `index` as bytes, with obs-fold line breaks replaced by spaces.
    public func valueBytes(at index: Int, in buffer: UnsafeRawBufferPointer) -> [UInt8] {
        let field = storage[index]
        var bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[field.value]))
        if field.isFolded {
            for i in bytes.indices where bytes[i] == ASCII.cr || bytes[i] == ASCII.lf || bytes[i] == ASCII.tab {
                bytes[i] = ASCII.space
            }
        }
        return bytes
    }

    /// The field value at `index` as a string: UTF-8 where valid, each obs-text byte otherwise
    /// replaced by U+FFFD; obs-fold line breaks replaced by spaces.
    public func value(at index: Int, in buffer: UnsafeRawBufferPointer) -> String {
        let field = storage[index]
        if !field.isFolded {
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[field.value]), as: UTF8.self)
        }
        return String(decoding: valueBytes(at: index, in: buffer), as: UTF8.self)
    }

    /// The index of the first field named `name`, ignoring ASCII case, or `nil`.
    public func firstIndex(named name: String, in buffer: UnsafeRawBufferPointer) -> Int? {
        let wanted = Array(name.utf8)
        for index in storage.indices where Self.nameEquals(buffer, storage[index].name, wanted) {
            return index
        }
        return nil
    }

    /// The values of every field named `name` (ignoring ASCII case), in order.
    public func values(named name: String, in buffer: UnsafeRawBufferPointer) -> [String] {
        let wanted = Array(name.utf8)
        return storage.indices
            .filter { Self.nameEquals(buffer, storage[$0].name, wanted) }
            .map { value(at: $0, in: buffer) }
    }

    /// Every field as a `(name, value)` pair of strings, in order.
    public func strings(in buffer: UnsafeRawBufferPointer) -> [(name: String, value: String)] {
        storage.indices.map { (name(at: $0, in: buffer), value(at: $0, in: buffer)) }
    }

    static func nameEquals(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>, _ wanted: [UInt8]) -> Bool {
        guard range.count == wanted.count else { return false }
        for (offset, expected) in wanted.enumerated() {
            if lowercased(buffer[range.lowerBound + offset]) != lowercased(expected) { return false }
        }
        return true
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

/// How a response's body is delimited (RFC 9112 §6.3).
public enum BodyFraming: Hashable, Sendable {
    /// No body: a response to HEAD, a 1xx, 204 or 304 response, or `Content-Length: 0`.
    case none
    /// Exactly this many bytes.
    case contentLength(Int)
    /// Chunked transfer coding, ending with a last chunk and an optional trailer section.
    case chunked
    /// Everything until the server closes the connection (no Content-Length, or a final transfer
    /// coding other than chunked).
    case untilClose
    /// The connection becomes a tunnel or switches protocol (a 2xx answer to CONNECT, or 101): the
    /// bytes after the head are not HTTP/1.1.
    case tunnel
}

/// A parsed response head: status line and header fields, as offsets into the input buffer.
public struct ResponseHead: Sendable, Hashable {
    /// The response's HTTP version (major is always 1, except for an HTTP/0.9 answer read with
    /// ``ResponseParsingOptions/allowsHTTP09``: 0.9).
    public var version: HTTPVersion
    /// The three-digit status code, 100 through 999 (0 for an HTTP/0.9 answer, which has none).
    public var status: Int
    /// The reason phrase's bytes (possibly empty).
    public var reason: Range<Int>
    /// The header fields.
    public var fields: HeaderFields
    /// How the body that follows is delimited.
    public var framing: BodyFraming
    /// Whether the connection can carry another response after this one: HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`, and a body that does not end
    /// at connection close.
    public var keepAlive: Bool

    /// Creates a head; the parser is the usual source.
    public init(version: HTTPVersion, status: Int, reason: Range<Int>, fields: HeaderFields, framing: BodyFraming, keepAlive: Bool) {
        self.version = version
        self.status = status
        self.reason = reason
        self.fields = fields
        self.framing = framing
        self.keepAlive = keepAlive
    }

    /// The reason phrase, decoded as UTF-8 with replacement.
    public func reasonPhrase(in buffer: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[reason]), as: UTF8.self)
    }
}
