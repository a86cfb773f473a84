import COpenSSL
import Foundation
import Testing
@testable import TLS

/// OpenSSL keeps one error queue per thread, and anything on that thread (the application's own
/// OpenSSL calls, another library, an earlier failed parse) can leave errors on it. Lariat's PEM
/// loops stop at the "no start line" error that ends the input; with stale errors queued before
/// the call they read the whole queue and refused valid PEM as malformed. CI saw it: an earlier
/// test on the same cooperative thread left two `EVP_R_DECODE_ERROR`s behind.
@Suite struct StaleOpenSSLErrorsTests {
    /// Queues the errors a failed public-key parse leaves: "digital envelope routines::decode error".
    private static func leaveStaleErrors() {
        let garbage: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x00]
        garbage.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            precondition(key == nil, "the garbage decoded")
        }
        precondition(ERR_peek_error() != 0, "no stale error queued")
    }

    // All in one synchronous body: no suspension point, so the stale errors and the parse share a thread.
    @Test func certificatePEMParsesWithStaleErrorsQueued() throws {
        let pem = try Data(contentsOf: URL(fileURLWithPath: PKI.shared.leaf.certificatePath))
        Self.leaveStaleErrors()
        let certificates = try Certificate.certificates(fromPEM: Array(pem))
        #expect(certificates == [PKI.shared.leaf.certificate])
        ERR_clear_error()
    }

    @Test func crlPEMParsesWithStaleErrorsQueued() throws {
        let pem = try Data(contentsOf: URL(fileURLWithPath: PKI.shared.intermediateCRLPath))
        Self.leaveStaleErrors()
        let crls = try CertificateRevocationList.crls(fromPEM: Array(pem))
        #expect(crls.count == 1)
        ERR_clear_error()
    }
}

/// The other half: what Lariat's operations leave on the queue. A success leaves nothing (OpenSSL 3's
/// decoders push errors while they try formats, even when one succeeds), so the application's
/// next OpenSSL call on the thread does not inherit them.
@Suite struct OpenSSLQueueLeftCleanTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let operation: @Sendable (PKI) throws -> Void
        init(_ name: String, _ operation: @escaping @Sendable (PKI) throws -> Void) {
            testDescription = name
            self.operation = operation
        }
    }

    static let rows: [Row] = [
        Row("Certificate.load(pemFile:)") { _ = try Certificate.load(pemFile: $0.leaf.certificatePath) },
        Row("Certificate(derBytes:)") { _ = try Certificate(derBytes: $0.leaf.certificate.derBytes) },
        Row("PrivateKey.load EC") { _ = try PrivateKey.load(file: $0.leaf.keyPath) },
        Row("PrivateKey.load RSA") { _ = try PrivateKey.load(file: $0.rsaLeaf.keyPath) },
        Row("PrivateKey.load encrypted") { _ = try PrivateKey.load(file: $0.encryptedKeyPath, password: PKI.keyPassword) },
        Row("PrivateKey(derBytes:)") { pki in
            let pem = try String(contentsOfFile: pki.rsaLeaf.keyPath, encoding: .utf8)
            let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            _ = try PrivateKey(derBytes: Array(Data(base64Encoded: base64)!))
        },
        Row("PKCS12Bundle.load") { _ = try PKCS12Bundle.load(file: $0.clientPKCS12Path, password: PKI.pkcs12Password) },
        Row("PublicKey(subjectPublicKeyInfoDER:)") { _ = try PublicKey(subjectPublicKeyInfoDER: $0.leaf.key.publicKey.subjectPublicKeyInfoDER) },
        Row("CertificateRevocationList.load") { _ = try CertificateRevocationList.load(file: $0.intermediateCRLPath) },
        Row("decodedPublicKey, facts") { _ = $0.leaf.certificate.decodedPublicKey; _ = CertificateFacts($0.leaf.certificate) },
        Row("ClientIdentity.validated") { _ = try ClientIdentity.certificates([$0.client.certificate], key: $0.client.key).validated() },
        Row("TrustStore.evaluate, trusted") { pki in
            _ = TrustStore(anchors: [pki.root.certificate])
                .evaluate(chain: [pki.leaf.certificate, pki.intermediate.certificate], policy: TrustPolicy(host: "localhost"))
        },
        Row("TrustStore.evaluate, untrusted") { pki in
            _ = TrustStore(anchors: [pki.root.certificate]).evaluate(chain: [pki.untrustedLeaf.certificate], policy: TrustPolicy(host: "localhost"))
        },
        Row("checkOCSPResponse") { pki in
            _ = TrustStore(anchors: [pki.root.certificate]).checkOCSPResponse(
                pki.ocspGood, chain: [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate])
        },
        // Failures: the reasons travel in the thrown TLSError, none stay behind.
        Row("PublicKey(pemBytes:) garbage") { _ in _ = try? PublicKey(pemBytes: Array("-----BEGIN PUBLIC KEY-----\nMAMCAQA=\n-----END PUBLIC KEY-----\n".utf8)) },
        Row("PublicKey(subjectPublicKeyInfoDER:) garbage") { _ in _ = try? PublicKey(subjectPublicKeyInfoDER: [0x30, 0x03, 0x02, 0x01, 0x00]) },
        Row("PrivateKey wrong password") { _ = try? PrivateKey.load(file: $0.encryptedKeyPath, password: "wrong") },
        Row("PrivateKey no password") { _ = try? PrivateKey.load(file: $0.encryptedKeyPath) },
        Row("PrivateKey(derBytes:) garbage") { _ in _ = try? PrivateKey(derBytes: [0x30, 0x03, 0x02, 0x01, 0x00]) },
        Row("PrivateKey(pemBytes:) certificate") { _ = try? PrivateKey.load(file: $0.leaf.certificatePath) },
        Row("PKCS12Bundle wrong password") { _ = try? PKCS12Bundle.load(file: $0.clientPKCS12Path, password: "wrong") },
        Row("Certificate(derBytes:) garbage") { _ in _ = try? Certificate(derBytes: [0x30, 0x03, 0x02, 0x01, 0x00]) },
        Row("Certificate.load key file") { _ = try? Certificate.load(pemFile: $0.leaf.keyPath) },
        Row("ClientIdentity mismatch") { _ = try? ClientIdentity.certificates([$0.leaf.certificate], key: $0.client.key).validated() },
        Row("checkOCSPResponse garbage") { pki in
            _ = TrustStore(anchors: [pki.root.certificate]).checkOCSPResponse([0x30, 0x03, 0x0A, 0x01, 0x00], chain: [pki.leaf.certificate, pki.intermediate.certificate])
        },
    ]

    @Test(arguments: rows)
    func leavesQueueEmpty(_ row: Row) throws {
        let pki = PKI.shared
        ERR_clear_error()
        try row.operation(pki)
        var left: [String] = []
        while case let code = ERR_get_error(), code != 0 { left.append(String(code, radix: 16)) }
        #expect(left.isEmpty, "left on the queue: \(left)")
    }
}
