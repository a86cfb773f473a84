// upload(_ stream: InputStream, ...): Content-Length when the request gives one (and then exactly
// that many bytes, or a typed error before anything malformed goes out), chunked otherwise
// (ScriptedServer, raw bytes on loopback).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Uploads from an InputStream")
    struct StreamUploadTests {
        static let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) })

        /// No Content-Length: `Transfer-Encoding: chunked`, the body intact after de-chunking.
        @Test func unknownLengthGoesChunked() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("got it")])
            defer { server.stop() }
            let value = try await retained(Session()).upload(InputStream(data: Self.body), to: "http://127.0.0.1:\(server.port)/up")
                .serializingString().value
            #expect(value == "got it")
            let raw = try #require(server.requests.first)
            let (head, body) = splitRequest(raw)
            #expect(head.contains("\r\nTransfer-Encoding: chunked\r\n"), "\(head)")
            #expect(!head.lowercased().contains("content-length"), "\(head)")
            #expect(Self.dechunk(Array(body)) == Array(Self.body))
            #expect(Array(body.suffix(5)) == Array("0\r\n\r\n".utf8))
        }

        /// A Content-Length the request gives: sent as is, the body unframed.
        @Test func givenLengthIsSent() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/up")!)
            request.method = .put
            request.headers.update(name: "Content-Length", value: "\(Self.body.count)")
            let value = try await retained(Session()).upload(InputStream(data: Self.body), with: request).serializingString().value
            #expect(value == "ok")
            let (head, body) = splitRequest(try #require(server.requests.first))
            #expect(head.contains("\r\nContent-Length: \(Self.body.count)\r\n"), "\(head)")
            #expect(Array(body) == Array(Self.body))
        }

        /// A stream shorter than its Content-Length: a typed error
        /// (`requestBodyStreamExhausted`), and the connection is closed rather than leaving the
        /// server waiting for bytes that never come.
        @Test(arguments: [Self.body.count + 10, Self.body.count - 10])
        func wrongLengthIsATypedError(_ declared: Int) async throws {
            let server = try ScriptedServer(script: [.receive(atLeast: 1), .waitForClientClose])
            defer { server.stop() }
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/up")!)
            request.method = .post
            request.headers.update(name: "Content-Length", value: "\(declared)")
            let response = await retained(Session()).upload(InputStream(data: Self.body), with: request).serializingData().response
            let urlError = response.error?.underlyingError as? URLError
            #expect(urlError?.code == .requestBodyStreamExhausted, "\(response.result)")
            #expect((urlError?.underlyingError as? TransportError)?.kind == .requestBodyUnreadable)
            let received = server.receivedBytes(onConnection: 0)
            let (_, body) = splitRequest(received)
            #expect(body.count <= min(declared, Self.body.count), "sent \(body.count) body bytes for Content-Length \(declared)")
        }

        /// Chunked body bytes, de-chunked (the test's own simple reader).
        static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var index = 0
            while index < bytes.count {
                guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A }) else { break }
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                if size == 0 { break }
                out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
                index = lineEnd + 2 + size + 2
            }
            return out
        }
    }
}
