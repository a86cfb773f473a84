// Issue 18: a server certificate whose public key OpenSSL cannot decode
// (Fuzz/FailCases/certificate-undecodable-public-key) through every public path that reads a
// presented certificate's key: `SecTrust.af.publicKeys`, `PublicKeysTrustEvaluator` (here over a
// real handshake with `openssl s_server`, which sends it after a valid leaf), and the same
// evaluator on a trust whose leaf is that certificate (a trust built in memory: no server can
// present a leaf whose key it cannot hold). Each must answer (pass, or fail with an AFError),
// never trap. `Certificate.publicKey`, which trapped, is gone; `decodedPublicKey` is optional.
#if FullFoundation
import Foundation
import Testing
@testable import TLS
import LariatTestSupport
import Client

extension ClientIntegrationTests {
    @Suite("Public-key pinning with an undecodable server key (issue 18)")
    struct UndecodableKeyPinningTests {
        /// The fuzz finding: a prime256v1 SubjectPublicKeyInfo whose point does not decode.
        static func undecodable() throws -> SecCertificate {
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fuzz/FailCases/certificate-undecodable-public-key").path
            let data = try #require(FileManager.default.contents(atPath: path))
            return try #require(SecCertificateCreateWithData(nil, data as CFData))
        }

        /// What an evaluator saw of the presented chain: the count and which keys decoded.
        final class Seen: @unchecked Sendable {
            // @unchecked: written once by the evaluator during the handshake, read after the
            // request's response has been awaited (which orders the two).
            var decodes: [Bool] = []
        }

        /// Records the chain's keys, then lets the next evaluator decide.
        struct Recorder: ServerTrustEvaluating {
            let seen: Seen
            func evaluate(_ trust: SecTrust, forHost host: String) throws {
                seen.decodes = trust.af.certificates.map { $0.af.publicKey != nil }
            }
        }

        /// One GET to `s_server` presenting the lab's server leaf and, after it, the undecodable
        /// certificate (`-cert_chain`), pinned with `pins`; returns what the recorder saw.
        func get(pins: (HTTPSLab) throws -> [SecKey], lab: HTTPSLab, chainPath: String) async throws -> (AFResult<Data>, [Bool]) {
            // SECLEVEL=0 only on the server: at its default level s_server refuses to send a
            // chain certificate whose key it cannot read ("ca key too small").
            let server = try await offPool {
                try HTTPSServer(lab: lab, arguments: ["-cert_chain", chainPath, "-cipher", "DEFAULT@SECLEVEL=0"])
            }
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            let seen = Seen()
            let evaluator = CompositeTrustEvaluator(evaluators: [Recorder(seen: seen), PublicKeysTrustEvaluator(keys: try pins(lab))])
            let session = Session(serverTrustManager: ServerTrustManager(evaluators: ["127.0.0.1": evaluator]), tlsConfiguration: tls)
            let result = await session.request("https://127.0.0.1:\(server.port)/").serializingData().result
            try await offPool { server.stop() }  // waits for the process: off the cooperative pool
            return (result, seen.decodes)
        }

        @Test("after a valid leaf: the server's pin passes, another pin fails with publicKeyPinningFailed")
        func extraCertificateInTheChain() async throws {
            let lab = try await offPool { try HTTPSLab.shared.get() }
            let certificate = try Self.undecodable()
            let chainPath = FileManager.default.temporaryDirectory.appendingPathComponent("undecodable-key-\(getpid()).pem").path
            let pem = "-----BEGIN CERTIFICATE-----\n" + certificate.data.base64EncodedString(options: .lineLength64Characters)
                + "\n-----END CERTIFICATE-----\n"
            try pem.write(toFile: chainPath, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: chainPath) }

            let (passed, seenPassing) = try await get(pins: { try SecKey.publicKeys(inFile: $0.path("server.pub.pem")) }, lab: lab, chainPath: chainPath)
            #expect(seenPassing == [true, false], "the undecodable certificate must reach the evaluator")
            #expect((try? passed.get()) != nil, "got \(passed)")

            let (refused, seenRefused) = try await get(pins: { try SecKey.publicKeys(inFile: $0.path("rogue.pem")) }, lab: lab, chainPath: chainPath)
            #expect(seenRefused == [true, false])
            guard case .failure(.serverTrustEvaluationFailed(.publicKeyPinningFailed(_, _, _, let serverKeys))) = refused else {
                Issue.record("expected publicKeyPinningFailed, got \(refused)")
                return
            }
            #expect(serverKeys.count == 1, "only the leaf's key decodes")
        }

        @Test("as the leaf (in memory): SecTrust has no keys, PublicKeysTrustEvaluator throws publicKeyPinningFailed")
        func undecodableLeaf() throws {
            let certificate = try Self.undecodable()
            let lab = try HTTPSLab.shared.get()
            let context = TrustEvaluationContext(
                host: "127.0.0.1", port: 443, peerCertificates: [certificate.certificate], chainResult: nil,
                stapledOCSPResponse: nil, isResumedSession: false, trustStore: TrustStore(anchors: []), configuration: TLSConfiguration())
            let trust = SecTrust(context: context)
            #expect(trust.af.publicKeys.isEmpty)
            #expect(trust.af.certificates.count == 1)
            let evaluator = PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("server.pub.pem")), performDefaultValidation: false, validateHost: false)
            let error = #expect(throws: AFError.self) { try evaluator.evaluate(trust, forHost: "127.0.0.1") }
            guard case .serverTrustEvaluationFailed(.publicKeyPinningFailed(_, _, _, let serverKeys))? = error else {
                Issue.record("expected publicKeyPinningFailed, got \(String(describing: error))")
                return
            }
            #expect(serverKeys.isEmpty)
            // The TLS module's own accessor: optional, so the caller decides.
            #expect(certificate.certificate.decodedPublicKey == nil)
        }
    }
}
#endif
