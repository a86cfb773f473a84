#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// Turns one chunk of a streamed body into a value.
public protocol DataStreamSerializer: Sendable {
    /// The value made from a chunk.
    associatedtype SerializedObject: Sendable

    /// Serializes one chunk.
    /// - Throws: Any error; the stream handler receives it as a failure.
    func serialize(_ data: Data) throws -> SerializedObject
}

/// Decodes each chunk as one `T`.
public struct DecodableStreamSerializer<T: Decodable>: DataStreamSerializer where T: Sendable {
    /// The decoder used.
    public let decoder: any DataDecoder
    /// Applied to each chunk before decoding.
    public let dataPreprocessor: any DataPreprocessor

    /// A serializer decoding with `decoder` (a `JSONDecoder` by default) after `dataPreprocessor`.
    public init(decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()) {
        self.decoder = decoder
        self.dataPreprocessor = dataPreprocessor
    }

    /// Decodes `data` as `T`.
    /// - Throws: `AFError.responseSerializationFailed` with `.decodingFailed`.
    public func serialize(_ data: Data) throws -> T {
        let processed = try dataPreprocessor.preprocess(data)
        do {
            return try decoder.decode(T.self, from: processed)
        } catch {
            throw AFError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

/// Hands each chunk on unchanged.
public struct PassthroughStreamSerializer: DataStreamSerializer {
    /// Creates the serializer.
    public init() {}

    /// Returns `data`.
    public func serialize(_ data: Data) throws -> Data { data }
}

/// Decodes each chunk as UTF-8 (invalid bytes replaced).
public struct StringStreamSerializer: DataStreamSerializer {
    /// Creates the serializer.
    public init() {}

    /// Returns `data` as a `String`.
    public func serialize(_ data: Data) throws -> String { String(decoding: data, as: UTF8.self) }
}

extension DataStreamSerializer {
    /// A ``DecodableStreamSerializer`` for `type`.
    public static func decodable<T: Decodable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> Self where Self == DecodableStreamSerializer<T> {
        DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: dataPreprocessor)
    }
}

extension DataStreamSerializer where Self == PassthroughStreamSerializer {
    /// A ``PassthroughStreamSerializer``.
    public static var passthrough: PassthroughStreamSerializer { PassthroughStreamSerializer() }
}

extension DataStreamSerializer where Self == StringStreamSerializer {
    /// A ``StringStreamSerializer``.
    public static var string: StringStreamSerializer { StringStreamSerializer() }
}
