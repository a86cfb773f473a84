// A field section copied out of the receive buffer in one allocation, values kept as the bytes
// the peer sent. `HeaderFields` is offsets into a buffer that is reused for the next response;
// whatever outlives the parse call (a response head handed to a client) copies the section into
// a `FieldBlock`. Nothing is decoded at copy time: a name or value becomes a `String` only when
// it is read, and a value's bytes (obs-text included, RFC 9110 §5.5) stay readable as they were
// received, for the fields whose bytes matter (Set-Cookie: a cookie is sent back as it was set).
//
// Layout, per field: the name's length and the value's length as 4-byte little-endian integers,
// then the name's bytes, then the value's bytes. Lengths, not delimiters: a block built from
// strings (a cached response's fields) may hold any byte.

/// A field section owned as bytes: names and values read as strings on demand, values also as
/// the bytes received.
public struct FieldBlock: Collection, Sendable, Hashable, ExpressibleByArrayLiteral {
    /// One field of a block: its name and value, decoded when read.
    public struct Field: Sendable {
        let storage: [UInt8]
        let nameRange: Range<Int>
        let valueRange: Range<Int>

        /// The field name, decoded as UTF-8 (names are ASCII tokens).
        public var name: String { String(decoding: storage[nameRange], as: UTF8.self) }

        /// The field value as a string: UTF-8 where valid, each other byte replaced by U+FFFD.
        /// Use ``valueBytes`` where the exact bytes matter.
        public var value: String { String(decoding: storage[valueRange], as: UTF8.self) }

        /// The field value's bytes as received (obs-fold line breaks already replaced by spaces).
        public var valueBytes: ArraySlice<UInt8> { storage[valueRange] }

        /// Whether the name is `lowercasedName`, ignoring ASCII case; decodes nothing.
        ///
        /// - Parameter lowercasedName: The name to compare with, in lower case (`"set-cookie"`).
        public func hasName(_ lowercasedName: String) -> Bool {
            guard nameRange.count == lowercasedName.utf8.count else { return false }
            var offset = nameRange.lowerBound
            for expected in lowercasedName.utf8 {
                if HeaderFields.lowercased(storage[offset]) != expected { return false }
                offset += 1
            }
            return true
        }

        /// Whether the name is `name`, ignoring ASCII case on both sides; decodes nothing.
        ///
        /// - Parameter name: The name to compare with, in any case (`"Content-Type"`).
        public func hasName(ignoringCase name: String) -> Bool {
            guard nameRange.count == name.utf8.count else { return false }
            var offset = nameRange.lowerBound
            for expected in name.utf8 {
                if HeaderFields.lowercased(storage[offset]) != HeaderFields.lowercased(expected) { return false }
                offset += 1
            }
            return true
        }
    }

    /// The encoded fields (see the layout above).
    private var storage: [UInt8]
    /// The number of fields.
    public let count: Int

    /// An empty block.
    public init() {
        storage = []
        count = 0
    }

    /// Copies `fields` out of `buffer`, the input they were parsed from. One allocation (none
    /// for an empty section); obs-fold line breaks become spaces, as ``HeaderFields/valueBytes(at:in:)``.
    ///
    /// - Parameters:
    ///   - fields: The parsed fields.
    ///   - buffer: The bytes their ranges point into.
    public init(_ fields: HeaderFields, in buffer: UnsafeRawBufferPointer) {
        var size = 0
        for field in fields.storage { size += 8 + field.name.count + field.value.count }
        count = fields.count
        guard size > 0 else {
            storage = []
            return
        }
        storage = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
            var at = 0
            for field in fields.storage {
                Self.writeLength(field.name.count, into: out, at: at)
                Self.writeLength(field.value.count, into: out, at: at + 4)
                at += 8
                for i in field.name { out[at] = buffer[i]; at += 1 }
                for i in field.value {
                    let byte = buffer[i]
                    out[at] = field.isFolded && (byte == ASCII.cr || byte == ASCII.lf || byte == ASCII.tab) ? ASCII.space : byte
                    at += 1
                }
            }
            initialized = at
        }
    }

    /// A block of `fields`, each value's bytes its UTF-8.
    ///
    /// - Parameter fields: Names and values, in order.
    public init(_ fields: [(name: String, value: String)]) {
        var storage: [UInt8] = []
        var count = 0
        for field in fields {
            Self.append(name: field.name.utf8, value: field.value.utf8, to: &storage)
            count += 1
        }
        self.storage = storage
        self.count = count
    }

    /// A block of the listed fields.
    public init(arrayLiteral elements: (name: String, value: String)...) {
        self.init(elements)
    }

    /// The offset of the first field.
    public var startIndex: Int { 0 }
    /// One past the last field's bytes.
    public var endIndex: Int { storage.count }

    /// The offset of the field after the one at `index`.
    public func index(after index: Int) -> Int {
        index + 8 + readLength(at: index) + readLength(at: index + 4)
    }

    /// The field starting at `index`.
    public subscript(index: Int) -> Field {
        let nameStart = index + 8
        let valueStart = nameStart + readLength(at: index)
        return Field(storage: storage, nameRange: nameStart..<valueStart, valueRange: valueStart..<(valueStart + readLength(at: index + 4)))
    }

    /// The value of the first field named `lowercasedName` (ASCII case ignored), or `nil`.
    ///
    /// - Parameter lowercasedName: The name, in lower case.
    public func firstValue(named lowercasedName: String) -> String? {
        first { $0.hasName(lowercasedName) }?.value
    }

    /// Every field as a `(name, value)` pair of strings, in order.
    public var strings: [(name: String, value: String)] { map { ($0.name, $0.value) } }

    private func readLength(at offset: Int) -> Int {
        Int(storage[offset]) | Int(storage[offset + 1]) << 8 | Int(storage[offset + 2]) << 16 | Int(storage[offset + 3]) << 24
    }

    private static func writeLength(_ length: Int, into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for shift in 0..<4 { out[offset + shift] = UInt8(truncatingIfNeeded: length >> (8 * shift)) }
    }

    private static func append(name: some Collection<UInt8>, value: some Collection<UInt8>, to storage: inout [UInt8]) {
        let nameLength = name.count, valueLength = value.count
        for shift in 0..<4 { storage.append(UInt8(truncatingIfNeeded: nameLength >> (8 * shift))) }
        for shift in 0..<4 { storage.append(UInt8(truncatingIfNeeded: valueLength >> (8 * shift))) }
        storage.append(contentsOf: name)
        storage.append(contentsOf: value)
    }
}
