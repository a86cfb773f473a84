// libFuzzer target: PEM and DER loading (certificates, CRLs, private and public keys), the files
// a user points the client at, and a certificate chain with its key as a client identity
// (`ClientIdentity`, Sources/TLS/Config/ClientIdentity.swift).
//
// Oracles: never traps and leaks nothing (AddressSanitizer's leak check covers OpenSSL objects
// we fail to free); only `TLSError` escapes (typed throws); a certificate that loads re-encodes
// to DER that loads to the same bytes; an identity validates only when its key is the first
// certificate's.
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
        let keys = [try? PrivateKey(pemBytes: bytes), try? PrivateKey(pemBytes: bytes, password: "fuzz"), try? PrivateKey(derBytes: bytes)]
        // A client identity file (certificate chain and key in one PEM, as curl's --cert takes):
        // validation compares the key with the first certificate's, which may not decode.
        for case let key? in keys where !certificates.isEmpty {
            _ = certificates[0].decodedPublicKey?.pinnedPublicKeyHash
            if (try? ClientIdentity.certificates(certificates, key: key).validated()) != nil {
                require(certificates[0].decodedPublicKey == key.publicKey, "an identity validated with a key that does not match")
            }
        }
        _ = try? PublicKey(pemBytes: bytes)
        _ = try? PublicKey(subjectPublicKeyInfoDER: bytes)
    }
}
