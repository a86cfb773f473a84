import Wire

/// An ordered list of HTTP header fields with case-insensitive names, as Alamofire's.
///
/// Order is kept as fields are added, so what you build is what goes on the wire. Names compare
/// case-insensitively (RFC 9110 §5.1): `headers["content-type"]` finds a field added as
/// `Content-Type`, and adding or updating a name that is already present, in any case, replaces
/// that field where it stands (its position is kept, the new spelling is used). So, as in
/// Alamofire, a value built through the public API holds at most one field per name.
///
/// Responses are the exception: a server may send a name twice (`Set-Cookie`), and the headers
/// of an ``HTTPURLResponse`` keep every field as received; ``values(for:)`` reads them all.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(name: "accept", value: "text/plain")   // replaces, still one field, first position
/// headers["ACCEPT"]                                  // "text/plain"
/// ```
public struct HTTPHeaders: Equatable, Hashable, Sendable {
    /// The fields: built through the API, or a received field section kept as its bytes.
    private var storage: Storage = .built([])

    /// Where the fields live.
    private enum Storage: Sendable {
        /// Fields added through the API (or a received section after its first change).
        case built([HTTPHeader])
        /// A response's field section as received: names and values are decoded when read, so
        /// recording a response allocates nothing beyond the block (see `init(received:)`).
        case received(FieldBlock)
    }

    /// Creates an empty instance.
    public init() {}

    /// The headers of a received field section, every field kept in order (repeats too), each
    /// name and value decoded as `FieldBlock.Field` decodes it, when read.
    ///
    /// - Parameter block: The section as received.
    init(received block: FieldBlock) {
        storage = .received(block)
    }

    /// Every field, decoded: the stored array, or a new one for a received section.
    private var headers: [HTTPHeader] {
        switch storage {
        case .built(let headers): headers
        case .received(let block): block.map { HTTPHeader(name: $0.name, value: $0.value) }
        }
    }

    /// Runs `body` on the fields as an array, storing the result: a received section becomes
    /// built fields at its first change.
    private mutating func mutateFields<Result>(_ body: (inout [HTTPHeader]) -> Result) -> Result {
        var fields = headers
        storage = .built([])  // drop the old reference so `fields` is uniquely owned
        defer { storage = .built(fields) }
        return body(&fields)
    }

    /// Creates an instance from an array of fields, keeping one field per name.
    ///
    /// A later field replaces an earlier one of the same name (compared case-insensitively) at the
    /// earlier one's position. Use ``add(_:)`` afterwards if you need duplicates.
    ///
    /// - Parameter headers: The fields, in order.
    public init(_ headers: [HTTPHeader]) {
        headers.forEach { update($0) }
    }

    /// Creates an instance from a dictionary of names and values.
    ///
    /// Dictionaries have no order, so the fields are sorted by name to make the result
    /// deterministic. Names that differ only in case collapse into one field.
    ///
    /// - Parameter dictionary: Names mapped to values.
    public init(_ dictionary: [String: String]) {
        dictionary.sorted { $0.key < $1.key }.forEach { update(HTTPHeader(name: $0.key, value: $0.value)) }
    }

    /// Adds a field, or replaces the field of the same name (compared case-insensitively) in place.
    ///
    /// Same as ``update(name:value:)``, as in Alamofire.
    ///
    /// - Parameters:
    ///   - name:  The field name.
    ///   - value: The field value.
    public mutating func add(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Appends a field even if one of the same name exists: for response heads as received and
    /// for repeated `fetch -H` options, which curl sends as separate fields.
    ///
    /// - Parameters:
    ///   - name:  The field name.
    ///   - value: The field value.
    package mutating func appendField(name: String, value: String) {
        mutateFields { $0.append(HTTPHeader(name: name, value: value)) }
    }

    /// Makes room for `count` fields.
    mutating func reserveCapacity(_ count: Int) {
        mutateFields { $0.reserveCapacity(count) }
    }

    /// Adds a field, or replaces the field of the same name (compared case-insensitively) in place.
    ///
    /// Same as ``update(_:)``, as in Alamofire.
    ///
    /// - Parameter header: The field to add.
    public mutating func add(_ header: HTTPHeader) {
        update(header)
    }

    /// Sets the value for a name, replacing every existing field with that name.
    ///
    /// The new field takes the position of the first existing one, or is appended when the name is new.
    ///
    /// - Parameters:
    ///   - name:  The field name, matched case-insensitively.
    ///   - value: The new value.
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Sets a field, replacing every existing field with the same name.
    ///
    /// The new field takes the position of the first existing one, or is appended when the name is new.
    ///
    /// - Parameter header: The field to set.
    public mutating func update(_ header: HTTPHeader) {
        mutateFields { headers in
            guard let first = headers.firstIndex(named: header.name) else {
                headers.append(header)
                return
            }
            headers[first] = header
            var index = headers.index(after: first)
            while index < headers.endIndex {
                if headers[index].hasName(header.name) {
                    headers.remove(at: index)
                } else {
                    index = headers.index(after: index)
                }
            }
        }
    }

    /// Removes every field with the given name.
    ///
    /// - Parameter name: The field name, matched case-insensitively. Nothing happens if absent.
    public mutating func remove(name: String) {
        mutateFields { $0.removeAll { $0.hasName(name) } }
    }

    /// Sorts the fields by lowercased name, keeping the relative order of fields with equal names.
    public mutating func sort() {
        storage = .built(sortedFields())
    }

    /// Returns a copy sorted by lowercased name, keeping the relative order of fields with equal names.
    ///
    /// - Returns: The sorted copy.
    public func sorted() -> HTTPHeaders {
        var copy = HTTPHeaders()
        copy.storage = .built(sortedFields())
        return copy
    }

    /// Returns the value of the first field with the given name.
    ///
    /// - Parameter name: The field name, matched case-insensitively.
    /// - Returns: The first matching value, or `nil` if there is no such field.
    public func value(for name: String) -> String? {
        switch storage {
        case .built(let headers): headers.firstIndex(named: name).map { headers[$0].value }
        case .received(let block): block.first { $0.hasName(ignoringCase: name) }?.value
        }
    }

    /// Returns the values of every field with the given name, in order.
    ///
    /// - Parameter name: The field name, matched case-insensitively.
    /// - Returns: The matching values; empty if there is no such field.
    public func values(for name: String) -> [String] {
        switch storage {
        case .built(let headers): headers.filter { $0.hasName(name) }.map(\.value)
        case .received(let block): block.filter { $0.hasName(ignoringCase: name) }.map(\.value)
        }
    }

    /// Reads or replaces the value for a name.
    ///
    /// Reading returns the first matching value. Setting a value behaves like ``update(name:value:)``;
    /// setting `nil` behaves like ``remove(name:)``.
    ///
    /// - Parameter name: The field name, matched case-insensitively.
    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue {
                update(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// The fields as a dictionary keyed by name as written.
    ///
    /// Only response headers can hold a name twice; then the last field's value wins, under the
    /// last field's spelling. Use ``values(for:)`` to see every value.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for header in headers {
            let folded = header.name.lowercased()
            if let previous = spelling[folded] {
                result[previous] = nil
            }
            spelling[folded] = header.name
            result[header.name] = header.value
        }
        return result
    }

    private func sortedFields() -> [HTTPHeader] {
        // Enumerate first so equal names keep their order: Swift's sort is not guaranteed stable.
        headers.enumerated()
            .sorted { lhs, rhs in
                let left = lhs.element.name.lowercased(), right = rhs.element.name.lowercased()
                return left == right ? lhs.offset < rhs.offset : left < right
            }
            .map(\.element)
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates an instance from a dictionary literal, in the literal's order.
    ///
    /// A name repeated in any case keeps its first position and its last value:
    /// `["Cookie": "a=1", "cookie": "b=2"]` makes one field, `cookie: b=2`.
    ///
    /// - Parameter elements: The name and value pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        elements.forEach { update(name: $0.0, value: $0.1) }
    }
}

extension HTTPHeaders: ExpressibleByArrayLiteral {
    /// Creates an instance from an array literal of fields, in order; a repeated name (in any
    /// case) keeps its first position and its last value, like `init(_ headers: [HTTPHeader])`.
    ///
    /// - Parameter elements: The fields.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }
}

extension HTTPHeaders: Sequence {
    /// Returns an iterator over the fields in order.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> IndexingIterator<[HTTPHeader]> {
        headers.makeIterator()
    }
}

extension HTTPHeaders: Collection {
    /// The position of the first field.
    public var startIndex: Int { 0 }

    /// The position one past the last field.
    public var endIndex: Int {
        switch storage {
        case .built(let headers): headers.count
        case .received(let block): block.count
        }
    }

    /// The field at a position.
    ///
    /// - Parameter position: A valid index.
    public subscript(position: Int) -> HTTPHeader {
        switch storage {
        case .built(let headers):
            return headers[position]
        case .received(let block):
            precondition(position >= 0 && position < block.count, "HTTPHeaders index out of range")
            let field = block[block.index(block.startIndex, offsetBy: position)]
            return HTTPHeader(name: field.name, value: field.value)
        }
    }

    /// The position after `i`.
    ///
    /// - Parameter i: A valid index before ``endIndex``.
    /// - Returns: `i + 1`.
    public func index(after i: Int) -> Int { i + 1 }
}

extension HTTPHeaders: BidirectionalCollection, RandomAccessCollection {
    /// The position before `i`.
    ///
    /// - Parameter i: A valid index after ``startIndex``.
    /// - Returns: `i - 1`.
    public func index(before i: Int) -> Int { i - 1 }
}

extension HTTPHeaders {
    /// Whether both hold the same fields in the same order, names spelled alike; received and
    /// built fields compare by their decoded strings.
    ///
    /// - Parameters:
    ///   - lhs: Headers.
    ///   - rhs: Other headers.
    /// - Returns: `true` if the fields are equal one by one.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        if case .built(let left) = lhs.storage, case .built(let right) = rhs.storage { return left == right }
        return lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    /// Hashes the fields in order, as `==` compares them.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for field in self { hasher.combine(field) }
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// One `Name: Value` line per field, in order.
    public var description: String {
        headers.map(\.description).joined(separator: "\n")
    }
}

extension [HTTPHeader] {
    /// The index of the first field named `name`, compared case-insensitively.
    func firstIndex(named name: String) -> Int? {
        firstIndex { $0.hasName(name) }
    }
}
