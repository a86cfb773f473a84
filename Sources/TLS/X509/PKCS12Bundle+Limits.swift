// How much key derivation a PKCS#12 file may ask for before Lariat runs it. The file names its
// own PBKDF iteration counts (the MAC, each encryptedData authsafe, each shrouded key bag) and
// PKCS12_parse runs them all, so a hostile or broken .p12 (a client identity from a config you
// did not write) can stall a load for hours: 1,000,000 iterations cost about 0.9 s here, and the
// field can say 2^31. Neither OpenSSL nor the PKCS#12 format caps them. Like .NET's
// `Pkcs12LoaderLimits`, each derivation and their sum have a limit, read before any derivation
// runs (the shrouded keys inside an encrypted authsafe only after its own count passed, because
// reading them means decrypting it). Found by the `pkcs12` fuzz target's review (issue 18).
//
// Real files stay far below: OpenSSL and macOS write 2,048, Windows 2,000, Java's keytool 10,000;
// 600,000 is OWASP's figure for PBKDF2-HMAC-SHA256 password storage.

internal import COpenSSL

extension PKCS12Bundle {
    /// The most iterations one key derivation of a bundle may ask for.
    static let maximumIterations = 600_000
    /// The most iterations all of a bundle's key derivations may ask for together.
    static let maximumTotalIterations = 2_400_000

    /// Refuses `p12` when a derivation it asks for, or their sum, is over the limits.
    ///
    /// - Parameters:
    ///   - p12: The decoded structure (`PKCS12 *`), not yet parsed.
    ///   - password: The import password, to read the shrouded keys of encrypted authsafes.
    /// - Throws: ``TLSError/Kind/decoding`` naming the count and the limit.
    static func checkIterations(_ p12: OpaquePointer, password: String) throws(TLSError) {
        var total = 0
        func admit(_ count: Int, _ what: String) throws(TLSError) {
            guard count <= maximumIterations else {
                throw TLSError(.decoding, "PKCS#12 \(what) asks for \(count) key-derivation iterations (the limit is \(maximumIterations))")
            }
            total += count
            guard total <= maximumTotalIterations else {
                throw TLSError(.decoding, "PKCS#12 key derivations ask for more than \(maximumTotalIterations) iterations in all")
            }
        }
        try admit(lariat_PKCS12_mac_iterations(p12), "MAC")
        guard let authsafes = PKCS12_unpack_authsafes(p12) else { return }  // PKCS12_parse reports it
        defer { lariat_sk_PKCS7_pop_free(authsafes) }
        for index in 0..<lariat_sk_PKCS7_num(authsafes) {
            guard let authsafe = lariat_sk_PKCS7_value(authsafes, index) else { continue }
            let bags: OpaquePointer?
            if let algorithm = lariat_PKCS7_encrypted_algorithm(authsafe) {
                try admit(lariat_pbe_iterations(algorithm), "encrypted content")
                bags = PKCS12_unpack_p7encdata(authsafe, password, Int32(password.utf8.count))
            } else if lariat_PKCS7_type_nid(authsafe) == NID_pkcs7_data {
                bags = PKCS12_unpack_p7data(authsafe)
            } else {
                bags = nil
            }
            guard let bags else { continue }
            defer { lariat_sk_PKCS12_SAFEBAG_pop_free(bags) }
            for bagIndex in 0..<lariat_sk_PKCS12_SAFEBAG_num(bags) {
                guard let bag = lariat_sk_PKCS12_SAFEBAG_value(bags, bagIndex),
                      let algorithm = lariat_PKCS12_SAFEBAG_shrouded_algorithm(bag) else { continue }
                try admit(lariat_pbe_iterations(algorithm), "shrouded key")
            }
        }
    }
}
