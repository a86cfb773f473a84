// libFuzzer target: one DER CRL, loaded into a store with the fixed root and consulted while
// evaluating the fixed leaf behind its intermediate (leaf-only and full-chain CRL checks).
//
// Oracles: never traps; only `TLSError` escapes; a CRL cannot make the fixed chain trusted when
// a full-chain check needs CRLs for both the intermediate and the leaf and the input is the
// only CRL (one CRL has one issuer); evaluation ends. Input: the CRL's DER. Mutator: DERMutator.
import ClientFuzzHarness
import TLS
import X509FuzzHarness

@main
enum CRLFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            CRLFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        guard let crl = try? CertificateRevocationList(derBytes: inputBytes(data, count)) else { return }
        _ = crl.issuer
        _ = crl.lastUpdate
        _ = crl.nextUpdate
        guard let store = try? TrustStore(roots: .certificates([X509Fixtures.root]), crls: [crl]) else { return }
        let chain = [X509Fixtures.leaf, X509Fixtures.intermediate]
        for check in [CRLCheck.leaf, .fullChain] {
            for profile in [TrustProfile.rfc5280, .webPKI] {
                var policy = X509Fixtures.policy(host: "localhost", profile: profile)
                policy.crlCheck = check
                let result = store.evaluate(chain: chain, policy: policy)
                _ = result.description
                if check == .fullChain { require(!result.isTrusted, "one CRL covered both the leaf and the intermediate") }
            }
        }
    }
}
