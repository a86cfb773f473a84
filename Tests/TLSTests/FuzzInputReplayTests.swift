import Foundation
import Testing
import TLS

// Replays the `pem` fuzz target's files (Fuzz/corpus/pem/ and Fuzz/FailCases/pem-*) with its
// oracles: loading never traps, and a loaded certificate's DER loads to the same bytes.

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
        for path in paths.sorted() {
            let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            var certificates = (try? Certificate.certificates(fromPEM: bytes)) ?? []
            if let one = try? Certificate(derBytes: bytes) { certificates.append(one) }
            for certificate in certificates {
                #expect(try Certificate(derBytes: certificate.derBytes).derBytes == certificate.derBytes, "\(path)")
                loaded += 1
            }
            _ = try? CertificateRevocationList.crls(fromPEM: bytes)
            _ = try? PrivateKey(pemBytes: bytes)
            _ = try? PrivateKey(pemBytes: bytes, password: "fuzz")
            _ = try? PrivateKey(derBytes: bytes)
            _ = try? PublicKey(pemBytes: bytes)
            _ = try? PublicKey(subjectPublicKeyInfoDER: bytes)
        }
        #expect(loaded >= 2, "the seed certificates (cert.pem, cert.der) load")
    }
}
