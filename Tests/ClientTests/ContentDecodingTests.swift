// Content decoding end to end against ScriptedServer: gzip and deflate bodies framed by
// Content-Length, chunked and close, corrupt and truncated coded bodies, a multi-megabyte gzip
// bomb, a download of gzip content, decoding turned off, and the Accept-Encoding sent.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

/// A response with `body` framed by Content-Length (or chunked in runs of `chunk`) and `Content-Encoding: coding`.
private func codedResponse(_ body: [UInt8], coding: String?, chunk: Int? = nil, status: String = "200 OK") -> ScriptedServer.Step {
    let encoding = coding.map { "Content-Encoding: \($0)\r\n" } ?? ""
    guard let chunk else {
        return .send(Array("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\n\(encoding)\r\n".utf8) + body)
    }
    var bytes = Array("HTTP/1.1 \(status)\r\nTransfer-Encoding: chunked\r\n\(encoding)\r\n".utf8)
    var offset = 0
    while offset < body.count {
        let size = min(chunk, body.count - offset)
        bytes += Array("\(String(size, radix: 16))\r\n".utf8) + body[offset..<(offset + size)] + [13, 10]
        offset += size
    }
    return .send(bytes + Array("0\r\n\r\n".utf8))
}

private func compress(_ bytes: [UInt8], _ format: ZlibCompression.Format) -> [UInt8] {
    try! bytes.withUnsafeBytes { try ZlibCompression.compress($0, format: format) }
}

/// A body that compresses about 4:1, larger than one output buffer.
private let plain: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: ($0 * 7) % 64 + 32) }

/// The ContentDecodingError beneath a failed response's URLError.
private func decodingError(_ error: URLError?) -> ContentDecodingError? {
    error?.underlyingError as? ContentDecodingError
}

extension ClientIntegrationTests {
    @Suite("Content decoding")
    struct ContentDecodingTests {
        let session = Session()

        private func url(_ server: ScriptedServer, _ path: String = "/") -> String {
            "http://127.0.0.1:\(server.port)\(path)"
        }

        @Test("gzip, x-gzip and deflate (zlib and raw) bodies decode; the response keeps its fields",
              arguments: [
                  (coding: "gzip", format: ZlibCompression.Format.gzip, chunk: Int?.none),
                  (coding: "x-gzip", format: .gzip, chunk: nil),
                  (coding: "gzip", format: .gzip, chunk: 1000),  // chunked + gzip
                  (coding: "deflate", format: .zlib, chunk: nil),
                  (coding: "deflate", format: .raw, chunk: 7),
              ])
        func decodes(coding: String, format: ZlibCompression.Format, chunk: Int?) async throws {
            let coded = compress(plain, format)
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(coded, coding: coding, chunk: chunk)])
            defer { server.stop() }
            let response = await session.request(url(server)).serializingData().response
            let data = try #require(response.value, "\(response.result)")
            #expect(sameBytes(data, plain))
            // As URLSession: Content-Encoding stays, Content-Length counts the coded bytes.
            #expect(response.response?.headers.value(for: "Content-Encoding") == coding)
            if chunk == nil { #expect(response.response?.headers.value(for: "Content-Length") == "\(coded.count)") }
            #expect(server.failures.isEmpty)
        }

        @Test("the default Accept-Encoding asks for what Lariat decodes")
        func acceptEncodingSent() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            _ = await session.request(url(server)).serializingData().response
            let request = String(decoding: server.requests(onConnection: 0).first ?? [], as: UTF8.self)
            #expect(request.contains("\r\nAccept-Encoding: gzip;q=1.0, deflate;q=0.9\r\n"), "\(request)")
        }

        @Test("a request's own Accept-Encoding still gets a decoded body (as URLSession)")
        func ownAcceptEncoding() async throws {
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(compress(plain, .gzip), coding: "gzip")])
            defer { server.stop() }
            let response = await session.request(url(server), headers: [.acceptEncoding("gzip")]).serializingData().response
            #expect(sameBytes(response.value, plain))
        }

        @Test("corrupt or truncated coded bodies fail with cannotDecodeRawData, never a shorter success",
              arguments: [
                  (name: "not gzip", body: Array("plain text, no gzip".utf8), coding: "gzip", kind: ContentDecodingError.Kind.corrupt),
                  (name: "bad CRC", body: { var b = compress(plain, .gzip); b[b.count - 6] ^= 0xFF; return b }(), coding: "gzip", kind: .corrupt),
                  (name: "truncated", body: Array(compress(plain, .gzip).dropLast(9)), coding: "gzip", kind: .truncated),
                  (name: "deflate + junk", body: compress(plain, .zlib) + [1, 2, 3], coding: "deflate", kind: .trailingData),
              ])
        func corrupt(name: String, body: [UInt8], coding: String, kind: ContentDecodingError.Kind) async throws {
            for chunk in [Int?.none, 512] {
                let server = try ScriptedServer(script: [.expectRequest, codedResponse(body, coding: coding, chunk: chunk)])
                defer { server.stop() }
                let response = await session.request(url(server)).serializingData().response
                let error = sessionTaskURLError(response.result)
                #expect(error?.code == .cannotDecodeRawData, "\(name): \(response.result)")
                #expect(decodingError(error)?.kind == kind, "\(name)")
            }
        }

        @Test("a 3 MiB gzip bomb (3 GiB decoded) fails with dataLengthExceedsMaximum and stays small")
        func bomb() async throws {
            // 64 MiB of zeros compress to about 64 KiB; 48 such members make a 3 GiB body.
            let member = compress([UInt8](repeating: 0, count: 64 << 20), .gzip)
            let bomb = Array([[UInt8]](repeating: member, count: 48).joined())
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(bomb, coding: "gzip"), .close])
            defer { server.stop() }
            let request = session.request(url(server))
            let response = await request.serializingData().response
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .dataLengthExceedsMaximum, "\(response.result)")
            #expect(decodingError(error)?.kind == .expansionLimitExceeded)
            // Stopped at the limit: what was kept is bounded by the ratio, not the 3 GiB.
            #expect((request.data?.count ?? 0) < 8 << 20)
        }

        @Test("an absolute limit from the configuration applies")
        func configuredLimit() async throws {
            let configuration = URLSessionConfiguration.af.default
            configuration.contentDecoding.maxDecodedBytes = 50_000
            let limited = Session(configuration: configuration)
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(compress(plain, .gzip), coding: "gzip")])
            defer { server.stop() }
            let response = await limited.request(url(server)).serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .dataLengthExceedsMaximum, "\(response.result)")
        }

        @Test("decoding disabled: the coded bytes are delivered as received")
        func disabled() async throws {
            let configuration = URLSessionConfiguration.af.default
            configuration.contentDecoding = .disabled
            let raw = Session(configuration: configuration)
            let coded = compress(plain, .gzip)
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(coded, coding: "gzip")])
            defer { server.stop() }
            let response = await raw.request(url(server)).serializingData().response
            #expect(sameBytes(response.value, coded))
        }

        @Test("unknown codings, stacked codings and 206 pass through; HEAD of a gzip resource is empty")
        func passThrough() async throws {
            let coded = compress(plain, .gzip)
            for (coding, status) in [("br", "200 OK"), ("gzip, gzip", "200 OK"), ("gzip", "206 Partial Content")] {
                let server = try ScriptedServer(script: [.expectRequest, codedResponse(coded, coding: coding, status: status)])
                defer { server.stop() }
                let response = await session.request(url(server)).serializingData().response
                #expect(sameBytes(response.value, coded), "\(coding) \(status)")
            }
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nContent-Encoding: gzip\r\n\r\n"),
            ])
            defer { server.stop() }
            let head = await session.request(url(server), method: .head).serializingData(emptyResponseCodes: [200]).response
            #expect(head.error == nil, "\(head.result)")
        }

        @Test("a download of gzip content writes the decoded bytes")
        func download() async throws {
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(compress(plain, .gzip), coding: "gzip", chunk: 4096)])
            defer { server.stop() }
            let response = await session.download(url(server, "/file.json")).serializingDownloadedFileURL().response
            let file = try #require(response.value, "\(response.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(sameBytes(try Data(contentsOf: file), plain))
        }

        @Test("a truncated gzip download fails and leaves no file behind as a success")
        func truncatedDownload() async throws {
            let body = Array(compress(plain, .gzip).dropLast(4))
            let server = try ScriptedServer(script: [.expectRequest, codedResponse(body, coding: "gzip")])
            defer { server.stop() }
            let response = await session.download(url(server, "/file.json")).serializingDownloadedFileURL().response
            #expect(sessionTaskURLError(response.result)?.code == .cannotDecodeRawData, "\(response.result)")
        }
    }
}
