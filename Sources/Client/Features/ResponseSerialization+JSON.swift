// `JSONResponseSerializer` and `responseJSON`: the body parsed by Foundation's JSONSerialization
// into untyped values. Deprecated, as in Alamofire (decode a `Decodable` type instead), but kept
// because much existing code still calls it.
//
// Two differences from Alamofire, both forced by Swift 6:
// - The value is `any Sendable`, not `Any`: Alamofire builds in the Swift 5 language mode, where
//   `DataResponse<Any, AFError>` only warns that `Any` is not `Sendable`; Lariat builds in Swift 6,
//   where it is an error. The parsed containers are rebuilt as `[String: any Sendable]` and
//   `[any Sendable]`, so the usual casts (`value as? [String: Any]`, `dict["k"] as? [String: String]`)
//   behave as with Alamofire's `Any`.
// - Only with the `FullFoundation` trait: JSONSerialization (and its `ReadingOptions`) is part of
//   Foundation, not FoundationEssentials. Without the trait these declarations are absent;
//   ``DecodableResponseSerializer`` with `JSONDecoder` (in FoundationEssentials) is the way there.
#if FullFoundation
public import Foundation
public import Dispatch

/// Parses the body with `JSONSerialization` into dictionaries, arrays, strings, `NSNumber`s and `NSNull`.
///
/// An allowed empty body (see ``ResponseSerializer``) gives `NSNull()`.
@available(*, deprecated, message: "JSONResponseSerializer is deprecated, as in Alamofire: use DecodableResponseSerializer.")
public final class JSONResponseSerializer: ResponseSerializer {
    /// Applied to non-empty bodies.
    public let dataPreprocessor: any DataPreprocessor
    /// Status codes that may have an empty body.
    public let emptyResponseCodes: Set<Int>
    /// Methods that may have an empty body.
    public let emptyRequestMethods: Set<HTTPMethod>
    /// The options given to `JSONSerialization.jsonObject(with:options:)`.
    public let options: JSONSerialization.ReadingOptions

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    ///   - options:             `.allowFragments` by default (a bare string or number parses).
    public init(
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
        self.options = options
    }

    /// Parses the body.
    ///
    /// - Returns: The parsed value, or `NSNull()` for an allowed empty body.
    /// - Throws: `error` if set; ``AFError/ResponseSerializationFailureReason/inputDataNilOrZeroLength``
    ///   for a disallowed empty body; ``AFError/ResponseSerializationFailureReason/jsonSerializationFailed(error:)``
    ///   if the bytes are not JSON; whatever the preprocessor throws.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> any Sendable {
        if let error { throw error }
        guard var data, !data.isEmpty else {
            guard emptyResponseAllowed(request: request, response: response) else {
                throw AFError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return NSNull()
        }
        data = try dataPreprocessor.preprocess(data)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: options)
        } catch {
            throw AFError.responseSerializationFailed(reason: .jsonSerializationFailed(error: error))
        }
        return Self.sendable(object)
    }

    /// Rebuilds JSONSerialization's output with `Sendable` containers. Leaves are `String`,
    /// `NSNumber` (also for booleans, as JSONSerialization makes them) and `NSNull`, all `Sendable`.
    static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let dictionary as [String: Any]: dictionary.mapValues(sendable)
        case let array as [Any]: array.map(sendable)
        case let string as String: string
        case let number as NSNumber: number
        default: NSNull()  // JSONSerialization makes nothing else
        }
    }
}

extension DataRequest {
    /// Calls `completionHandler` on `queue` with the body parsed by ``JSONResponseSerializer``.
    ///
    /// - Parameters:
    ///   - queue:               `.main` by default.
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    ///   - options:             `.allowFragments` by default.
    ///   - completionHandler:   Receives the response; its value is `any Sendable` (see this file's header).
    /// - Returns: The request.
    @available(*, deprecated, message: "responseJSON is deprecated, as in Alamofire: use responseDecodable.")
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments,
        completionHandler: @escaping @Sendable (AFDataResponse<any Sendable>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods, options: options
        ), completionHandler: completionHandler)
    }
}

extension DownloadRequest {
    /// Calls `completionHandler` on `queue` with the downloaded file parsed by ``JSONResponseSerializer``.
    ///
    /// - Parameters:
    ///   - queue:               `.main` by default.
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    ///   - options:             `.allowFragments` by default.
    ///   - completionHandler:   Receives the response; its value is `any Sendable` (see this file's header).
    /// - Returns: The request.
    @available(*, deprecated, message: "responseJSON is deprecated, as in Alamofire: use responseDecodable.")
    @discardableResult
    public func responseJSON(
        queue: DispatchQueue = .main,
        dataPreprocessor: any DataPreprocessor = JSONResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = JSONResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = JSONResponseSerializer.defaultEmptyRequestMethods,
        options: JSONSerialization.ReadingOptions = .allowFragments,
        completionHandler: @escaping @Sendable (AFDownloadResponse<any Sendable>) -> Void
    ) -> Self {
        response(queue: queue, responseSerializer: JSONResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
            emptyRequestMethods: emptyRequestMethods, options: options
        ), completionHandler: completionHandler)
    }
}
#endif
