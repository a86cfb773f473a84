// libFuzzer target: several DER certificates back to back, presented as a server's chain (leaf
// first, up to 40 certificates: cross-signs, loops, look-alike issuers, deep paths).
//
// Oracles: never traps; only `TLSError` escapes; a trusted verdict has a non-empty verified
// chain and a SAN the RFC 6125 matcher accepts for the host; evaluation ends within libFuzzer's
// -timeout even with 40 candidate issuers (the issuer-retry budget bounds the rebuilds).
// Evaluated against the fixed root with the default limits (6 intermediates, 32 presented) and
// with limits that let all 40 through (when there are more than 7); then with the last certificate as an extra anchor.
// Input: concatenated DER. Mutator: DERMutator (edits inside each certificate, duplicates,
// drops and reorders whole certificates, grafts certificates across inputs).
import ClientFuzzHarness
import TLS
import X509FuzzHarness

@main
enum ChainFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            ChainFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let chain = derElements(inputBytes(data, count), limit: 40).compactMap { try? Certificate(derBytes: $0) }
        guard let leaf = chain.first else { return }
        let host = leaf.subjectAlternativeNames.lazy.compactMap { name -> String? in
            if case .dnsName(let pattern) = name, !pattern.hasPrefix("*") { return pattern }
            return nil
        }.first ?? "localhost"
        evaluateBothProfiles(chain, host: host)
        // Limits that let all 40 through matter only past the default ones (6 intermediates).
        if chain.count > 7 { evaluateBothProfiles(chain, host: host, chainDepth: 40, presented: 40) }
        if chain.count >= 2, let last = chain.last {
            let store = TrustStore(anchors: [X509Fixtures.root, last])
            evaluateBothProfiles(Array(chain.dropLast()), host: host, store: store, partial: true)
        }
    }
}
