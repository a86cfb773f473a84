// libFuzzer target: a stapled OCSP response (DER OCSPResponse) checked for the fixed leaf and
// intermediate against the store anchored at the fixed root, as `TrustStore.checkOCSPResponse`
// does after a handshake that stapled one.
//
// Oracles: never traps; only `TLSError` escapes; a result has a status or a problem, never
// both; `revoked` fails under every policy but `.ignore`, and only a verified `good` passes
// `.require`. Input: the response's DER. Mutator: DERMutator.
import ClientFuzzHarness
import TLS
import X509FuzzHarness

@main
enum OCSPFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            OCSPFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = inputBytes(data, count)
        let result = X509Fixtures.store.checkOCSPResponse(bytes, chain: [X509Fixtures.leaf, X509Fixtures.intermediate])
        _ = result.description
        require((result.status == nil) != (result.problem == nil), "status and problem: \(result)")
        require(result.failure(under: .ignore) == nil, "ignore policy failed: \(result)")
        let required = result.failure(under: .require)
        require((required == nil) == (result.status == .good), "require policy and status disagree: \(result)")
        if result.status == .revoked { require(result.failure(under: .ifPresent) != nil, "revoked passes ifPresent") }
        // The leaf alone (no issuer to check against) is always unusable.
        require(X509Fixtures.store.checkOCSPResponse(bytes, chain: [X509Fixtures.leaf]).status == nil, "status without an issuer")
    }
}
