#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif

/// Encodes ``Parameters`` as a JSON body (Alamofire's older API; prefer ``JSONParameterEncoder``).
///
/// Sets `Content-Type: application/json` unless the request has a `Content-Type`. With the
/// `FullFoundation` trait the JSON comes from `JSONSerialization`; without it, from Lariat's own
/// writer, which accepts the same values: strings, numbers, `Bool`s, `nil` optionals (as `null`),
/// and arrays and `[String: …]` dictionaries of those.
public struct JSONEncoding: ParameterEncoding {
    #if FullFoundation
    /// Output options: Foundation's `JSONSerialization.WritingOptions`.
    public typealias WritingOptions = JSONSerialization.WritingOptions
    #else
    /// Output options, with the names of Foundation's `JSONSerialization.WritingOptions`.
    public struct WritingOptions: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: UInt

        /// Creates options from bits.
        ///
        /// - Parameter rawValue: The bits.
        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// Indent with two spaces and put each member on its own line.
        public static let prettyPrinted = WritingOptions(rawValue: 1 << 0)
        /// Sort object keys.
        public static let sortedKeys = WritingOptions(rawValue: 1 << 1)
        /// Allow a top-level value that is not an array or object.
        public static let fragmentsAllowed = WritingOptions(rawValue: 1 << 2)
        /// Write `/` as is instead of `\/`.
        public static let withoutEscapingSlashes = WritingOptions(rawValue: 1 << 3)
    }
    #endif

    /// Errors thrown while writing JSON.
    public enum Error: Swift.Error, Sendable {
        /// The parameters contain a value JSON cannot represent (or a non-finite number).
        case invalidJSONObject
    }

    /// Compact JSON.
    public static var `default`: JSONEncoding { JSONEncoding() }

    /// Indented JSON.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: .prettyPrinted) }

    /// The writing options.
    public let options: WritingOptions

    /// Creates an encoding.
    ///
    /// - Parameter options: The writing options. None by default.
    public init(options: WritingOptions = []) {
        self.options = options
    }

    /// Encodes `parameters` as the request body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request.
    ///   - parameters: The parameters; `nil` returns the request unchanged.
    /// - Returns: The updated request.
    /// - Throws: ``AFError/parameterEncodingFailed(reason:)`` with `.jsonEncodingFailed(error:)`
    ///   (holding ``Error/invalidJSONObject`` for unsupported values).
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try encode(urlRequest, withJSONObject: parameters)
    }

    /// Encodes any JSON-compatible value (typically an array) as the request body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request.
    ///   - jsonObject: The value; `nil` (the default) returns the request unchanged.
    /// - Returns: The updated request.
    /// - Throws: As ``encode(_:with:)``.
    public func encode(_ urlRequest: any URLRequestConvertible, withJSONObject jsonObject: Any? = nil) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let jsonObject else { return request }
        do {
            request.httpBody = try data(for: jsonObject)
        } catch {
            throw AFError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        if request.headers["Content-Type"] == nil {
            request.headers.update(.contentType("application/json"))
        }
        return request
    }

    private func data(for jsonObject: Any) throws -> Data {
        #if FullFoundation
        guard JSONSerialization.isValidJSONObject(jsonObject) || options.contains(.fragmentsAllowed) else {
            throw Error.invalidJSONObject
        }
        return try JSONSerialization.data(withJSONObject: jsonObject, options: options)
        #else
        return try JSONValueWriter(options: options).data(for: jsonObject)
        #endif
    }
}
