import Foundation
import Testing
import TLS

// Replays the `pem` fuzz target's files (Fuzz/corpus/pem/ and Fuzz/FailCases/pem-*) with its
// oracles: loading never traps, a loaded certificate's DER loads to the same bytes, and a chain
// with its key validates as a client identity only when the key is the first certificate's.

@Suite("Fuzz input replay (TLS)")
struct PEMFuzzReplayTests {
    @Test("pem: loaders only throw TLSError; certificates round-trip through DER")
    func pem() throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz")
        var paths: [String] = []
        let corpus = fuzz.appendingPathComponent("corpus/pem").path
        paths += ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).map { "\(corpus)/\($0)" }
        let failCases = fuzz.appendingPathComponent("FailCases").path
        paths += ((try? FileManager.default.contentsOfDirectory(atPath: failCases)) ?? []).filter { $0.hasPrefix("pem-") }.map { "\(failCases)/\($0)" }
        #expect(!paths.isEmpty, "no pem files under \(fuzz.path)")
        var loaded = 0
        var identities = 0
        for path in paths.sorted() {
            let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            var certificates = (try? Certificate.certificates(fromPEM: bytes)) ?? []
            if let one = try? Certificate(derBytes: bytes) { certificates.append(one) }
            for certificate in certificates {
                #expect(try Certificate(derBytes: certificate.derBytes).derBytes == certificate.derBytes, "\(path)")
                loaded += 1
            }
            _ = try? CertificateRevocationList.crls(fromPEM: bytes)
            let keys = [try? PrivateKey(pemBytes: bytes), try? PrivateKey(pemBytes: bytes, password: "fuzz"), try? PrivateKey(derBytes: bytes)]
            for case let key? in keys where !certificates.isEmpty {
                if (try? ClientIdentity.certificates(certificates, key: key).validated()) != nil {
                    #expect(certificates[0].decodedPublicKey == key.publicKey, "\(path)")
                    identities += 1
                }
            }
            _ = try? PublicKey(pemBytes: bytes)
            _ = try? PublicKey(subjectPublicKeyInfoDER: bytes)
        }
        #expect(loaded >= 2, "the seed certificates (cert.pem, cert.der) load")
        #expect(identities >= 3, "the identity-* seeds with a matching key (plain and encrypted) validate")
    }
}
