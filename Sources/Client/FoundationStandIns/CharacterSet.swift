// Client's own CharacterSet, compiled only without the FullFoundation trait: FoundationEssentials
// has no CharacterSet, and Alamofire's encoders take one (`allowedCharacters`). With the trait on,
// Foundation's CharacterSet is used instead.
#if !FullFoundation

/// A set of Unicode scalars, for choosing which characters percent-encoding leaves alone.
///
/// A stand-in for Foundation's `CharacterSet` covering the members Alamofire-style code uses:
/// the URL component sets, letter and whitespace classes, building sets from strings, and set
/// algebra. Membership of the named classes follows Unicode properties (`Unicode.Scalar.Properties`).
public struct CharacterSet: Sendable {
    /// A named class of scalars, tested through Unicode properties.
    fileprivate enum Property: Sendable {
        case letters, uppercaseLetters, lowercaseLetters, decimalDigits, alphanumerics
        case whitespaces, newlines, whitespacesAndNewlines

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch self {
            case .letters: return properties.isAlphabetic
            case .uppercaseLetters: return properties.generalCategory == .uppercaseLetter
                || properties.generalCategory == .titlecaseLetter
            case .lowercaseLetters: return properties.generalCategory == .lowercaseLetter
            case .decimalDigits: return properties.generalCategory == .decimalNumber
            case .alphanumerics: return properties.isAlphabetic || properties.numericType != nil
            case .whitespaces: return properties.generalCategory == .spaceSeparator || scalar == "\t"
            case .newlines: return (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85
                || scalar.value == 0x2028 || scalar.value == 0x2029
            case .whitespacesAndNewlines:
                return Property.whitespaces.contains(scalar) || Property.newlines.contains(scalar)
            }
        }
    }

    /// The set as an expression over explicit scalars and named classes.
    fileprivate indirect enum Node: Sendable {
        case scalars(Set<Unicode.Scalar>)
        case range(ClosedRange<UInt32>)
        case property(Property)
        case union(Node, Node)
        case subtracting(Node, Node)
        case inverted(Node)

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case let .scalars(set): set.contains(scalar)
            case let .range(range): range.contains(scalar.value)
            case let .property(property): property.contains(scalar)
            case let .union(lhs, rhs): lhs.contains(scalar) || rhs.contains(scalar)
            case let .subtracting(lhs, rhs): lhs.contains(scalar) && !rhs.contains(scalar)
            case let .inverted(node): !node.contains(scalar)
            }
        }
    }

    private var node: Node

    private init(node: Node) {
        self.node = node
    }

    /// Creates an empty set.
    public init() {
        node = .scalars([])
    }

    /// Creates a set of the scalars in a string.
    ///
    /// - Parameter string: Every Unicode scalar of this string is a member.
    public init(charactersIn string: String) {
        node = .scalars(Set(string.unicodeScalars))
    }

    /// Creates a set of a closed range of scalars.
    ///
    /// - Parameter range: The scalars from `lowerBound` through `upperBound`.
    public init(charactersIn range: ClosedRange<Unicode.Scalar>) {
        node = .range(range.lowerBound.value...range.upperBound.value)
    }

    /// Whether a scalar is a member.
    ///
    /// - Parameter member: The scalar to test.
    /// - Returns: `true` if it is in the set.
    public func contains(_ member: Unicode.Scalar) -> Bool {
        node.contains(member)
    }

    /// Adds one scalar.
    ///
    /// - Parameter member: The scalar to add.
    public mutating func insert(_ member: Unicode.Scalar) {
        node = .union(node, .scalars([member]))
    }

    /// Adds the scalars of a string.
    ///
    /// - Parameter string: Its scalars become members.
    public mutating func insert(charactersIn string: String) {
        node = .union(node, .scalars(Set(string.unicodeScalars)))
    }

    /// Removes one scalar.
    ///
    /// - Parameter member: The scalar to remove.
    public mutating func remove(_ member: Unicode.Scalar) {
        node = .subtracting(node, .scalars([member]))
    }

    /// Removes the scalars of a string.
    ///
    /// - Parameter string: Its scalars stop being members.
    public mutating func remove(charactersIn string: String) {
        node = .subtracting(node, .scalars(Set(string.unicodeScalars)))
    }

    /// Returns the members of either set.
    ///
    /// - Parameter other: Another set.
    /// - Returns: The union.
    public func union(_ other: CharacterSet) -> CharacterSet {
        CharacterSet(node: .union(node, other.node))
    }

    /// Adds the members of another set.
    ///
    /// - Parameter other: Another set.
    public mutating func formUnion(_ other: CharacterSet) {
        node = .union(node, other.node)
    }

    /// Returns the members of this set that are not in `other`.
    ///
    /// - Parameter other: The set to remove.
    /// - Returns: The difference.
    public func subtracting(_ other: CharacterSet) -> CharacterSet {
        CharacterSet(node: .subtracting(node, other.node))
    }

    /// Removes the members of another set.
    ///
    /// - Parameter other: The set to remove.
    public mutating func subtract(_ other: CharacterSet) {
        node = .subtracting(node, other.node)
    }

    /// Every scalar that is not a member.
    public var inverted: CharacterSet {
        CharacterSet(node: .inverted(node))
    }
}

extension CharacterSet {
    private static let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    private static let subDelimiters = "!$&'()*+,;="

    /// Characters allowed unescaped in a URL query (RFC 3986 §3.4): unreserved, sub-delimiters, `:@/?`.
    public static var urlQueryAllowed: CharacterSet { CharacterSet(charactersIn: unreserved + subDelimiters + ":@/?") }

    /// Characters allowed unescaped in a URL fragment (RFC 3986 §3.5); the same as the query set.
    public static var urlFragmentAllowed: CharacterSet { urlQueryAllowed }

    /// Characters allowed unescaped in a URL path: unreserved, sub-delimiters except `;`, and `:@/`
    /// (Foundation's choice, stricter than RFC 3986 §3.3).
    public static var urlPathAllowed: CharacterSet { CharacterSet(charactersIn: unreserved + "!$&'()*+,=" + ":@/") }

    /// Characters allowed unescaped in a URL host: unreserved, sub-delimiters, `:[]`.
    public static var urlHostAllowed: CharacterSet { CharacterSet(charactersIn: unreserved + subDelimiters + ":[]") }

    /// Characters allowed unescaped in a URL user name: unreserved and sub-delimiters.
    public static var urlUserAllowed: CharacterSet { CharacterSet(charactersIn: unreserved + subDelimiters) }

    /// Characters allowed unescaped in a URL password: unreserved and sub-delimiters.
    public static var urlPasswordAllowed: CharacterSet { urlUserAllowed }

    /// Letters (Unicode `Alphabetic`).
    public static var letters: CharacterSet { CharacterSet(node: .property(.letters)) }

    /// Upper- and title-case letters (Unicode categories Lu and Lt).
    public static var uppercaseLetters: CharacterSet { CharacterSet(node: .property(.uppercaseLetters)) }

    /// Lower-case letters (Unicode category Ll).
    public static var lowercaseLetters: CharacterSet { CharacterSet(node: .property(.lowercaseLetters)) }

    /// Decimal digits (Unicode category Nd).
    public static var decimalDigits: CharacterSet { CharacterSet(node: .property(.decimalDigits)) }

    /// Letters and numbers.
    public static var alphanumerics: CharacterSet { CharacterSet(node: .property(.alphanumerics)) }

    /// Space separators (Unicode category Zs) and tab.
    public static var whitespaces: CharacterSet { CharacterSet(node: .property(.whitespaces)) }

    /// Line and paragraph separators: U+000A through U+000D, U+0085, U+2028, U+2029.
    public static var newlines: CharacterSet { CharacterSet(node: .property(.newlines)) }

    /// The union of ``whitespaces`` and ``newlines``.
    public static var whitespacesAndNewlines: CharacterSet { CharacterSet(node: .property(.whitespacesAndNewlines)) }
}
#endif
