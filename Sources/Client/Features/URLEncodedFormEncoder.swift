#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization

/// Encodes `Encodable` values as URL-encoded form text: `name=value&list%5B%5D=1`.
///
/// The top-level value must encode as a keyed object (a struct, class or `[String: …]`). Nested
/// objects become key paths (`parent[child]=…`, see ``KeyPathEncoding``), arrays repeat their key
/// (see ``ArrayEncoding``), and names and values are percent-encoded with ``allowedCharacters``.
///
/// ```swift
/// struct Query: Encodable { let term: String; let tags: [String] }
/// let text: String = try URLEncodedFormEncoder().encode(Query(term: "a b", tags: ["x", "y"]))
/// // "tags%5B%5D=x&tags%5B%5D=y&term=a%20b"
/// ```
///
/// Thread-safe; one encoder may be shared.
public final class URLEncodedFormEncoder: Sendable {
    /// Whether the pairs of each object are sorted by key (stable: array elements keep their order).
    ///
    /// Sorting makes the output identical across runs even for `Dictionary` input, whose order is
    /// random; without it, structs keep their declaration order.
    public let alphabetizeKeyValuePairs: Bool
    /// How arrays are written.
    public let arrayEncoding: ArrayEncoding
    /// How `Bool`s are written.
    public let boolEncoding: BoolEncoding
    /// How `Data` is written.
    public let dataEncoding: DataEncoding
    /// How `Date`s are written.
    public let dateEncoding: DateEncoding
    /// How keys are written.
    public let keyEncoding: KeyEncoding
    /// How nested keys are joined.
    public let keyPathEncoding: KeyPathEncoding
    /// How `nil` is written.
    public let nilEncoding: NilEncoding
    /// How spaces are written.
    public let spaceEncoding: SpaceEncoding

    private let allowed: Mutex<CharacterSet>

    /// Characters written as they are; every other character is percent-encoded as UTF-8.
    ///
    /// Only ASCII members count: non-ASCII characters are always percent-encoded. Spaces follow
    /// ``spaceEncoding`` whatever this set says.
    public var allowedCharacters: CharacterSet {
        get { allowed.withLock { $0 } }
        set { allowed.withLock { $0 = newValue } }
    }

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - alphabetizeKeyValuePairs: Sort each object's pairs by key. `true` by default.
    ///   - arrayEncoding:            `.brackets` by default.
    ///   - boolEncoding:             `.numeric` by default.
    ///   - dataEncoding:             `.base64` by default.
    ///   - dateEncoding:             `.deferredToDate` by default.
    ///   - keyEncoding:              `.useDefaultKeys` by default.
    ///   - keyPathEncoding:          `.brackets` by default.
    ///   - nilEncoding:              `.dropKey` by default.
    ///   - spaceEncoding:            `.percentEscaped` by default.
    ///   - allowedCharacters:        `.afURLQueryAllowed` by default.
    public init(
        alphabetizeKeyValuePairs: Bool = true,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        dataEncoding: DataEncoding = .base64,
        dateEncoding: DateEncoding = .deferredToDate,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        keyPathEncoding: KeyPathEncoding = .brackets,
        nilEncoding: NilEncoding = .dropKey,
        spaceEncoding: SpaceEncoding = .percentEscaped,
        allowedCharacters: CharacterSet = .afURLQueryAllowed
    ) {
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.keyPathEncoding = keyPathEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
        self.allowed = Mutex(allowedCharacters)
    }

    /// Encodes a value as form text.
    ///
    /// - Parameter value: A value that encodes as a keyed object.
    /// - Returns: The form text; empty when the object has no pairs.
    /// - Throws: ``Error/invalidRootObject(_:)`` if the value is not keyed at the top level, or any
    ///   error the value's `encode(to:)` or a custom encoding closure throws.
    public func encode(_ value: any Encodable) throws -> String {
        let root = FormNode()
        try FormEncoder(root: root, path: [], codingPath: [], options: valueOptions).box(value)
        guard root.kind == .object || root.kind == .empty else {
            throw Error.invalidRootObject(root.debugDescription)
        }
        let serializer = FormSerializer(
            alphabetize: alphabetizeKeyValuePairs,
            arrayEncoding: arrayEncoding,
            keyEncoding: keyEncoding,
            keyPathEncoding: keyPathEncoding,
            escaper: PercentEncoder(allowing: allowedCharacters, spaceReplacement: spaceEncoding.replacement)
        )
        return serializer.serialize(root)
    }

    /// Encodes a value as the UTF-8 bytes of its form text.
    ///
    /// - Parameter value: A value that encodes as a keyed object.
    /// - Returns: The form text's bytes.
    /// - Throws: As ``encode(_:)-(Encodable)->String``.
    public func encode(_ value: any Encodable) throws -> Data {
        let text: String = try encode(value)
        return Data(text.utf8)
    }

    private var valueOptions: FormEncoder.Options {
        FormEncoder.Options(boolEncoding: boolEncoding, dataEncoding: dataEncoding, dateEncoding: dateEncoding, nilEncoding: nilEncoding)
    }
}

/// Flattens a ``FormNode`` tree into `name=value` pairs joined with `&`.
///
/// With `alphabetize`, each object's and each array's serialized segments (one per member or
/// element, each already `name=value&…`) are sorted as text, as Alamofire does: the order is a
/// function of the output alone, so a `Dictionary`'s random order never shows, but an array's
/// elements are sorted too (`a[]=2&a[]=1` comes out as `a[]=1&a[]=2`).
struct FormSerializer {
    let alphabetize: Bool
    let arrayEncoding: URLEncodedFormEncoder.ArrayEncoding
    let keyEncoding: URLEncodedFormEncoder.KeyEncoding
    let keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding
    let escaper: PercentEncoder

    /// Serializes the root object; an empty root gives an empty string.
    func serialize(_ root: FormNode) -> String {
        joined(root.children.map { serialize($0.node, name: keyEncoding.encode($0.key ?? "")) })
    }

    private func serialize(_ node: FormNode, name: String) -> String {
        switch node.kind {
        case .empty:
            return ""
        case .string:
            return "\(escaper.encode(name))=\(escaper.encode(node.string))"
        case .array:
            return joined(node.children.enumerated().map { index, element in
                serialize(element.node, name: arrayEncoding.encode(name, atIndex: index))
            })
        case .object:
            return joined(node.children.map { member in
                serialize(member.node, name: name + keyPathEncoding.encodeKeyPath(keyEncoding.encode(member.key ?? "")))
            })
        }
    }

    /// Joins segments with `&`, sorted if requested; empty segments (nodes with nothing) leave no `&`.
    private func joined(_ segments: [String]) -> String {
        let present = segments.filter { !$0.isEmpty }
        return (alphabetize ? present.sorted() : present).joined(separator: "&")
    }
}
