#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Returns the body bytes, after the preprocessor.
public final class DataResponseSerializer: ResponseSerializer {
    /// Applied to non-empty bodies.
    public let dataPreprocessor: any DataPreprocessor
    /// Status codes that may have an empty body.
    public let emptyResponseCodes: Set<Int>
    /// Methods that may have an empty body.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    public init(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the body.
    ///
    /// - Returns: The preprocessed body, or empty `Data` for an allowed empty body.
    /// - Throws: `error` if set; ``AFError/ResponseSerializationFailureReason/inputDataNilOrZeroLength``
    ///   for a disallowed empty body; whatever the preprocessor throws.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> Data {
        if let error { throw error }
        guard let data, !data.isEmpty else {
            guard emptyResponseAllowed(request: request, response: response) else {
                throw AFError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return Data()
        }
        return try dataPreprocessor.preprocess(data)
    }
}

extension DataResponseSerializer {
    /// A serializer with every default, made once: `responseData` and `serializingData` called
    /// with their default arguments share it instead of making one per request (an allocation).
    /// It holds only its immutable settings, so sharing it changes no result.
    static let withDefaults = DataResponseSerializer()

    /// ``withDefaults`` when the arguments are the defaults (the pass-through preprocessor and the
    /// default sets), else a new serializer with them.
    static func reusingDefaults(dataPreprocessor: any DataPreprocessor, emptyResponseCodes: Set<Int>,
                                emptyRequestMethods: Set<HTTPMethod>) -> DataResponseSerializer {
        if dataPreprocessor is PassthroughPreprocessor, emptyResponseCodes == defaultEmptyResponseCodes,
           emptyRequestMethods == defaultEmptyRequestMethods {
            return withDefaults
        }
        return DataResponseSerializer(dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes,
                                      emptyRequestMethods: emptyRequestMethods)
    }
}

extension ResponseSerializer where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer``.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    /// - Returns: The serializer.
    public static func data(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataResponseSerializer {
        DataResponseSerializer(dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}

/// Decodes the body as text.
///
/// The encoding is, in order: the one given to the initializer; the response's `charset`
/// (``HTTPURLResponse/textEncodingName``) if Lariat knows its name; ISO-8859-1, the historical
/// HTTP default Alamofire also uses. ISO-8859-1 maps every byte, so the fallback never fails.
public final class StringResponseSerializer: ResponseSerializer {
    /// Applied to non-empty bodies.
    public let dataPreprocessor: any DataPreprocessor
    /// The encoding to use, or `nil` to take it from the response.
    public let encoding: String.Encoding?
    /// Status codes that may have an empty body.
    public let emptyResponseCodes: Set<Int>
    /// Methods that may have an empty body.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - encoding:            The encoding; `nil` (the default) takes it from the response.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    public init(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.encoding = encoding
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Returns the body as text.
    ///
    /// - Returns: The text, or `""` for an allowed empty body.
    /// - Throws: `error` if set; `.inputDataNilOrZeroLength` for a disallowed empty body;
    ///   ``AFError/ResponseSerializationFailureReason/stringSerializationFailed(encoding:)`` if the
    ///   bytes are not valid in the chosen encoding; whatever the preprocessor throws.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> String {
        if let error { throw error }
        guard var data, !data.isEmpty else {
            guard emptyResponseAllowed(request: request, response: response) else {
                throw AFError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            return ""
        }
        data = try dataPreprocessor.preprocess(data)
        let actualEncoding = encoding
            ?? response?.textEncodingName.flatMap(String.Encoding.init(ianaCharsetName:))
            ?? .isoLatin1
        guard let string = String(data: data, encoding: actualEncoding) else {
            throw AFError.responseSerializationFailed(reason: .stringSerializationFailed(encoding: actualEncoding))
        }
        return string
    }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer``.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - encoding:            `nil` (from the response) by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    /// - Returns: The serializer.
    public static func string(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> StringResponseSerializer {
        StringResponseSerializer(dataPreprocessor: dataPreprocessor, encoding: encoding, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}

/// Decodes the body into a `Decodable` type with a ``DataDecoder``.
///
/// An allowed empty body decodes only if `T` conforms to ``EmptyResponse`` (like ``Empty``).
public final class DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// Applied to non-empty bodies.
    public let dataPreprocessor: any DataPreprocessor
    /// The decoder.
    public let decoder: any DataDecoder
    /// Status codes that may have an empty body.
    public let emptyResponseCodes: Set<Int>
    /// Methods that may have an empty body.
    public let emptyRequestMethods: Set<HTTPMethod>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - decoder:             A new `JSONDecoder` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    public init(
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer.defaultEmptyRequestMethods
    ) {
        self.dataPreprocessor = dataPreprocessor
        self.decoder = decoder
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// Decodes the body.
    ///
    /// - Returns: The decoded value, or `T.emptyValue()` for an allowed empty body.
    /// - Throws: `error` if set; `.inputDataNilOrZeroLength` for a disallowed empty body;
    ///   ``AFError/ResponseSerializationFailureReason/invalidEmptyResponse(type:)`` for an allowed empty
    ///   body when `T` is not an ``EmptyResponse``; ``AFError/ResponseSerializationFailureReason/decodingFailed(error:)``
    ///   when the decoder throws; whatever the preprocessor throws.
    public func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> T {
        if let error { throw error }
        guard var data, !data.isEmpty else {
            guard emptyResponseAllowed(request: request, response: response) else {
                throw AFError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
            }
            guard let emptyType = T.self as? any EmptyResponse.Type, let emptyValue = emptyType.emptyValue() as? T else {
                throw AFError.responseSerializationFailed(reason: .invalidEmptyResponse(type: "\(T.self)"))
            }
            return emptyValue
        }
        data = try dataPreprocessor.preprocess(data)
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw AFError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

extension ResponseSerializer {
    /// A ``DecodableResponseSerializer`` for `type`.
    ///
    /// - Parameters:
    ///   - type:                The type to decode.
    ///   - dataPreprocessor:    ``PassthroughPreprocessor`` by default.
    ///   - decoder:             A new `JSONDecoder` by default.
    ///   - emptyResponseCodes:  `[204, 205]` by default.
    ///   - emptyRequestMethods: `[.head]` by default.
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> DecodableResponseSerializer<T> where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(dataPreprocessor: dataPreprocessor, decoder: decoder, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods)
    }
}

/// Returns a download's file URL without reading the file.
public struct URLResponseSerializer: DownloadResponseSerializerProtocol {
    /// Creates the serializer.
    public init() {}

    /// Returns the file URL.
    ///
    /// - Returns: `fileURL`.
    /// - Throws: `error` if set; ``AFError/ResponseSerializationFailureReason/inputFileNil`` without a file.
    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: (any Error)?) throws -> URL {
        if let error { throw error }
        guard let fileURL else { throw AFError.responseSerializationFailed(reason: .inputFileNil) }
        return fileURL
    }
}

extension DownloadResponseSerializerProtocol where Self == URLResponseSerializer {
    /// A ``URLResponseSerializer``.
    public static var url: URLResponseSerializer { URLResponseSerializer() }
}
