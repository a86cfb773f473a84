internal import COpenSSL

/// A private key: an owned reference to OpenSSL's `EVP_PKEY`, used for client certificates.
///
/// Never serialized back out by this module. Sendable because the key is never mutated
/// after loading and OpenSSL 3 keys are safe to use from several threads for signing.
public final class PrivateKey: @unchecked Sendable {
    /// The owned `EVP_PKEY*`.
    let pkey: OpaquePointer
    /// The matching public key, derived once when the key is loaded.
    public let publicKey: PublicKey

    /// Takes ownership of `pkey`, deriving its public key. Fails, freeing `pkey`, when the public
    /// half cannot be encoded and read back: OpenSSL loads an EC private key whose public point it
    /// cannot encode (a hostile PKCS#12 or key file can carry one), and such a key must be refused
    /// when loaded, not trap when it is used.
    init(takingOwnershipOf pkey: OpaquePointer) throws(TLSError) {
        let der = OpenSSLBytes.der { i2d_PUBKEY(pkey, $0) }
        guard let publicKey = try? PublicKey(subjectPublicKeyInfoDER: der) else {
            EVP_PKEY_free(pkey)
            throw TLSError.drainingQueue(.decoding, "the private key's public half cannot be encoded")
        }
        self.pkey = pkey
        self.publicKey = publicKey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Parses the first private key of PEM text (PKCS#8, encrypted PKCS#8, or a traditional
    /// `RSA PRIVATE KEY` / `EC PRIVATE KEY` block).
    ///
    /// - Parameters:
    ///   - pemBytes: the PEM text.
    ///   - password: the passphrase of an encrypted key; `nil` (the default) means the key must
    ///     not be encrypted. OpenSSL's terminal prompt is never used.
    /// - Throws: ``TLSError/Kind/decoding`` for a missing or malformed key or a wrong password.
    public convenience init(pemBytes: [UInt8], password: String? = nil) throws(TLSError) {
        guard KeyInputPrefilter.mayHoldPEMBlock(pemBytes, labelSuffix: "PRIVATE KEY") else {
            throw TLSError(.decoding, "no PEM block labelled ...PRIVATE KEY in the input")
        }
        try self.init(takingOwnershipOf: try Self.decodePEM(pemBytes, password: password))
    }

    /// OpenSSL's reading of the first private key in `pemBytes`, without the prefilter.
    static func decodePEM(_ pemBytes: [UInt8], password: String?) throws(TLSError) -> OpaquePointer {
        try OpenSSLBytes.withReadBIO(pemBytes) { bio throws(TLSError) in
            let parsed: OpaquePointer? = PrivateKey.withPasswordCallback(password) { argument in
                PEM_read_bio_PrivateKey(bio, nil, passwordCallback, argument)
            }
            guard let parsed else { throw TLSError.drainingQueue(.decoding, "no readable private key in PEM input (wrong password?)") }
            return parsed
        }
    }

    /// Parses a DER private key (PKCS#8 or a traditional RSA/EC structure, detected automatically).
    ///
    /// - Parameter derBytes: the unencrypted DER bytes.
    /// - Throws: ``TLSError/Kind/decoding`` when the bytes are not a private key.
    public convenience init(derBytes: [UInt8]) throws(TLSError) {
        guard KeyInputPrefilter.mayBeDERSequence(derBytes) else { throw TLSError(.decoding, "not a DER private key (no SEQUENCE)") }
        try self.init(takingOwnershipOf: try Self.decodeDER(derBytes))
    }

    /// OpenSSL's reading of `derBytes` as one private key, without the prefilter.
    static func decodeDER(_ derBytes: [UInt8]) throws(TLSError) -> OpaquePointer {
        guard let key = OpenSSLBytes.parseDER(derBytes, { cursor, length in d2i_AutoPrivateKey(nil, cursor, length) }, free: { EVP_PKEY_free($0) }) else {
            throw TLSError.drainingQueue(.decoding, "not a DER private key")
        }
        return key
    }

    /// Loads a private key from a PEM or DER file, detecting the format from the content.
    ///
    /// - Parameters:
    ///   - path: the file path.
    ///   - password: passphrase for an encrypted PEM key; `nil` by default.
    /// - Returns: the key.
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding``.
    public static func load(file path: String, password: String? = nil) throws(TLSError) -> PrivateKey {
        let bytes = try FileBytes.read(path)
        return FileBytes.looksLikePEM(bytes) ? try PrivateKey(pemBytes: bytes, password: password) : try PrivateKey(derBytes: bytes)
    }

    /// Runs `body` with the argument for ``passwordCallback``: a C copy of `password`, or nil.
    /// Always passing our callback keeps OpenSSL from prompting on the terminal.
    static func withPasswordCallback<R>(_ password: String?, _ body: (UnsafeMutableRawPointer?) -> R) -> R {
        guard let password else { return body(nil) }
        var cString = Array(password.utf8CString)
        return cString.withUnsafeMutableBufferPointer { body(UnsafeMutableRawPointer($0.baseAddress)) }
    }
}

/// A `pem_password_cb` that copies the NUL-terminated password passed as its argument,
/// or refuses (returns 0) when there is none or it does not fit.
func passwordCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let buffer, let argument else { return 0 }
    let password = OpenSSLAccessors.passwordArgument(argument)
    let length = strlenBounded(password, Int(size))
    guard length <= Int(size) else { return 0 }
    buffer.update(from: password, count: length)
    return Int32(length)
}

/// Length of a NUL-terminated string, scanning at most `limit + 1` bytes.
private func strlenBounded(_ string: UnsafePointer<CChar>, _ limit: Int) -> Int {
    var length = 0
    while length <= limit, string[length] != 0 { length += 1 }
    return length
}

/// The content of a PKCS#12 (`.p12` / `.pfx`) file: a certificate, its private key and
/// optional CA certificates, as used for client certificates (curl `--cert file.p12:password`).
public struct PKCS12Bundle: Sendable {
    /// The end-entity certificate.
    public let certificate: Certificate
    /// The private key for ``certificate``.
    public let privateKey: PrivateKey
    /// Further certificates in the bundle (usually the issuing chain), in file order.
    public let caCertificates: [Certificate]

    /// Decodes and decrypts a DER PKCS#12 structure.
    ///
    /// - Parameters:
    ///   - derBytes: the file content.
    ///   - password: the import password; an empty string for an unprotected bundle.
    /// - Throws: ``TLSError/Kind/decoding`` when the bytes are not PKCS#12, a key derivation asks
    ///   for more than 600,000 iterations (2,400,000 in all), the MAC or password is wrong, or the
    ///   bundle lacks a certificate or key.
    public init(derBytes: [UInt8], password: String) throws(TLSError) {
        guard let p12 = OpenSSLBytes.parseDER(derBytes, { cursor, length in d2i_PKCS12(nil, cursor, length) }, free: { PKCS12_free($0) }) else {
            throw TLSError.drainingQueue(.decoding, "not a DER PKCS#12 structure")
        }
        defer { PKCS12_free(p12) }
        try Self.checkIterations(p12, password: password)  // before PKCS12_parse runs any of them
        var key: OpaquePointer? = nil
        var certificate: OpaquePointer? = nil
        var extra: OpaquePointer? = nil
        guard PKCS12_parse(p12, password, &key, &certificate, &extra) == 1 else {
            throw TLSError.drainingQueue(.decoding, "cannot decrypt PKCS#12 (wrong password or unsupported algorithm)")
        }
        var others: [Certificate] = []
        if let extra {
            for index in 0..<lariat_sk_X509_num(extra) {
                if let x509 = lariat_sk_X509_value(extra, index) { others.append(Certificate(retaining: x509)) }
            }
            lariat_sk_X509_pop_free(extra)
        }
        guard let key, let certificate else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            throw TLSError(.decoding, "PKCS#12 bundle lacks a certificate or a private key")
        }
        self.certificate = Certificate(takingOwnershipOf: certificate)
        self.privateKey = try PrivateKey(takingOwnershipOf: key)
        self.caCertificates = others
    }

    /// Loads a PKCS#12 file.
    ///
    /// - Parameters:
    ///   - path: the file path.
    ///   - password: the import password.
    /// - Returns: the decoded bundle.
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding``.
    public static func load(file path: String, password: String) throws(TLSError) -> PKCS12Bundle {
        try PKCS12Bundle(derBytes: try FileBytes.read(path), password: password)
    }
}
