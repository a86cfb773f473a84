// TLS servers that misbehave, through Session: a server that reads the ClientHello and never
// answers must end in `.timedOut` within the request's timeout (no hang); a server that answers
// with something other than a ServerHello must end in `.secureConnectionFailed` with a typed
// TLSError underneath. Servers are ScriptedServer (raw bytes on loopback).
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("HTTPS robustness")
    struct HTTPSRobustnessTests {
        @Test("a server that stalls mid-handshake: .timedOut within the timeout, connection closed")
        func stalledHandshake() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose], stepTimeout: .seconds(10))
            defer { server.stop() }
            let session = try HTTPSLabTests.session()
            let start = ContinuousClock.now
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/", requestModifier: { $0.timeoutInterval = 1 })
                .serializingData().response
            let elapsed = milliseconds(since: start)
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .timedOut, "\(response.result)")
            #expect(transportError(error)?.kind == .timedOut)
            #expect(elapsed >= 900 && elapsed < 4000, "timed out after \(elapsed) ms")
            #expect(server.waitForConnections(1, finished: true), "the client must close the stalled connection")
            #expect(server.clientClosed(connection: 0))
            // It did get as far as a ClientHello: a handshake record (content type 22).
            #expect(server.receivedBytes(onConnection: 0).first == 0x16)
            #expect(server.failures.isEmpty, "\(server.failures)")
        }

        /// (scenario, what the server sends after accepting, the TLSError kind expected).
        static let garbage: [(String, [UInt8], TLSError.Kind)] = [
            // A plain-HTTP server on the TLS port: OpenSSL reads "HT" as a record version.
            ("plain HTTP response", Array("HTTP/1.1 200 OK\r\n\r\n".utf8), .protocolVersion),
            // A well-formed record header carrying a ServerHello with an empty body.
            ("truncated ServerHello", [0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], .handshake),
            // A fatal handshake_failure alert instead of a ServerHello.
            ("alert instead of ServerHello", [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28], .handshake),
            // 64 bytes of 0xFF: like the HTTP case, the record version is what OpenSSL rejects first.
            ("binary garbage", [UInt8](repeating: 0xFF, count: 64), .protocolVersion),
        ]

        @Test("a server that answers the ClientHello with garbage: .secureConnectionFailed, typed TLSError", arguments: 0..<4)
        func garbageInsteadOfServerHello(index: Int) async throws {
            let (name, bytes, kind) = HTTPSRobustnessTests.garbage[index]
            let server = try ScriptedServer(script: [.send(bytes), .waitForClientClose])
            defer { server.stop() }
            let session = try HTTPSLabTests.session()
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/").serializingData().response
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .secureConnectionFailed, "\(name): \(response.result)")
            let tlsError = transportError(error)?.underlying as? TLSError
            #expect(tlsError?.kind == kind, "\(name): \(String(describing: tlsError))")
            #expect(server.waitForConnections(1, finished: true))
        }

        @Test("a server that closes right after the ClientHello: .secureConnectionFailed, TLSError.closed")
        func closedDuringHandshake() async throws {
            let server = try ScriptedServer(script: [.sleep(.milliseconds(50)), .close])
            defer { server.stop() }
            let session = try HTTPSLabTests.session()
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/").serializingData().response
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .secureConnectionFailed, "\(response.result)")
            #expect((transportError(error)?.underlying as? TLSError)?.kind == .closed, "\(String(describing: transportError(error)))")
        }
    }
}
#endif
