#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Turns a data request's raw outcome into a value.
public protocol DataResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The type produced.
    associatedtype SerializedObject: Sendable

    /// Produces a value from the request's outcome.
    ///
    /// - Parameters:
    ///   - request:  The request sent, if any.
    ///   - response: The response head, if any.
    ///   - data:     The body, if any.
    ///   - error:    The transfer or validation error, if any.
    /// - Returns: The value.
    /// - Throws: `error` when it is set, else an ``AFError/responseSerializationFailed(reason:)``.
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> SerializedObject
}

/// Turns a download's raw outcome into a value.
public protocol DownloadResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The type produced.
    associatedtype SerializedObject: Sendable

    /// Produces a value from the download's outcome.
    ///
    /// - Parameters:
    ///   - request:  The request sent, if any.
    ///   - response: The response head, if any.
    ///   - fileURL:  The downloaded file, if any.
    ///   - error:    The transfer or validation error, if any.
    /// - Returns: The value.
    /// - Throws: `error` when it is set, else an ``AFError/responseSerializationFailed(reason:)``.
    func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> SerializedObject
}

/// A serializer for both data and downloads, with the empty-body rules and a preprocessor.
///
/// An empty or missing body is accepted when the request method is in ``emptyRequestMethods``
/// (`HEAD` by default) or the status code is in ``emptyResponseCodes`` (204 and 205 by default):
/// RFC 9110 §9.3.2 and §15.3.5–6 say those carry no content.
public protocol ResponseSerializer<SerializedObject>: DataResponseSerializerProtocol & DownloadResponseSerializerProtocol {
    /// Applied to non-empty bodies before serialization.
    var dataPreprocessor: any DataPreprocessor { get }
    /// Methods whose responses may have an empty body.
    var emptyRequestMethods: Set<HTTPMethod> { get }
    /// Status codes whose responses may have an empty body.
    var emptyResponseCodes: Set<Int> { get }
}

/// Transforms a body before a serializer reads it.
public protocol DataPreprocessor: Sendable {
    /// Returns the transformed body.
    ///
    /// - Parameter data: The body, never empty.
    /// - Returns: The bytes to serialize.
    /// - Throws: Any error, which fails serialization.
    func preprocess(_ data: Data) throws -> Data
}

/// A preprocessor that returns the body unchanged.
public struct PassthroughPreprocessor: DataPreprocessor {
    /// Creates the preprocessor.
    public init() {}

    /// Returns `data` unchanged.
    ///
    /// - Parameter data: The body.
    /// - Returns: The same bytes.
    public func preprocess(_ data: Data) throws -> Data { data }
}

/// A preprocessor that strips Google's cross-site-script-inclusion guard, `)]}',` and a line feed,
/// from the start of a JSON body.
public struct GoogleXSSIPreprocessor: DataPreprocessor {
    private static let prefix = Data(")]}',\n".utf8)

    /// Creates the preprocessor.
    public init() {}

    /// Returns `data` without the guard prefix, or unchanged if it has none.
    ///
    /// - Parameter data: The body.
    /// - Returns: The bytes after the prefix.
    public func preprocess(_ data: Data) throws -> Data {
        data.starts(with: Self.prefix) ? data.dropFirst(Self.prefix.count) : data
    }
}

extension DataPreprocessor where Self == PassthroughPreprocessor {
    /// A ``PassthroughPreprocessor``.
    public static var passthrough: PassthroughPreprocessor { PassthroughPreprocessor() }
}

extension DataPreprocessor where Self == GoogleXSSIPreprocessor {
    /// A ``GoogleXSSIPreprocessor``.
    public static var googleXSSI: GoogleXSSIPreprocessor { GoogleXSSIPreprocessor() }
}

/// The defaults below, built once: a protocol extension cannot store a `static let`, and a set
/// literal read through a computed property allocates its storage on every read (twice per
/// `responseData` call, through its default arguments).
private let storedEmptyRequestMethods: Set<HTTPMethod> = [.head]
private let storedEmptyResponseCodes: Set<Int> = [204, 205]

extension ResponseSerializer {
    /// ``PassthroughPreprocessor``.
    public static var defaultDataPreprocessor: any DataPreprocessor { PassthroughPreprocessor() }
    /// `[.head]`.
    public static var defaultEmptyRequestMethods: Set<HTTPMethod> { storedEmptyRequestMethods }
    /// `[204, 205]`.
    public static var defaultEmptyResponseCodes: Set<Int> { storedEmptyResponseCodes }

    /// ``defaultDataPreprocessor``.
    public var dataPreprocessor: any DataPreprocessor { Self.defaultDataPreprocessor }
    /// ``defaultEmptyRequestMethods``.
    public var emptyRequestMethods: Set<HTTPMethod> { Self.defaultEmptyRequestMethods }
    /// ``defaultEmptyResponseCodes``.
    public var emptyResponseCodes: Set<Int> { Self.defaultEmptyResponseCodes }

    /// Whether the request's method allows an empty body.
    ///
    /// - Parameter request: The request.
    /// - Returns: `nil` if there is no request or method.
    public func requestAllowsEmptyResponseData(_ request: URLRequest?) -> Bool? {
        request?.method.map { emptyRequestMethods.contains($0) }
    }

    /// Whether the response's status code allows an empty body.
    ///
    /// - Parameter response: The response.
    /// - Returns: `nil` if there is no response.
    public func responseAllowsEmptyResponseData(_ response: HTTPURLResponse?) -> Bool? {
        response.map { emptyResponseCodes.contains($0.statusCode) }
    }

    /// Whether either the request or the response allows an empty body.
    ///
    /// - Parameters:
    ///   - request:  The request.
    ///   - response: The response.
    /// - Returns: `true` if either allows it.
    public func emptyResponseAllowed(request: URLRequest?, response: HTTPURLResponse?) -> Bool {
        requestAllowsEmptyResponseData(request) == true || responseAllowsEmptyResponseData(response) == true
    }
}

extension DownloadResponseSerializerProtocol where Self: DataResponseSerializerProtocol {
    /// Reads the downloaded file and serializes its bytes like a data response.
    ///
    /// - Parameters:
    ///   - request:  The request sent, if any.
    ///   - response: The response head, if any.
    ///   - fileURL:  The downloaded file.
    ///   - error:    The transfer or validation error, if any.
    /// - Returns: The value.
    /// - Throws: `error` if set; ``AFError/ResponseSerializationFailureReason/inputFileNil`` without a file;
    ///   ``AFError/ResponseSerializationFailureReason/inputFileReadFailed(at:)`` if it cannot be read;
    ///   otherwise whatever data serialization throws.
    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> SerializedObject {
        if let error { throw error }
        guard let fileURL else { throw AFError.responseSerializationFailed(reason: .inputFileNil) }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw AFError.responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL))
        }
        return try serialize(request: request, response: response, data: data, error: nil)
    }
}

/// Decodes `Decodable` values from bytes. `JSONDecoder` and `PropertyListDecoder` conform.
public protocol DataDecoder: Sendable {
    /// Decodes a value.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes.
    /// - Returns: The value.
    /// - Throws: Any decoding error.
    func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D
}

extension JSONDecoder: DataDecoder {}
extension PropertyListDecoder: DataDecoder {}

/// A type with a value that stands for an empty body, so it can be decoded from one.
public protocol EmptyResponse: Sendable {
    /// The value for an empty body.
    ///
    /// - Returns: The empty value.
    static func emptyValue() -> Self
}

/// A value for responses that have, or may have, no body: decode `Empty.self` for 204s and `HEAD`.
///
/// `Hashable` (so `Equatable`) as in Alamofire: every `Empty` equals every other, so a response
/// of `Empty` can be compared in tests and used in sets.
public struct Empty: Hashable, Codable, Sendable {
    /// The one value.
    public static let value = Empty()

    /// Creates the value; prefer ``value``.
    public init() {}
}

extension Empty: EmptyResponse {
    /// ``value``.
    ///
    /// - Returns: ``value``.
    public static func emptyValue() -> Empty { value }
}
