// The certificate lab through Session: one `openssl s_server -www` per case on 127.0.0.1, reached
// under the certificate's name through Session(resolver:), with the lab root as the only anchor.
// Each row asserts the exact outcome: success, or the URLError code *and* the TLS module's
// TrustFailure reason underneath it (default evaluation), or the AFError reason (evaluators).
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS certificate lab")
    struct HTTPSLabTests {
        /// What a request must end in.
        enum Expected: Sendable, CustomStringConvertible {
            case success
            /// Default evaluation refused the server: this URLError code, this reason underneath.
            case certificate(URLError.Code, TrustFailure.Reason)
            /// The TLS handshake failed (not a certificate verdict): `.secureConnectionFailed` with this TLSError kind.
            case handshake(TLSError.Kind)
            /// An evaluator refused the server: `AFError.serverTrustEvaluationFailed` with this reason's name.
            case trust(String)

            var description: String {
                switch self {
                case .success: "success"
                case .certificate(let code, let reason): "URLError \(code.rawValue) (\(reason))"
                case .handshake(let kind): "secureConnectionFailed (TLSError.\(kind))"
                case .trust(let reason): "serverTrustEvaluationFailed(\(reason))"
                }
            }
        }

        /// One server and one request.
        struct Case: Sendable, CustomTestStringConvertible {
            /// The scenario, for the test report.
            var name: String
            /// Lab name of the server certificate and key.
            var certificate: String
            /// Lab file of intermediates the server sends; `nil` for none.
            var chain: String?
            /// The host in the URL (resolved to 127.0.0.1 by the session).
            var host = HTTPSLab.hostName
            /// Extra `s_server` arguments.
            var serverArguments: [String] = []
            var expected: Expected
            var testDescription: String { "\(name) → \(expected)" }
        }

        /// s_server refuses to load a 1024-bit key or a SHA-1 signed certificate at OpenSSL's
        /// default security level; the *client* must be the one that refuses.
        static let weakServer = ["-cipher", "DEFAULT@SECLEVEL=0"]

        static let defaultEvaluationCases: [Case] = [
            Case(name: "valid chain (leaf + intermediate)", certificate: "good", chain: "inter.pem", expected: .success),
            Case(name: "expired", certificate: "expired", chain: "inter.pem", expected: .certificate(.serverCertificateHasBadDate, .expired)),
            Case(name: "not yet valid", certificate: "future", chain: "inter.pem", expected: .certificate(.serverCertificateHasBadDate, .notYetValid)),
            Case(name: "wrong host", certificate: "good", chain: "inter.pem", host: "other.lariat.test",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "self-signed leaf", certificate: "selfsigned", expected: .certificate(.serverCertificateHasUnknownRoot, .selfSigned)),
            Case(name: "untrusted root (sent in the chain)", certificate: "untrusted", chain: "rogue.pem",
                 expected: .certificate(.serverCertificateHasUnknownRoot, .untrustedRoot)),
            Case(name: "missing intermediate", certificate: "good", expected: .certificate(.serverCertificateHasUnknownRoot, .incompleteChain)),
            Case(name: "wildcard matches one label", certificate: "wildcard", chain: "inter.pem", host: "a.wild.lariat.test", expected: .success),
            Case(name: "wildcard does not match the bare domain", certificate: "wildcard", chain: "inter.pem", host: "wild.lariat.test",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "wildcard does not match two labels", certificate: "wildcard", chain: "inter.pem", host: "a.b.wild.lariat.test",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "partial wildcard api*.lariat.test refused", certificate: "partial", chain: "inter.pem", host: "api1.lariat.test",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "IP SAN matches the IP URL", certificate: "ip", chain: "inter.pem", host: "127.0.0.1", expected: .success),
            Case(name: "IP URL against a DNS-only certificate", certificate: "good", chain: "inter.pem", host: "127.0.0.1",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "name URL against an IP-only certificate", certificate: "ip", chain: "inter.pem",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
            Case(name: "1024-bit RSA key", certificate: "weakrsa", chain: "inter.pem", serverArguments: weakServer,
                 expected: .certificate(.serverCertificateUntrusted, .weakKeyOrSignature)),
            Case(name: "SHA-1 signature", certificate: "sha1", chain: "inter.pem", serverArguments: weakServer,
                 expected: .certificate(.serverCertificateUntrusted, .weakKeyOrSignature)),
            Case(name: "CN-only certificate (no SAN) refused", certificate: "cnonly", chain: "inter.pem",
                 expected: .certificate(.serverCertificateUntrusted, .hostnameMismatch)),
        ]

        @Test("default evaluation", arguments: defaultEvaluationCases)
        func defaultEvaluation(_ testCase: Case) async throws {
            try await HTTPSLabTests.run(testCase)
        }

        /// Evaluators against the chained lab server: (name, host, evaluator from the lab, expected).
        static let evaluatorCases: [(String, String, @Sendable (HTTPSLab) throws -> any ServerTrustEvaluating, Expected)] = [
            ("pinned intermediate (presented in the chain)", HTTPSLab.hostName,
             { lab in PinnedCertificatesTrustEvaluator(certificates: try SecCertificate.certificates(inFile: lab.path("inter.pem"))) }, .success),
            ("pinned leaf, wrong host", "other.lariat.test",
             { lab in PinnedCertificatesTrustEvaluator(certificates: try SecCertificate.certificates(inFile: lab.path("good.pem"))) },
             .trust("hostValidationFailed")),
            ("pinned leaf, wrong host, validateHost: false", "other.lariat.test",
             { lab in PinnedCertificatesTrustEvaluator(certificates: try SecCertificate.certificates(inFile: lab.path("good.pem")), validateHost: false) },
             .success),
            ("pinned intermediate key", HTTPSLab.hostName,
             { lab in PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("inter.pem"))) }, .success),
            ("pinned key of another server", HTTPSLab.hostName,
             { lab in PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("expired.pem"))) }, .trust("publicKeyPinningFailed")),
        ]

        @Test("evaluators against the chained server", arguments: 0..<5)
        func evaluators(index: Int) async throws {
            let (name, host, make, expected) = HTTPSLabTests.evaluatorCases[index]
            let lab = try HTTPSLab.shared.get()
            let evaluator = try make(lab)
            try await HTTPSLabTests.run(
                Case(name: name, certificate: "good", chain: "inter.pem", host: host, expected: expected),
                manager: ServerTrustManager(evaluators: [host: evaluator]))
        }

        /// Mutual TLS: s_server requires a certificate from the client CA (`-Verify 1`, and
        /// `-verify_return_error` so a certificate it does not trust ends the handshake).
        static let mutual: [(name: String, identity: @Sendable (HTTPSLab) -> ClientIdentity?, tls12: Bool, expected: Expected)] = [
            ("TLS 1.3, no client certificate", { _ in nil }, false, .handshake(.connection)),
            ("TLS 1.2, no client certificate", { _ in nil }, true, .handshake(.handshake)),
            ("PEM certificate and key", { lab in .pemFiles(certificateChain: lab.path("client.pem"), privateKey: lab.path("client.key")) }, false, .success),
            ("PEM with an encrypted key", { lab in
                .pemFiles(certificateChain: lab.path("client.pem"), privateKey: lab.path("client.enc.key"), password: HTTPSLab.clientPassword)
            }, false, .success),
            ("PKCS#12", { lab in .pkcs12(file: lab.path("client.p12"), password: HTTPSLab.clientPassword) }, false, .success),
            ("PKCS#12 over TLS 1.2", { lab in .pkcs12(file: lab.path("client.p12"), password: HTTPSLab.clientPassword) }, true, .success),
            ("certificate from a CA the server does not trust, TLS 1.2", { lab in
                .pemFiles(certificateChain: lab.path("strangerclient.pem"), privateKey: lab.path("strangerclient.key"))
            }, true, .handshake(.handshake)),
        ]

        @Test("mutual TLS", arguments: 0..<7)
        func mutualTLS(index: Int) async throws {
            let row = HTTPSLabTests.mutual[index]
            let lab = try HTTPSLab.shared.get()
            var arguments = ["-Verify", "1", "-verify_return_error", "-CAfile", lab.path("clientca.pem")]
            if row.tls12 { arguments.append("-tls1_2") }
            try await HTTPSLabTests.run(
                Case(name: row.name, certificate: "good", chain: "inter.pem", serverArguments: arguments, expected: row.expected),
                identity: row.identity(lab))
        }

        // MARK: Running a case

        /// The session every case uses: the lab root as the only anchor, the case names on 127.0.0.1.
        static func session(identity: ClientIdentity? = nil, manager: ServerTrustManager? = nil) throws -> Session {
            let lab = try HTTPSLab.shared.get()
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            tls.clientIdentity = identity
            let overrides = Dictionary(uniqueKeysWithValues: HTTPSLab.caseHosts.map { ($0, ["127.0.0.1"]) })
            return Session(serverTrustManager: manager, tlsConfiguration: tls, resolver: try HostResolver(overrides: overrides))
        }

        static func run(
            _ testCase: Case, identity: ClientIdentity? = nil, manager: ServerTrustManager? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try HTTPSServer(lab: lab, certificate: testCase.certificate, chain: testCase.chain, arguments: testCase.serverArguments)
            defer { server.stop() }
            let session = try session(identity: identity, manager: manager)
            let response = await session.request("https://\(testCase.host):\(server.port)/").serializingData().response
            check(response.result, statusCode: response.response?.statusCode, expected: testCase.expected, sourceLocation: sourceLocation)
        }

        /// Asserts `result` is exactly `expected`.
        static func check(
            _ result: Result<Data, AFError>, statusCode: Int?, expected: Expected, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            switch (expected, result) {
            case (.success, .success(let body)):
                #expect(statusCode == 200, sourceLocation: sourceLocation)
                #expect(String(decoding: body, as: UTF8.self).contains("s_server"), sourceLocation: sourceLocation)
            case (.certificate(let code, let reason), .failure(let error)):
                let urlError = sessionTaskURLError(result)
                #expect(urlError?.code == code, "got \(error)", sourceLocation: sourceLocation)
                let tlsError = transportError(urlError)?.underlying as? TLSError
                #expect(tlsError?.kind == .trust, "got \(error)", sourceLocation: sourceLocation)
                #expect(tlsError?.trustFailure?.reason == reason, "got \(error)", sourceLocation: sourceLocation)
            case (.handshake(let kind), .failure(let error)):
                let urlError = sessionTaskURLError(result)
                #expect(urlError?.code == .secureConnectionFailed, "got \(error)", sourceLocation: sourceLocation)
                let tlsError = transportError(urlError)?.underlying as? TLSError
                #expect(tlsError?.kind == kind, "got \(error)", sourceLocation: sourceLocation)
            case (.trust(let expectedReason), .failure(let error)):
                guard case .serverTrustEvaluationFailed(let reason) = error else {
                    Issue.record("expected serverTrustEvaluationFailed(\(expectedReason)), got \(error)", sourceLocation: sourceLocation)
                    return
                }
                #expect(HTTPSTests.name(of: reason) == expectedReason, "got \(error)", sourceLocation: sourceLocation)
            default:
                Issue.record("expected \(expected), got \(result)", sourceLocation: sourceLocation)
            }
        }
    }
}
#endif
