// Public API Alamofire 5.12 has and Lariat lacked (issue 24: "Missing public API"), each used the
// way Alamofire's own suite uses it. Before the fix each of these failed to compile. The requests
// go to httpbin (scripts/httpbin.sh start, then LARIAT_HTTPBIN=http://127.0.0.1:PORT).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
@testable import Client

private let parityHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

@Suite("Alamofire API parity")
struct AlamofireAPIParityTests {
    @Test("HTTPURLResponse is Equatable and Hashable by identity, as Foundation's NSObject")
    func responseIdentity() {
        let url = URL(string: "https://example.com/")!
        let first = HTTPURLResponse(url: url, statusCode: 200, headers: ["A": "1"])
        let twin = HTTPURLResponse(url: url, statusCode: 200, headers: ["A": "1"])
        #expect(first == first)
        #expect(first != twin)
        #expect(Set([first, first, twin]).count == 2)
    }

    @Test("URLSession.delegate is the Session's delegate")
    func urlSessionDelegate() {
        let delegate = SessionDelegate()
        let session = Session(configuration: .af.default, delegate: delegate, serverTrustManager: ServerTrustManager(evaluators: [:]))
        #expect(session.session.delegate === delegate)
        #expect(Session().session.delegate != nil)
    }

    @Test("URLCache(memoryCapacity:diskCapacity:diskPath:) keeps entries on disk at an absolute path")
    func urlCacheDiskPath() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "lariat-cache-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1 << 20, diskPath: path)
        #expect(cache.directory?.path == path || cache.directory?.path == path + "/")
        let url = URL(string: "https://example.com/cached")!
        let response = HTTPURLResponse(url: url, statusCode: 200, headers: ["Cache-Control": "max-age=60"])
        cache.storeCachedResponse(CachedURLResponse(response: response, data: Data("x".utf8)), for: URLRequest(url: url))
        // A second cache over the same path finds it on disk (no memory capacity in either).
        let reopened = URLCache(memoryCapacity: 0, diskCapacity: 1 << 20, diskPath: path)
        #expect(reopened.cachedResponse(for: URLRequest(url: url))?.data == Data("x".utf8))
        #expect(URLCache.directory(forDiskPath: "rel").path.hasSuffix("/rel") || URLCache.directory(forDiskPath: "rel").path.hasSuffix("/rel/"))
    }

    @Test("serializingResponse(using: .data) and serializingDownload(using: .string) pick the ResponseSerializer statics",
          .enabled(if: parityHTTPBin != nil, "LARIAT_HTTPBIN is not set"))
    func leadingDotSerializers() async throws {
        let session = Session()
        let data = try await session.request("\(parityHTTPBin!)/bytes/16").serializingResponse(using: .data).value
        #expect(data.count == 16)
        let download = await session.download("\(parityHTTPBin!)/base64/TGFyaWF0").serializingDownload(using: .string).response
        defer { download.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
        #expect(download.value == "Lariat")
    }

    #if FullFoundation
    @Test("JSONResponseSerializer parses with JSONSerialization; an allowed empty body is NSNull; bad JSON is jsonSerializationFailed")
    @available(*, deprecated, message: "exercises the deprecated JSONResponseSerializer")
    func jsonSerializer() throws {
        let serializer = JSONResponseSerializer()
        let value = try serializer.serialize(request: nil, response: nil, data: Data(#"{"a":[1,"b",null,true]}"#.utf8), error: nil)
        let object = try #require(value as? [String: Any])
        let array = try #require(object["a"] as? [Any])
        #expect(array.count == 4 && array[1] as? String == "b" && array[2] is NSNull)
        var head = URLRequest(url: URL(string: "https://example.com/")!)
        head.method = .head
        #expect(try serializer.serialize(request: head, response: nil, data: nil, error: nil) is NSNull)
        do {
            _ = try serializer.serialize(request: nil, response: nil, data: Data("{".utf8), error: nil)
            Issue.record("invalid JSON parsed")
        } catch let AFError.responseSerializationFailed(reason) {
            guard case .jsonSerializationFailed = reason else { Issue.record("reason \(reason)"); return }
        }
    }

    @Test("responseJSON delivers httpbin's echo as dictionaries", .enabled(if: parityHTTPBin != nil, "LARIAT_HTTPBIN is not set"))
    @available(*, deprecated, message: "exercises the deprecated responseJSON")
    func responseJSON() async throws {
        let session = Session()
        let response = await withCheckedContinuation { continuation in
            session.request("\(parityHTTPBin!)/get", parameters: ["foo": "bar"])
                .responseJSON(queue: .global()) { continuation.resume(returning: $0) }
        }
        let object = try #require(response.value as? [String: Any])
        #expect(object["args"] as? [String: String] == ["foo": "bar"])
    }
    #endif
}
