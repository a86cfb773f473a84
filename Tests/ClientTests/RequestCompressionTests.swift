// DeflateRequestCompressor: each DuplicateHeaderBehavior, shouldCompressBodyData, requests
// without a body, and a zlib round trip of what it sends; against httpbin, the compressed body as
// the server received it, and httpbin's own /gzip and /deflate responses decoded.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
@testable import Client

private let rcHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// Runs the adapter and returns its result (it completes synchronously).
private func adapt(_ compressor: DeflateRequestCompressor, _ request: URLRequest) -> Result<URLRequest, any Error>? {
    let result = Mutex<Result<URLRequest, any Error>?>(nil)
    compressor.adapt(request, for: Session.default) { outcome in result.withLock { $0 = outcome } }
    return result.withLock { $0 }
}

/// Decodes a zlib (`deflate`) body with the response decoder.
private func inflate(_ data: Data) throws -> [UInt8] {
    let decoder = ContentDecoder(coding: .deflate)
    var output: [UInt8] = []
    try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> Void in try decoder.decode(bytes) { output += $0 } }
    try decoder.finish()
    return output
}

private let payload = Data(String(repeating: "{\"name\":\"lariat\",\"count\":3},", count: 200).utf8)

private func post(_ headers: HTTPHeaders = [:], body: Data? = payload) throws -> URLRequest {
    var request = try URLRequest(url: "http://example.com/upload", method: .post, headers: headers)
    request.httpBody = body
    return request
}

@Suite("Request compression")
struct RequestCompressionTests {
    @Test("the body is zlib-deflated, Content-Encoding says deflate, and it inflates back")
    func compresses() throws {
        let adapted = try #require(try adapt(.deflateCompressor, post())?.get())
        let body = try #require(adapted.httpBody)
        #expect(adapted.headers.value(for: "Content-Encoding") == "deflate")
        #expect(body.first == 0x78)  // RFC 1950 header: deflate, 32 KiB window
        #expect(body.count < payload.count / 10)
        #expect(sameBytes(try inflate(body), Array(payload)))
    }

    @Test("an existing Content-Encoding: .error fails, .replace compresses, .skip leaves the request")
    func duplicateHeader() throws {
        let coded = try post([.contentEncoding("gzip")])
        let error = adapt(DeflateRequestCompressor(), coded)
        #expect(throws: DeflateRequestCompressor.DuplicateHeaderError.self) { try error?.get() }

        let replaced = try #require(try adapt(.deflateCompressor(duplicateHeaderBehavior: .replace), coded)?.get())
        #expect(replaced.headers.value(for: "Content-Encoding") == "deflate")
        #expect(sameBytes(try inflate(try #require(replaced.httpBody)), Array(payload)))

        let skipped = try #require(try adapt(.deflateCompressor(duplicateHeaderBehavior: .skip), coded)?.get())
        #expect(skipped == coded)
    }

    @Test("shouldCompressBodyData false, or no body: the request is unchanged")
    func unchanged() throws {
        let small = DeflateRequestCompressor(shouldCompressBodyData: { $0.count > 100_000 })
        #expect(try adapt(small, post())?.get() == post())
        let empty = try post(body: nil)
        #expect(try adapt(.deflateCompressor, empty)?.get() == empty)
    }

    @Test("the defaults: .error and every body")
    func defaults() {
        let compressor = DeflateRequestCompressor.deflateCompressor
        guard case .error = compressor.duplicateHeaderBehavior else {
            Issue.record("default is not .error")
            return
        }
        #expect(compressor.shouldCompressBodyData(Data()))
    }
}

extension ClientIntegrationTests {
    @Suite("Content coding against httpbin", .enabled(if: rcHTTPBin != nil, "LARIAT_HTTPBIN is not set"))
    struct ContentCodingHTTPBinTests {
        let session = Session()

        private struct Coded: Decodable {
            var gzipped: Bool?
            var deflated: Bool?
            var headers: [String: String]
        }

        private struct Echo: Decodable {
            var data: String
            var headers: [String: String]
        }

        @Test("/gzip and /deflate decode; Accept-Encoding is Lariat's; the response keeps Content-Encoding")
        func httpbinCodings() async throws {
            let base = try #require(rcHTTPBin)
            let gzip = await session.request(base + "/gzip").serializingDecodable(Coded.self).response
            #expect(try gzip.result.get().gzipped == true)
            #expect(try gzip.result.get().headers["Accept-Encoding"] == "gzip;q=1.0, deflate;q=0.9")
            #expect(gzip.response?.headers.value(for: "Content-Encoding") == "gzip")
            let deflate = await session.request(base + "/deflate").serializingDecodable(Coded.self).response
            #expect(try deflate.result.get().deflated == true)
            #expect(deflate.response?.headers.value(for: "Content-Encoding") == "deflate")
        }

        @Test("a DownloadRequest of /gzip writes the decoded JSON")
        func httpbinDownload() async throws {
            let base = try #require(rcHTTPBin)
            let response = await session.download(base + "/gzip").serializingDecodable(Coded.self).response
            defer { response.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
            #expect(try response.result.get().gzipped == true)
        }

        @Test("DeflateRequestCompressor: httpbin receives the zlib stream of the body, with Content-Encoding: deflate")
        func compressorToAnything() async throws {
            let base = try #require(rcHTTPBin)
            let echo = try await session.request(base + "/anything", method: .post, headers: [.contentType("application/json")],
                                                 interceptor: .deflateCompressor, requestModifier: { $0.httpBody = payload })
                .serializingDecodable(Echo.self).value
            #expect(echo.headers["Content-Encoding"] == "deflate")
            // httpbin shows a body that is not UTF-8 as a base64 data URL of the bytes received.
            let prefix = "data:application/octet-stream;base64,"
            #expect(echo.data.hasPrefix(prefix))
            let received = try #require(Data(base64Encoded: String(echo.data.dropFirst(prefix.count))))
            #expect(sameBytes(try inflate(received), Array(payload)))
            let local = try payload.withUnsafeBytes { try ZlibCompression.compress($0, format: .zlib) }
            #expect(sameBytes(received, local))
        }
    }
}
