// HTTPS end to end: Session → pool → TLS handshake (with ServerTrustManager evaluators run inside
// it) → `openssl s_server -www` on loopback, with certificates minted at run time (HTTPSLab).
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("HTTPS and server trust")
    struct HTTPSTests {
        /// The outcome a test expects.
        enum Outcome: Sendable, CustomStringConvertible {
            case success
            case urlError(URLError.Code)
            case trust(String)
            var description: String {
                switch self {
                case .success: "success"
                case .urlError(let code): "URLError \(code.rawValue)"
                case .trust(let reason): "serverTrustEvaluationFailed(\(reason))"
                }
            }
        }

        /// The case name of a reason, such as `certificatePinningFailed`.
        static func name(of reason: AFError.ServerTrustFailureReason) -> String {
            switch reason {
            case .noRequiredEvaluator: "noRequiredEvaluator"
            case .noCertificatesFound: "noCertificatesFound"
            case .noPublicKeysFound: "noPublicKeysFound"
            case .defaultEvaluationFailed: "defaultEvaluationFailed"
            case .hostValidationFailed: "hostValidationFailed"
            case .revocationCheckFailed: "revocationCheckFailed"
            case .certificatePinningFailed: "certificatePinningFailed"
            case .publicKeyPinningFailed: "publicKeyPinningFailed"
            case .customEvaluationFailed: "customEvaluationFailed"
            }
        }

        /// Runs one GET against a fresh server and checks the outcome.
        func check(
            host: String = "127.0.0.1", trustTestCA: Bool, manager: (HTTPSLab) throws -> ServerTrustManager?,
            expect outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try HTTPSServer(lab: lab)
            defer { server.stop() }
            var tls = TLSConfiguration()
            if trustTestCA { tls.trustRoots = .file(lab.path("ca.pem")) }
            let session = Session(serverTrustManager: try manager(lab), tlsConfiguration: tls)
            let response = await session.request("https://\(host):\(server.port)/").serializingData().response
            switch (outcome, response.result) {
            case (.success, .success(let body)):
                #expect(response.response?.statusCode == 200, sourceLocation: sourceLocation)
                #expect(String(decoding: body, as: UTF8.self).contains("s_server"), sourceLocation: sourceLocation)
            case (.urlError(let code), .failure(let error)):
                let urlError = sessionTaskURLError(response.result)
                #expect(urlError?.code == code, "got \(error)", sourceLocation: sourceLocation)
                let tlsError = transportError(urlError)?.underlying as? TLSError
                #expect(tlsError?.kind == .trust, "the TLS error is underneath: \(error)", sourceLocation: sourceLocation)
            case (.trust(let expected), .failure(let error)):
                guard case .serverTrustEvaluationFailed(let reason) = error else {
                    Issue.record("expected serverTrustEvaluationFailed(\(expected)), got \(error)", sourceLocation: sourceLocation)
                    return
                }
                #expect(error.isServerTrustEvaluationError, sourceLocation: sourceLocation)
                #expect(HTTPSTests.name(of: reason) == expected, "got \(error)", sourceLocation: sourceLocation)
            default:
                Issue.record("expected \(outcome), got \(response.result)", sourceLocation: sourceLocation)
            }
        }

        @Test("GET with the test CA as trust root succeeds")
        func trustedCA() async throws {
            try await check(trustTestCA: true, manager: { _ in nil }, expect: .success)
        }

        @Test("without the test CA: unknown root")
        func untrustedRoot() async throws {
            try await check(trustTestCA: false, manager: { _ in nil }, expect: .urlError(.serverCertificateHasUnknownRoot))
        }

        @Test("wrong host (certificate for 127.0.0.1 only, URL says localhost): untrusted")
        func wrongHost() async throws {
            try await check(host: "localhost", trustTestCA: true, manager: { _ in nil }, expect: .urlError(.serverCertificateUntrusted))
        }

        @Test("DefaultTrustEvaluator: wrong host is hostValidationFailed, unknown root defaultEvaluationFailed")
        func defaultEvaluator() async throws {
            let byHost: (HTTPSLab) -> ServerTrustManager = { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": .defaultEvaluator, "localhost": DefaultTrustEvaluator()])
            }
            try await check(trustTestCA: true, manager: byHost, expect: .success)
            try await check(host: "localhost", trustTestCA: true, manager: byHost, expect: .trust("hostValidationFailed"))
            try await check(trustTestCA: false, manager: byHost, expect: .trust("defaultEvaluationFailed"))
            let noHostCheck: (HTTPSLab) -> ServerTrustManager = { _ in
                ServerTrustManager(evaluators: ["localhost": DefaultTrustEvaluator(validateHost: false)])
            }
            try await check(host: "localhost", trustTestCA: true, manager: noHostCheck, expect: .success)
        }

        /// Certificate pins: (pinned file, acceptSelfSigned, trust CA, expected outcome).
        static let certificatePins: [(String, Bool, Bool, String?)] = [
            ("server.pem", false, true, nil),                       // leaf pinned, chain valid
            ("ca.pem", false, true, nil),                           // root pinned (it is not sent: compared against the chain as presented)
            ("rogue.pem", false, true, "certificatePinningFailed"), // wrong pin
            ("server.pem", false, false, "defaultEvaluationFailed"),// pinned but chain not trusted
            ("server.pem", true, false, nil),                       // pin is the anchor
        ]

        @Test("PinnedCertificatesTrustEvaluator", arguments: 0..<5)
        func pinnedCertificates(index: Int) async throws {
            let (file, selfSigned, trustCA, failure) = HTTPSTests.certificatePins[index]
            // The CA is not in the presented chain, so pinning it matches nothing.
            let expected: Outcome = file == "ca.pem" ? .trust("certificatePinningFailed") : failure.map { .trust($0) } ?? .success
            try await check(trustTestCA: trustCA, manager: { lab in
                let pins = try SecCertificate.certificates(inFile: lab.path(file))
                return ServerTrustManager(evaluators: [
                    "127.0.0.1": PinnedCertificatesTrustEvaluator(certificates: pins, acceptSelfSignedCertificates: selfSigned),
                ])
            }, expect: expected)
        }

        @Test("SecCertificateCreateWithData(nil, data as CFData) round-trips DER")
        func secCertificateCreate() throws {
            let lab = try HTTPSLab.shared.get()
            let pem = try SecCertificate.certificates(inFile: lab.path("server.pem"))
            let data = pem[0].data
            let certificate = try #require(SecCertificateCreateWithData(nil, data as CFData))
            #expect(certificate == pem[0])
            #expect(SecCertificateCreateWithData(kCFAllocatorDefault, Data([0x30, 0x03, 0x02])) == nil)
            #expect([certificate].af.publicKeys == pem.af.publicKeys)
        }

        @Test("PublicKeysTrustEvaluator: the server's key passes, another key fails, empty pins fail")
        func publicKeys() async throws {
            try await check(trustTestCA: true, manager: { lab in
                ServerTrustManager(evaluators: ["127.0.0.1": PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("server.pub.pem")))])
            }, expect: .success)
            try await check(trustTestCA: true, manager: { lab in
                ServerTrustManager(evaluators: ["127.0.0.1": .publicKeys(keys: try SecKey.publicKeys(inFile: lab.path("rogue.pem")))])
            }, expect: .trust("publicKeyPinningFailed"))
            try await check(trustTestCA: true, manager: { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": PublicKeysTrustEvaluator(keys: [])])
            }, expect: .trust("noPublicKeysFound"))
            // Pin without default validation: an untrusted root is accepted when the key matches.
            try await check(trustTestCA: false, manager: { lab in
                ServerTrustManager(evaluators: [
                    "127.0.0.1": PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("server.pem")), performDefaultValidation: false),
                ])
            }, expect: .success)
        }

        @Test("DisabledTrustEvaluator accepts an untrusted server")
        func disabled() async throws {
            try await check(trustTestCA: false, manager: { _ in ServerTrustManager(evaluators: ["127.0.0.1": DisabledTrustEvaluator()]) }, expect: .success)
        }

        @Test("allHostsMustBeEvaluated: a host without an evaluator fails with noRequiredEvaluator; false falls back to default")
        func requiredEvaluator() async throws {
            try await check(trustTestCA: true, manager: { _ in ServerTrustManager(evaluators: ["other.example": .disabled]) },
                            expect: .trust("noRequiredEvaluator"))
            try await check(trustTestCA: true, manager: { _ in
                ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: ["other.example": .disabled])
            }, expect: .success)
        }

        /// A custom evaluator's error is wrapped, a composite stops at the first failure.
        struct Refuse: ServerTrustEvaluating {
            struct Refused: Error {}
            func evaluate(_ trust: SecTrust, forHost host: String) throws {
                #expect(trust.af.certificateData.count == 1)
                throw Refused()
            }
        }

        @Test("custom and composite evaluators")
        func customAndComposite() async throws {
            try await check(trustTestCA: true, manager: { _ in ServerTrustManager(evaluators: ["127.0.0.1": Refuse()]) },
                            expect: .trust("customEvaluationFailed"))
            try await check(trustTestCA: true, manager: { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": CompositeTrustEvaluator(evaluators: [DefaultTrustEvaluator(), Refuse()])])
            }, expect: .trust("customEvaluationFailed"))
            try await check(trustTestCA: false, manager: { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": .composite(evaluators: [DefaultTrustEvaluator(), Refuse()])])
            }, expect: .trust("defaultEvaluationFailed"))
        }

        @Test("RevocationTrustEvaluator: .ocsp with requirePositiveResponse fails without a stapled response; plain .ocsp passes")
        func revocation() async throws {
            try await check(trustTestCA: true, manager: { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": RevocationTrustEvaluator(options: [.ocsp, .requirePositiveResponse])])
            }, expect: .trust("revocationCheckFailed"))
            try await check(trustTestCA: true, manager: { _ in
                ServerTrustManager(evaluators: ["127.0.0.1": .revocationChecking])
            }, expect: .success)
        }
    }
}
#endif
