#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let url = URL(string: "https://example.com/r")!

private func response(_ status: Int, _ headers: HTTPHeaders = [:]) -> HTTPURLResponse {
    HTTPURLResponse(url: url, statusCode: status, headers: headers)
}

private func request(_ method: HTTPMethod) -> URLRequest {
    var request = URLRequest(url: url)
    request.method = method
    return request
}

private struct Item: Codable, Equatable, Sendable { let id: Int }

/// The reason of a serialization failure, or nil if `body` did not throw one.
private func serializationReason(_ body: () throws -> Any) -> AFError.ResponseSerializationFailureReason? {
    do {
        _ = try body()
        return nil
    } catch let AFError.responseSerializationFailed(reason) {
        return reason
    } catch {
        return nil
    }
}

@Suite("Response serializers")
struct ResponseSerializationTests {
    /// (method, status, empty body allowed): HEAD and 204/205 allow it, nothing else does.
    static let emptyRules: [(HTTPMethod, Int, Bool)] = [
        (.get, 200, false), (.post, 201, false), (.head, 200, true), (.get, 204, true),
        (.get, 205, true), (.delete, 204, true), (.get, 304, false),
    ]

    @Test("data: empty-body rules", arguments: emptyRules)
    func dataEmpty(method: HTTPMethod, status: Int, allowed: Bool) throws {
        for body in [nil, Data()] {
            let result = Result { try DataResponseSerializer().serialize(request: request(method), response: response(status), data: body, error: nil) }
            if allowed {
                #expect(try result.get() == Data())
            } else {
                #expect(serializationReason { try result.get() }.map { if case .inputDataNilOrZeroLength = $0 { true } else { false } } == true)
            }
        }
    }

    @Test("string: empty-body rules", arguments: emptyRules)
    func stringEmpty(method: HTTPMethod, status: Int, allowed: Bool) {
        let result = Result { try StringResponseSerializer().serialize(request: request(method), response: response(status), data: nil, error: nil) }
        #expect((try? result.get()) == (allowed ? "" : nil))
    }

    @Test("custom empty codes and methods replace the defaults")
    func customEmptyRules() throws {
        let serializer = DataResponseSerializer(emptyResponseCodes: [200], emptyRequestMethods: [.options])
        #expect(try serializer.serialize(request: request(.get), response: response(200), data: nil, error: nil).isEmpty)
        #expect(try serializer.serialize(request: request(.options), response: response(500), data: nil, error: nil).isEmpty)
        #expect(throws: AFError.self) { try serializer.serialize(request: request(.head), response: response(204), data: nil, error: nil) }
    }

    @Test("a passed-in error is rethrown unchanged")
    func errorPassesThrough() {
        struct Upstream: Error {}
        #expect(throws: Upstream.self) {
            try DataResponseSerializer().serialize(request: nil, response: nil, data: Data([1]), error: Upstream())
        }
        #expect(throws: Upstream.self) {
            try DecodableResponseSerializer<Item>().serialize(request: nil, response: nil, data: nil, error: Upstream())
        }
    }

    @Test("string encodings from charset, explicit encoding, and the ISO-8859-1 default", arguments: [
        ("text/plain; charset=utf-8", nil, [0xC3, 0xA9], "é"),
        ("text/plain; charset=\"UTF-8\"", nil, [0xC3, 0xA9], "é"),
        ("text/plain; charset=iso-8859-1", nil, [0xE9], "é"),
        ("text/plain", nil, [0xC3, 0xA9], "Ã©"),
        ("text/plain; charset=x-unknown", nil, [0xE9], "é"),
        ("text/plain; charset=iso-8859-1", String.Encoding.utf8, [0xC3, 0xA9], "é"),
        ("text/plain; charset=utf-16be", nil, [0x00, 0x41], "A"),
    ] as [(String, String.Encoding?, [UInt8], String)])
    func stringEncodings(contentType: String, encoding: String.Encoding?, bytes: [UInt8], expected: String) throws {
        let serializer = StringResponseSerializer(encoding: encoding)
        let text = try serializer.serialize(request: nil, response: response(200, [.contentType(contentType)]), data: Data(bytes), error: nil)
        #expect(text == expected)
    }

    @Test("invalid text fails with stringSerializationFailed naming the encoding")
    func stringFailure() {
        let reason = serializationReason {
            try StringResponseSerializer().serialize(request: nil, response: response(200, [.contentType("text/plain; charset=utf-8")]), data: Data([0xFF, 0xFE, 0xC3]), error: nil)
        }
        guard case let .stringSerializationFailed(encoding) = reason else {
            Issue.record("unexpected \(String(describing: reason))")
            return
        }
        #expect(encoding == .utf8)
        #expect(AFError.responseSerializationFailed(reason: reason!).failedStringEncoding == .utf8)
    }

    @Test("decodable: success")
    func decodableSuccess() throws {
        let item = try DecodableResponseSerializer<Item>().serialize(request: nil, response: response(200), data: Data(#"{"id":7}"#.utf8), error: nil)
        #expect(item == Item(id: 7))
    }

    @Test("decodable: malformed JSON fails with decodingFailed wrapping the DecodingError")
    func decodableFailure() {
        let reason = serializationReason {
            try DecodableResponseSerializer<Item>().serialize(request: nil, response: response(200), data: Data(#"{"id":"x"}"#.utf8), error: nil)
        }
        guard case let .decodingFailed(error) = reason else {
            Issue.record("unexpected \(String(describing: reason))")
            return
        }
        #expect(error is DecodingError)
    }

    @Test("decodable: allowed empty body gives Empty, or invalidEmptyResponse for other types")
    func decodableEmpty() throws {
        let empty = try DecodableResponseSerializer<Empty>().serialize(request: request(.head), response: response(200), data: nil, error: nil)
        #expect(type(of: empty) == Empty.self)
        let reason = serializationReason {
            try DecodableResponseSerializer<Item>().serialize(request: nil, response: response(204), data: Data(), error: nil)
        }
        guard case let .invalidEmptyResponse(typeName) = reason else {
            Issue.record("unexpected \(String(describing: reason))")
            return
        }
        #expect(typeName == "Item")
        let disallowed = serializationReason {
            try DecodableResponseSerializer<Empty>().serialize(request: request(.get), response: response(200), data: nil, error: nil)
        }
        #expect(disallowed.map { if case .inputDataNilOrZeroLength = $0 { true } else { false } } == true)
    }

    @Test("decodable: a custom DataDecoder is used")
    func customDecoder() throws {
        struct Fixed: DataDecoder {
            func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D {
                try JSONDecoder().decode(type, from: Data(#"{"id":42}"#.utf8))
            }
        }
        let serializer: DecodableResponseSerializer<Item> = .decodable(of: Item.self, decoder: Fixed())
        #expect(try serializer.serialize(request: nil, response: nil, data: Data([1]), error: nil) == Item(id: 42))
    }

    @Test("preprocessors", arguments: [
        (")]}',\n{\"id\":1}", "{\"id\":1}"),
        ("{\"id\":1}", "{\"id\":1}"),
        (")]}'", ")]}'"),
    ])
    func googleXSSI(input: String, expected: String) throws {
        #expect(try GoogleXSSIPreprocessor().preprocess(Data(input.utf8)) == Data(expected.utf8))
        #expect(try PassthroughPreprocessor().preprocess(Data(input.utf8)) == Data(input.utf8))
        let serializer: DataResponseSerializer = .data(dataPreprocessor: .googleXSSI)
        #expect(try serializer.serialize(request: nil, response: nil, data: Data(input.utf8), error: nil) == Data(expected.utf8))
    }

    @Test("static factories carry their settings")
    func factories() {
        let string: StringResponseSerializer = .string(encoding: .utf8, emptyResponseCodes: [299], emptyRequestMethods: [.get])
        #expect(string.encoding == .utf8 && string.emptyResponseCodes == [299] && string.emptyRequestMethods == [.get])
        let data: DataResponseSerializer = .data()
        #expect(data.emptyResponseCodes == [204, 205] && data.emptyRequestMethods == [.head])
    }

    @Test("download serialization reads the file, or reports a missing one")
    func download() throws {
        let file = URL(fileURLWithPath: "/tmp/lariat-serializer-\(UInt64.random(in: 0...UInt64.max)).json")
        try Data(#"{"id":3}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let item = try DecodableResponseSerializer<Item>().serializeDownload(request: nil, response: response(200), fileURL: file, error: nil)
        #expect(item == Item(id: 3))
        #expect(try URLResponseSerializer().serializeDownload(request: nil, response: nil, fileURL: file, error: nil) == file)

        let missing = serializationReason {
            try DataResponseSerializer().serializeDownload(request: nil, response: nil, fileURL: nil, error: nil)
        }
        #expect(missing.map { if case .inputFileNil = $0 { true } else { false } } == true)
        let unreadable = serializationReason {
            try DataResponseSerializer().serializeDownload(request: nil, response: nil, fileURL: URL(fileURLWithPath: "/nonexistent/x"), error: nil)
        }
        #expect(unreadable.map { if case .inputFileReadFailed = $0 { true } else { false } } == true)
    }

    @Test("IANA charset names", arguments: [
        ("utf-8", String.Encoding.utf8), ("UTF8", .utf8), ("\"utf-8\"", .utf8), ("us-ascii", .ascii),
        ("ISO-8859-1", .isoLatin1), ("latin1", .isoLatin1), ("windows-1252", .windowsCP1252),
        ("utf-16", .utf16), ("utf-16be", .utf16BigEndian), ("utf-16le", .utf16LittleEndian),
        ("utf-32", .utf32), ("utf-32be", .utf32BigEndian), ("utf-32le", .utf32LittleEndian),
    ])
    func charsetNames(name: String, expected: String.Encoding) {
        #expect(String.Encoding(ianaCharsetName: name) == expected)
    }

    @Test("unknown charset names give nil")
    func unknownCharset() {
        #expect(String.Encoding(ianaCharsetName: "klingon") == nil)
    }
}
