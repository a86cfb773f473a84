#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// The `Encoder` behind URLEncodedFormEncoder. Encoding builds a tree of FormNodes (strings,
// arrays, objects); FormSerializer then flattens the tree into name=value pairs. Each encoder and
// container writes into exactly one node it was handed, so nested containers need no path
// bookkeeping: a child node is created when a key or element is encoded, and handed down.

/// One value in the tree being encoded.
///
/// A class so that containers created by `nestedContainer` and `superEncoder` can keep writing
/// into a node after its parent moves on. Confined to one `encode` call on one thread.
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

    /// Makes this node a leaf holding `value`.
    func setString(_ value: String) {
        kind = .string
        string = value
        children = []
    }

    /// Returns the member node for `key`, creating it (and making this node an object) if needed.
    /// Encoding the same key twice reuses the first member's position and replaces its value.
    func member(_ key: String) -> FormNode {
        becomeContainer(.object)
        if let existing = children.first(where: { $0.key == key })?.node {
            existing.reset()
            return existing
        }
        let node = FormNode()
        children.append((key, node))
        return node
    }

    /// Appends a new element node, making this node an array if needed.
    func appendElement() -> FormNode {
        becomeContainer(.array)
        let node = FormNode()
        children.append((nil, node))
        return node
    }

    /// Turns an empty (or differently shaped) node into an empty container of `kind`.
    func becomeContainer(_ kind: Kind) {
        guard self.kind != kind else { return }
        self.kind = kind
        string = ""
        children = []
    }

    var count: Int { children.count }

    private func reset() {
        kind = .empty
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

/// The `Encoder` handed to `encode(to:)`: writes into one ``FormNode``.
struct FormEncoder: Encoder {
    /// The value options; key and array options apply only when serializing.
    struct Options {
        let boolEncoding: URLEncodedFormEncoder.BoolEncoding
        let dataEncoding: URLEncodedFormEncoder.DataEncoding
        let dateEncoding: URLEncodedFormEncoder.DateEncoding
        let nilEncoding: URLEncodedFormEncoder.NilEncoding
    }

    let node: FormNode
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeContainer(.object)
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeContainer(.array)
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// An encoder for a child node, one key deeper.
    func child(_ node: FormNode, key: any CodingKey) -> FormEncoder {
        FormEncoder(node: node, codingPath: codingPath + [key], options: options)
    }

    /// Encodes any value into this encoder's node, applying the Bool, Date and Data options and
    /// writing a few Foundation types as plain text (as JSONEncoder does) instead of their keyed
    /// `Encodable` form.
    func box(_ value: any Encodable) throws {
        switch value {
        case let bool as Bool:
            node.setString(options.boolEncoding.encode(bool))
        case let string as String:
            node.setString(string)
        case let date as Date:
            if let text = try options.dateEncoding.encode(date) {
                node.setString(text)
            } else {
                try date.encode(to: self)
            }
        case let data as Data:
            if let text = try options.dataEncoding.encode(data) {
                node.setString(text)
            } else {
                try data.encode(to: self)
            }
        case let url as URL:
            node.setString(url.absoluteString)
        case let decimal as Decimal:
            node.setString(decimal.description)
        default:
            try value.encode(to: self)
        }
    }

    /// Encodes `nil` into this node, or leaves it empty when the nil encoding drops it.
    func boxNil() {
        if let text = options.nilEncoding.encodeNil() { node.setString(text) }
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
            encoder.child(encoder.node.member(key.stringValue), key: key)
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

        mutating func superEncoder() -> any Encoder {
            childEncoder(FormCodingKey(stringValue: "super"))
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            childEncoder(key)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: FormEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.node.count }

        private func elementEncoder() -> FormEncoder {
            encoder.child(encoder.node.appendElement(), key: FormCodingKey(intValue: count))
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

        mutating func superEncoder() -> any Encoder {
            elementEncoder()
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
        mutating func encode(_ value: Double) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Float) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Int) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Int8) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Int16) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Int32) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: Int64) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: UInt) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: UInt8) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: UInt16) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: UInt32) throws { encoder.node.setString(String(value)) }
        mutating func encode(_ value: UInt64) throws { encoder.node.setString(String(value)) }
    }
}
