// libFuzzer target: one DER certificate as a server would send it. The leaf is read the way a
// client reads it (names, key, facts the profiles use), matched against fixed hosts and against
// its own names (DNS and IP), and evaluated behind the fixed intermediate under both profiles;
// it is also tried as an anchor of its own (a pinned self-signed certificate).
//
// Oracles: never traps (AddressSanitizer on OpenSSL's and our reads); only `TLSError` escapes
// (typed throws); a DER that loads re-encodes to bytes that load to the same DER; a trusted
// verdict for a host comes with a SAN the RFC 6125 matcher accepts for it; evaluation ends
// (libFuzzer's -timeout). Input: the certificate's DER, nothing else. Mutator: DERMutator.
@testable import TLS
import ClientFuzzHarness
import X509FuzzHarness

@main
enum CertificateFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            CertificateFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = inputBytes(data, count)
        guard let certificate = try? Certificate(derBytes: bytes) else { return }
        let der = certificate.derBytes
        require((try? Certificate(derBytes: der))?.derBytes == der, "certificate DER does not round-trip")
        _ = CertificateFacts(certificate)
        let hosts = exerciseCertificate(certificate)
        // Behind the fixed intermediate, for the first host and for one the input picks.
        evaluateBothProfiles([certificate, X509Fixtures.intermediate], host: hosts[0])
        evaluateBothProfiles([certificate, X509Fixtures.intermediate], host: hosts[bytes.count % hosts.count])
        // As its own anchor (a pinned self-signed certificate), with no host.
        evaluateBothProfiles([certificate], host: nil, store: TrustStore(anchors: [certificate]), partial: true)
    }
}
