// libFuzzer target: a PKCS#12 file as `ClientIdentity.pkcs12(file:password:)` loads it, with
// the empty password and with "fuzz", then validated as a client identity (key matches the
// certificate) and its certificates read like any other.
//
// Oracles: never traps; leaks nothing (LeakSanitizer sees OpenSSL objects we fail to free);
// only `TLSError` escapes; a loaded certificate re-encodes to DER that loads to the same bytes.
// Input: the PFX's DER. Mutator: DERMutator.
import ClientFuzzHarness
import TLS
import X509FuzzHarness

@main
enum PKCS12Fuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            PKCS12Fuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = inputBytes(data, count)
        for password in ["", "fuzz"] {
            guard let bundle = try? PKCS12Bundle(derBytes: bytes, password: password) else { continue }
            let chain = [bundle.certificate] + bundle.caCertificates
            for certificate in chain {
                let der = certificate.derBytes
                require((try? Certificate(derBytes: der))?.derBytes == der, "certificate DER does not round-trip")
                _ = exerciseCertificate(certificate)
            }
            _ = bundle.privateKey.publicKey.subjectPublicKeyInfoDER
            if let identity = try? ClientIdentity.certificates(chain, key: bundle.privateKey).validated() {
                _ = identity
                require(bundle.certificate.decodedPublicKey == bundle.privateKey.publicKey, "validated a key that does not match")
            }
        }
    }
}
