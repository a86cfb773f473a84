#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// The `Encoder` behind URLEncodedFormEncoder. Encoding builds a tree of FormNodes (strings,
// arrays, objects); FormSerializer then flattens the tree into name=value pairs.
//
// Containers write nothing when they are created: every value is written as a leaf at a path
// from the root (`FormPath`), which walks the tree and reshapes it on the way, as Alamofire's
// encoder does. That is what makes hand-written `encode(to:)` methods come out as they do with
// Alamofire: two containers for the same key merge into one object; a keyed container's
// `superEncoder()` writes into the same object (its path, not a `super` member) and an unkeyed
// container's `superEncoder()` into the array's own path; an array written where an object was
// replaces it (ParameterEncoderTests `manuallyEncodableSubclass`/`manuallyEncodableStruct`).

/// One step of a path from the root: a member of an object or a position in an array.
enum FormPathElement {
    case member(String)
    case element(Int)
}

/// One value in the tree being encoded. Confined to one `encode` call on one thread.
final class FormNode {
    enum Kind: Equatable {
        /// Nothing encoded yet (or only dropped `nil`s).
        case empty
        /// A leaf; the text is in ``string``.
        case string
        /// Elements in ``children``, keys `nil`.
        case array
        /// Members in ``children``, keys set.
        case object
    }

    private(set) var kind: Kind = .empty
    private(set) var string = ""
    private(set) var children: [(key: String?, node: FormNode)] = []

    /// Writes the leaf `value` at `path` below this node, creating what is missing.
    ///
    /// Each step reshapes the node it passes: a member step turns a node that is not an object
    /// into an empty object, an element step turns a node that is not an array into an empty
    /// array (what was there is dropped). An element step at or past the end appends; one before
    /// it goes into the existing element. The last step's node becomes the leaf, whatever it held.
    func set(_ value: String, at path: ArraySlice<FormPathElement>) {
        var node = self
        for step in path {
            node = node.child(step)
        }
        node.kind = .string
        node.string = value
        node.children = []
    }

    /// The child for one step, reshaping this node and creating the child as needed.
    private func child(_ step: FormPathElement) -> FormNode {
        switch step {
        case .member(let key):
            become(.object)
            if let existing = children.first(where: { $0.key == key })?.node { return existing }
            let node = FormNode()
            children.append((key, node))
            return node
        case .element(let index):
            become(.array)
            if index < children.count { return children[index].node }
            let node = FormNode()
            children.append((nil, node))
            return node
        }
    }

    private func become(_ kind: Kind) {
        guard self.kind != kind else { return }
        self.kind = kind
        string = ""
        children = []
    }

    /// A short description for error messages: the node's shape and leaf text.
    var debugDescription: String {
        switch kind {
        case .empty: "nothing"
        case .string: "the string \"\(string)\""
        case .array: "an array of \(children.count) elements"
        case .object: "an object"
        }
    }
}

/// The `Encoder` handed to `encode(to:)`: writes at one path below the root ``FormNode``.
struct FormEncoder: Encoder {
    /// The value options; key and array options apply only when serializing.
    struct Options {
        let boolEncoding: URLEncodedFormEncoder.BoolEncoding
        let dataEncoding: URLEncodedFormEncoder.DataEncoding
        let dateEncoding: URLEncodedFormEncoder.DateEncoding
        let nilEncoding: URLEncodedFormEncoder.NilEncoding
    }

    let root: FormNode
    let path: [FormPathElement]
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// An encoder one step deeper.
    func child(_ step: FormPathElement, key: any CodingKey) -> FormEncoder {
        FormEncoder(root: root, path: path + [step], codingPath: codingPath + [key], options: options)
    }

    /// Writes a leaf at this encoder's path.
    func setString(_ value: String) {
        root.set(value, at: path[...])
    }

    /// Encodes any value at this encoder's path, applying the Bool, Date and Data options and
    /// writing a few Foundation types as plain text (as JSONEncoder does) instead of their keyed
    /// `Encodable` form.
    func box(_ value: any Encodable) throws {
        switch value {
        case let bool as Bool:
            setString(options.boolEncoding.encode(bool))
        case let string as String:
            setString(string)
        case let date as Date:
            if let text = try options.dateEncoding.encode(date) {
                setString(text)
            } else {
                try date.encode(to: self)
            }
        case let data as Data:
            if let text = try options.dataEncoding.encode(data) {
                setString(text)
            } else {
                try data.encode(to: self)
            }
        case let url as URL:
            setString(url.absoluteString)
        case let decimal as Decimal:
            setString(decimal.description)
        default:
            try value.encode(to: self)
        }
    }

    /// Encodes `nil` at this path, or writes nothing when the nil encoding drops it.
    func boxNil() {
        if let text = options.nilEncoding.encodeNil() { setString(text) }
    }
}

/// A synthesized key for positions in arrays and for `super`.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension FormEncoder {
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: FormEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func childEncoder(_ key: any CodingKey) -> FormEncoder {
            encoder.child(.member(key.stringValue), key: key)
        }

        mutating func encodeNil(forKey key: Key) throws {
            // Only create the member when nil is written, so `.dropKey` leaves no trace.
            guard encoder.options.nilEncoding.encodeNil() != nil else { return }
            childEncoder(key).boxNil()
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try childEncoder(key).box(value)
        }

        // The standard library's default `encodeIfPresent` skips nil silently; route nil through
        // `encodeNil` instead so optional properties honour NilEncoding.
        private mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }

        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            try encodeOptional(value, forKey: key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            childEncoder(key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            childEncoder(key).unkeyedContainer()
        }

        // The superclass writes into the same object, as Alamofire's encoder does (JSONEncoder
        // would nest it under "super"): a form has one flat set of names per object.
        mutating func superEncoder() -> any Encoder {
            encoder
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            childEncoder(key)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: FormEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        /// Positions handed out by this container (each element, nested container or super
        /// encoder takes the next one), as Alamofire counts them.
        private(set) var count = 0

        init(encoder: FormEncoder) {
            self.encoder = encoder
        }

        private mutating func elementEncoder() -> FormEncoder {
            defer { count += 1 }
            return encoder.child(.element(count), key: FormCodingKey(intValue: count))
        }

        mutating func encodeNil() throws {
            guard encoder.options.nilEncoding.encodeNil() != nil else { return }
            elementEncoder().boxNil()
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try elementEncoder().box(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            elementEncoder().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            elementEncoder().unkeyedContainer()
        }

        // Takes a position, but writes at the array's own path, as Alamofire's encoder does.
        mutating func superEncoder() -> any Encoder {
            count += 1
            return encoder
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: FormEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws {
            encoder.boxNil()
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try encoder.box(value)
        }

        mutating func encode(_ value: Bool) throws { try encoder.box(value) }
        mutating func encode(_ value: String) throws { try encoder.box(value) }
        mutating func encode(_ value: Double) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Float) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Int) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Int8) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Int16) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Int32) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: Int64) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: UInt) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: UInt8) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: UInt16) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: UInt32) throws { encoder.setString(String(value)) }
        mutating func encode(_ value: UInt64) throws { encoder.setString(String(value)) }
    }
}
