#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Untyped request parameters, for the ``ParameterEncoding`` API.
public typealias Parameters = [String: any Any]

/// Puts untyped ``Parameters`` into a request (Alamofire's older API; prefer ``ParameterEncoder``).
public protocol ParameterEncoding: Sendable {
    /// Returns the request with `parameters` encoded into it.
    ///
    /// - Parameters:
    ///   - urlRequest: The request, or something that makes one.
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    /// - Returns: The updated request.
    /// - Throws: Whatever `urlRequest.asURLRequest()` throws, or an ``AFError/parameterEncodingFailed(reason:)``.
    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest
}

/// Encodes ``Parameters`` as URL-encoded form text, in the query or the body.
///
/// Keys are sorted at every level. Nested dictionaries become `key[nested]`, arrays follow
/// ``ArrayEncoding``, `Bool`s follow ``BoolEncoding``, `nil` optionals are left out, and other
/// values are written with string interpolation. Names and values are escaped with
/// `CharacterSet.afURLQueryAllowed`; spaces become `%20`.
public struct URLEncoding: ParameterEncoding {
    /// Where the encoded parameters go.
    public enum Destination: Sendable {
        /// The query for `GET`, `HEAD` and `DELETE`; the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body, with `Content-Type: application/x-www-form-urlencoded; charset=utf-8`
        /// unless one is set.
        case httpBody

        /// Whether parameters for `method` go into the URL.
        func encodesParametersInURL(for method: HTTPMethod) -> Bool {
            switch self {
            case .methodDependent: [.get, .head, .delete].contains(method)
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// How array elements are named.
    public enum ArrayEncoding: Sendable {
        /// `key[]=1&key[]=2` (the default).
        case brackets
        /// `key=1&key=2`.
        case noBrackets
        /// `key[0]=1&key[1]=2`.
        case indexInBrackets
        /// Names each element with a closure of the key and the index.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        func encode(_ key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            case let .custom(encoding): encoding(key, index)
            }
        }
    }

    /// How `Bool`s are written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal

        func encode(_ value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// ``Destination/methodDependent`` with default array and bool encodings.
    public static var `default`: URLEncoding { URLEncoding() }
    /// ``Destination/queryString`` with default array and bool encodings.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// ``Destination/httpBody`` with default array and bool encodings.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    // Stored in this order so the struct fits an existential's inline buffer (3 words): the
    // 16-byte `arrayEncoding` first, then the two one-byte enums (18 bytes). `destination` first
    // padded it to 25 bytes, and `Session.request`'s default `encoding: URLEncoding.default`,
    // boxed as `any ParameterEncoding`, cost an allocation per request.
    /// How arrays are written.
    public let arrayEncoding: ArrayEncoding
    /// Where the parameters go.
    public let destination: Destination
    /// How `Bool`s are written.
    public let boolEncoding: BoolEncoding

    /// Creates an encoding.
    ///
    /// - Parameters:
    ///   - destination:   ``Destination/methodDependent`` by default.
    ///   - arrayEncoding: ``ArrayEncoding/brackets`` by default.
    ///   - boolEncoding:  ``BoolEncoding/numeric`` by default.
    public init(destination: Destination = .methodDependent, arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// Encodes `parameters` into the request's query or body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request.
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    /// - Returns: The updated request.
    /// - Throws: ``AFError/parameterEncodingFailed(reason:)`` with ``AFError/ParameterEncodingFailureReason/missingURL``
    ///   if the query is the destination and the request has no URL (or the new URL does not parse).
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters else { return request }
        if destination.encodesParametersInURL(for: request.method ?? .get) {
            guard let url = request.url, let newURL = url.appendingPercentEncodedQuery(query(parameters)) else {
                throw AFError.parameterEncodingFailed(reason: .missingURL)
            }
            request.url = newURL
        } else {
            if request.headers["Content-Type"] == nil {
                request.headers.update(.contentType("application/x-www-form-urlencoded; charset=utf-8"))
            }
            request.httpBody = Data(query(parameters).utf8)
        }
        return request
    }

    /// Returns the escaped name/value pairs for one parameter, recursing into dictionaries and arrays.
    ///
    /// - Parameters:
    ///   - key:   The parameter's name, unescaped.
    ///   - value: Its value.
    /// - Returns: Escaped `(name, value)` pairs, in order.
    public func queryComponents(fromKey key: String, value: Any) -> [(String, String)] {
        switch unwrapped(value) {
        case nil:
            return []
        case let dictionary as [String: Any]:
            return dictionary.keys.sorted().flatMap { nestedKey in
                queryComponents(fromKey: "\(key)[\(nestedKey)]", value: dictionary[nestedKey]!)
            }
        case let array as [Any]:
            return array.enumerated().flatMap { index, element in
                queryComponents(fromKey: arrayEncoding.encode(key, atIndex: index), value: element)
            }
        case let scalar?:
            // Test the dynamic type exactly: with Foundation, an NSNumber 0 or 1 also casts to Bool.
            if type(of: scalar) == Bool.self, let bool = scalar as? Bool {
                return [(escape(key), escape(boolEncoding.encode(bool)))]
            }
            #if FullFoundation
            if let number = scalar as? NSNumber, type(of: scalar) is NSNumber.Type {
                if number.isBool { return [(escape(key), escape(boolEncoding.encode(number.boolValue)))] }
                if number.isFloatingPoint { return [(escape(key), escape(Self.numberText(number.doubleValue)))] }
            }
            #endif
            switch scalar {
            case let double as Double where type(of: scalar) == Double.self:
                return [(escape(key), escape(Self.numberText(double)))]
            case let float as Float where type(of: scalar) == Float.self:
                return [(escape(key), escape(Self.numberText(Double(float), shortest: float.description)))]
            default:
                return [(escape(key), escape("\(scalar)"))]
            }
        }
    }

    /// A floating-point parameter as Alamofire writes it (through `NSNumber` on Apple platforms):
    /// a whole number below 10^16 without a fraction (`1.0` → `1`, `0.0` → `0`, `-3.0` → `-3`),
    /// anything else as Swift prints it (`1.5`, `1e+20`, `nan`).
    ///
    /// - Parameters:
    ///   - value: The number.
    ///   - shortest: The text for a non-whole value; `value`'s own description when `nil`
    ///     (a `Float` passes its own, so `0.1` stays `0.1` and not `0.10000000149011612`).
    static func numberText(_ value: Double, shortest: String? = nil) -> String {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 1e16 {
            return value == 0 ? "0" : String(Int64(value))
        }
        return shortest ?? value.description
    }

    /// Percent-encodes a string with `CharacterSet.afURLQueryAllowed`.
    ///
    /// - Parameter string: The text.
    /// - Returns: The escaped text.
    public func escape(_ string: String) -> String {
        URLEncoding.escaper.encode(string)
    }

    private static let escaper = PercentEncoder(allowing: .afURLQueryAllowed)

    private func query(_ parameters: Parameters) -> String {
        parameters.keys.sorted()
            .flatMap { queryComponents(fromKey: $0, value: parameters[$0]!) }
            .map { "\($0)=\($1)" }
            .joined(separator: "&")
    }
}

/// Looks through `Optional` wrappers hidden inside `Any`: `nil` for a nil optional, the payload otherwise.
func unwrapped(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first.flatMap { unwrapped($0.value) }
}

#if FullFoundation
extension NSNumber {
    /// Whether the number was made from a `Bool` (its Objective-C type code is `c`).
    fileprivate var isBool: Bool {
        String(cString: objCType) == "c"
    }

    /// Whether the number holds a `Double` or `Float` (type code `d` or `f`).
    fileprivate var isFloatingPoint: Bool {
        let code = String(cString: objCType)
        return code == "d" || code == "f"
    }
}
#endif
