/// A namespace for Lariat's additions to another type, reached through `.af`, as in Alamofire:
/// `URLSessionConfiguration.af.default`.
///
/// Extend `AlamofireExtension where ExtendedType == SomeType` (or `: SomeType`) to add members.
public struct AlamofireExtension<ExtendedType> {
    /// The extended value (for instance members) or type (for static members).
    public private(set) var type: ExtendedType

    /// Wraps a value or type.
    ///
    /// - Parameter type: The value or type to extend.
    public init(_ type: ExtendedType) {
        self.type = type
    }
}

extension AlamofireExtension: Sendable where ExtendedType: Sendable {}

/// A type with an `af` namespace for Lariat's additions.
public protocol AlamofireExtended {
    /// The type being extended; `Self` for the default implementation.
    associatedtype ExtendedType

    /// The static namespace, as in `URLSessionConfiguration.af.default`.
    static var af: AlamofireExtension<ExtendedType>.Type { get set }

    /// The instance namespace, as in `trust.af.certificates`.
    var af: AlamofireExtension<ExtendedType> { get set }
}

extension AlamofireExtended {
    /// The static namespace. Setting has no effect; the setter exists so `mutating` extension members work.
    public static var af: AlamofireExtension<Self>.Type {
        get { AlamofireExtension<Self>.self }
        set {}
    }

    /// The instance namespace. Setting has no effect; the setter exists so `mutating` extension members work.
    public var af: AlamofireExtension<Self> {
        get { AlamofireExtension(self) }
        set {}
    }
}
