// TLS transport regressions against the in-repo TLS server on a real socket (LoopbackTLSServer):
// plaintext that arrives with the last handshake flight, and plaintext beyond the response.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS transport")
    struct HTTPSTransportTests {
        static func session(maximumVersion: TLSVersion?, timeout: TimeInterval = 5) throws -> Session {
            let lab = try HTTPSLab.shared.get()
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            tls.maximumVersion = maximumVersion
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = timeout
            return Session(configuration: configuration, tlsConfiguration: tls,
                           resolver: try HostResolver(overrides: [HTTPSLab.hostName: ["127.0.0.1"]]))
        }

        /// TLS 1.2: the server's ChangeCipherSpec, Finished and the response leave in one write.
        /// The response sat in the engine until another socket event that never came: the request
        /// hung until its timeout (curl answers in milliseconds).
        @Test("a response in the same segment as the server's Finished is read at once", arguments: [TLSVersion.v1_2, .v1_3])
        func responseWithFinished(version: TLSVersion) async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                                               answerAtHandshake: true)
            defer { server.stop() }
            let session = try Self.session(maximumVersion: version)
            let start = ContinuousClock.now
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/").serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            #expect(ContinuousClock.now - start < .seconds(2), "the response waited for a socket event")
        }

        /// Plaintext after a complete response (a second response nobody asked for, in a TLS record
        /// of its own that arrived in the same segment) must not be read by the next request on a
        /// pooled connection: the connection is closed instead. Plain TCP saw such bytes in its
        /// buffer; over TLS they were still ciphertext in the engine when keep-alive was decided.
        @Test("bytes beyond the response close the connection", arguments: [TLSVersion.v1_2, .v1_3])
        func strayResponseIsNotReused(version: TLSVersion) async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(
                certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                followUp: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray")
            defer { server.stop() }
            let session = try Self.session(maximumVersion: version)
            let url = "https://\(HTTPSLab.hostName):\(server.port)/"
            let first = await session.request(url).serializingString().response
            #expect(first.value == "ok", "\(first.result)")
            // The loopback server serves one connection at a time: the second request must be on
            // a new one (the old one is closed, so the server moves on to accept it).
            let second = await session.request(url).serializingString().response
            #expect(second.value == "ok", "the second request read the first one's leftover: \(second.result)")
            #expect(server.observation.connections == 2)
        }
    }
}
#endif
