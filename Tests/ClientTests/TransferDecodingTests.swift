// The package-only response reading switches behind fetch's --tr-encoding and --raw, end to end
// against ScriptedServer: a `Transfer-Encoding: gzip, chunked` body decoded only when asked and
// within ContentDecoding's limits, delivered coded by default, and kept raw (framing included)
// under `keepsRawBody`. Which transfer codings get a decoder is a table without sockets.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

/// `body` chunked in runs of `chunk` under `Transfer-Encoding: te`.
private func transferCoded(_ body: [UInt8], te: String, chunk: Int) -> ScriptedServer.Step {
    var bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(te)\r\n\r\n".utf8)
    var offset = 0
    while offset < body.count {
        let size = min(chunk, body.count - offset)
        bytes += Array("\(String(size, radix: 16))\r\n".utf8) + body[offset..<(offset + size)] + [13, 10]
        offset += size
    }
    return .send(bytes + Array("0\r\n\r\n".utf8))
}

private func gzip(_ bytes: [UInt8]) -> [UInt8] {
    try! bytes.withUnsafeBytes { try ZlibCompression.compress($0, format: .gzip) }
}

/// A session whose responses are read with `reading`.
private func makeSession(_ reading: ResponseReading) -> Session {
    let configuration = URLSessionConfiguration.default
    configuration.responseReading = reading
    return Session(configuration: configuration)
}

extension ClientIntegrationTests {
    @Suite("Transfer decoding (package switches)")
    struct TransferDecodingTests {
        @Test("which Transfer-Encoding values get a decoder", arguments: [
            (["gzip, chunked"], ContentDecoder.Coding?.some(.gzip)),
            (["x-gzip, chunked"], .gzip),
            (["deflate, chunked"], .deflate),
            (["gzip", "chunked"], .gzip),  // across two fields
            (["chunked"], nil),
            (["identity, chunked"], nil),
            (["gzip, gzip, chunked"], nil),  // more than one coding: delivered as received
            (["br, chunked"], nil),
        ])
        func selection(_ values: [String], _ coding: ContentDecoder.Coding?) {
            #expect(ContentDecodingStage.transferDecoder(values, configuration: .disabled)?.coding == coding)
        }

        @Test("decoded when asked, even with content decoding off; coded bytes by default")
        func decodesWhenAsked() async throws {
            let plain = Array("hello gzip transfer coding\n".utf8)
            for decodes in [true, false] {
                let server = try ScriptedServer(script: [.expectRequest, transferCoded(gzip(plain), te: "gzip, chunked", chunk: 7)])
                defer { server.stop() }
                var reading = ResponseReading()
                reading.decodesTransferCoding = decodes
                let configuration = URLSessionConfiguration.default
                configuration.responseReading = reading
                configuration.contentDecoding = .disabled
                let session = Session(configuration: configuration)
                let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
                withExtendedLifetime(session) {}
                let data = try #require(response.data)
                #expect([UInt8](data) == (decodes ? plain : gzip(plain)), "decodes: \(decodes)")
            }
        }

        @Test("a transfer-coded bomb stops at ContentDecoding's ratio limit")
        func bomb() async throws {
            let coded = gzip([UInt8](repeating: 0, count: 32 << 20))  // about 32 KiB for 32 MiB
            let server = try ScriptedServer(script: [.expectRequest, transferCoded(coded, te: "gzip, chunked", chunk: 4096), .close])
            defer { server.stop() }
            var reading = ResponseReading()
            reading.decodesTransferCoding = true
            let session = makeSession(reading)
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let response = await request.serializingData().response
            withExtendedLifetime(session) {}
            #expect(sessionTaskURLError(response.result)?.code == .dataLengthExceedsMaximum, "\(response.result)")
            #expect((request.data?.count ?? 0) < 8 << 20)
        }

        @Test("keepsRawBody: chunk framing and the coding as received, decoding asked or not")
        func raw() async throws {
            let coded = gzip(Array("raw\n".utf8))
            let step = transferCoded(coded, te: "gzip, chunked", chunk: 5)
            guard case .send(let wire) = step else { Issue.record(); return }
            let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8)
            let server = try ScriptedServer(script: [.expectRequest, step])
            defer { server.stop() }
            var reading = ResponseReading()
            reading.keepsRawBody = true
            reading.decodesTransferCoding = true
            let session = makeSession(reading)
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            withExtendedLifetime(session) {}
            #expect(response.data.map([UInt8].init) == Array(wire.dropFirst(head.count)))
        }
    }
}
