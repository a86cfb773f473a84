// Pinning refuses a mismatching server *before* any request byte is written: the server here is
// the in-repo TLS server on a real socket (LoopbackTLSServer), which records every application
// byte it decrypts and every handshake it completes. With a matching pin it must see the request
// (so the test can fail); with a mismatching pin it must see no handshake completed and zero bytes.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS pinning happens before the request")
    struct HTTPSPinningOrderTests {
        /// (pin kind, pin file, highest TLS version, expected failure reason or `nil` for success).
        static let cases: [(kind: String, pin: String, version: TLSVersion, failure: String?)] = [
            ("certificate", "good.pem", .v1_3, nil),
            ("certificate", "good.pem", .v1_2, nil),
            ("certificate", "expired.pem", .v1_3, "certificatePinningFailed"),
            ("certificate", "expired.pem", .v1_2, "certificatePinningFailed"),
            ("public key", "good.pem", .v1_3, nil),
            ("public key", "good.pem", .v1_2, nil),
            ("public key", "rogue.pem", .v1_3, "publicKeyPinningFailed"),
            ("public key", "rogue.pem", .v1_2, "publicKeyPinningFailed"),
        ]

        @Test("pin match sends the request; pin mismatch sends nothing", arguments: 0..<8)
        func pinningBeforeRequest(index: Int) async throws {
            let row = HTTPSPinningOrderTests.cases[index]
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { server.stop() }
            let evaluator: any ServerTrustEvaluating = row.kind == "certificate"
                ? PinnedCertificatesTrustEvaluator(certificates: try SecCertificate.certificates(inFile: lab.path(row.pin)))
                : PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path(row.pin)))
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            tls.maximumVersion = row.version
            let session = Session(
                serverTrustManager: ServerTrustManager(evaluators: [HTTPSLab.hostName: evaluator]), tlsConfiguration: tls,
                resolver: try HostResolver(overrides: [HTTPSLab.hostName: ["127.0.0.1"]]))
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/pinned").serializingData().response

            if let expected = row.failure {
                guard case .failure(.serverTrustEvaluationFailed(let reason)) = response.result else {
                    Issue.record("expected serverTrustEvaluationFailed(\(expected)), got \(response.result)")
                    return
                }
                #expect(HTTPSTests.name(of: reason) == expected)
                // Wait until the server has finished with the connection (it sees our alert or
                // the close), so "nothing arrived" is a final statement, not an early look.
                let deadline = ContinuousClock.now + .seconds(5)
                while server.observation.failures.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                let seen = server.observation
                #expect(seen.connections == 1)
                #expect(!seen.failures.isEmpty, "the server's handshake must have failed")
                #expect(seen.handshakesCompleted == 0, "the client must not send its Finished to an untrusted server")
                #expect(seen.plaintext.isEmpty, "request bytes reached a server that failed pinning: \(seen.plaintext.count)")
            } else {
                #expect(response.response?.statusCode == 200, "\(response.result)")
                let seen = server.observation
                #expect(seen.handshakesCompleted == 1)
                #expect(seen.serverNames == [HTTPSLab.hostName], "SNI carries the URL's name, not the overridden address")
                let text = String(decoding: seen.plaintext, as: UTF8.self)
                #expect(text.hasPrefix("GET /pinned HTTP/1.1\r\n"), "\(text)")
                #expect(text.contains("\r\nHost: \(HTTPSLab.hostName):\(server.port)\r\n"), "\(text)")
            }
        }
    }
}
#endif
