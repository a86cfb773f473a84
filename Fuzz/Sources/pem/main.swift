// libFuzzer target: PEM and DER loading (certificates, CRLs, private and public keys), the files
// a user points the client at.
//
// Oracles: never traps and leaks nothing (AddressSanitizer's leak check covers OpenSSL objects
// we fail to free); only `TLSError` escapes (typed throws); a certificate that loads re-encodes
// to DER that loads to the same bytes.
import ClientFuzzHarness
import TLS

@main
enum PEMFuzzer {
    static func main() {
        ClientFuzzEntry.run { data, count in
            PEMFuzzer.one(data, count)
            return 0
        }
    }

    /// Checks one input.
    static func one(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = inputBytes(data, count)
        var certificates: [Certificate] = []
        if let list = try? Certificate.certificates(fromPEM: bytes) { certificates += list }
        if let one = try? Certificate(derBytes: bytes) { certificates.append(one) }
        for certificate in certificates {
            let der = certificate.derBytes
            let again = Result { () throws(TLSError) in try Certificate(derBytes: der) }
            require((try? again.get())?.derBytes == der, "certificate DER does not round-trip")
        }
        _ = try? CertificateRevocationList.crls(fromPEM: bytes)
        _ = try? CertificateRevocationList(derBytes: bytes)
        _ = try? PrivateKey(pemBytes: bytes)
        _ = try? PrivateKey(pemBytes: bytes, password: "fuzz")
        _ = try? PrivateKey(derBytes: bytes)
        _ = try? PublicKey(pemBytes: bytes)
        _ = try? PublicKey(subjectPublicKeyInfoDER: bytes)
    }
}
