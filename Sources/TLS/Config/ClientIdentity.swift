/// A client certificate and its key, presented when a server asks for one (mutual TLS).
public struct ClientIdentity: Sendable {
    enum Source: Sendable {
        case pemFiles(certificateChain: String, privateKey: String, password: String?)
        case pkcs12(path: String, password: String)
        case inMemory(chain: [Certificate], key: PrivateKey)
    }

    let source: Source

    /// A PEM certificate chain file (leaf first, then intermediates) and a PEM or DER key file
    /// (curl `--cert` / `--key` / `--pass`).
    ///
    /// - Parameters:
    ///   - certificateChain: the PEM chain file.
    ///   - privateKey: the key file.
    ///   - password: passphrase of an encrypted key; `nil` by default.
    public static func pemFiles(certificateChain: String, privateKey: String, password: String? = nil) -> ClientIdentity {
        ClientIdentity(source: .pemFiles(certificateChain: certificateChain, privateKey: privateKey, password: password))
    }

    /// A PKCS#12 file holding certificate, key and optionally the chain (curl `--cert file.p12:password`
    /// with `--cert-type P12`).
    ///
    /// - Parameters:
    ///   - path: the `.p12`/`.pfx` file.
    ///   - password: the import password (empty string for none).
    public static func pkcs12(file path: String, password: String) -> ClientIdentity {
        ClientIdentity(source: .pkcs12(path: path, password: password))
    }

    /// Already loaded objects.
    ///
    /// - Parameters:
    ///   - chain: the client certificate first, then intermediates; must not be empty.
    ///   - key: the private key of `chain[0]`.
    public static func certificates(_ chain: [Certificate], key: PrivateKey) -> ClientIdentity {
        ClientIdentity(source: .inMemory(chain: chain, key: key))
    }

    /// Loads the files now and checks them, so a bad identity is reported before any connection
    /// (curl exits with 58, "problem with the local client certificate", at this point).
    ///
    /// Checked: the files are readable and decode, the password opens an encrypted key or the
    /// PKCS#12 bundle, the chain is not empty, and the key is the private half of the first
    /// certificate's public key. Whether the certificate is acceptable at a security level is
    /// checked when a ``TLSClientContext`` is built.
    ///
    /// - Returns: the same identity with its objects loaded (``certificates(_:key:)``), so the
    ///   files are not read again.
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding`` when a file cannot be
    ///   read or decoded (wrong password included); ``TLSError/Kind/configuration`` for an empty
    ///   chain or a key that does not match the certificate.
    public func validated() throws(TLSError) -> ClientIdentity {
        let (chain, key) = try load()
        guard let certificateKey = chain[0].decodedPublicKey, key.publicKey == certificateKey else {
            throw TLSError(.configuration, "the private key does not match the client certificate \(chain[0].subject)")
        }
        return .certificates(chain, key: key)
    }

    /// Loads the identity: the chain (leaf first) and key.
    func load() throws(TLSError) -> (chain: [Certificate], key: PrivateKey) {
        switch source {
        case .pemFiles(let chainPath, let keyPath, let password):
            return (try Certificate.load(pemFile: chainPath), try PrivateKey.load(file: keyPath, password: password))
        case .pkcs12(let path, let password):
            let bundle = try PKCS12Bundle.load(file: path, password: password)
            return ([bundle.certificate] + bundle.caCertificates, bundle.privateKey)
        case .inMemory(let chain, let key):
            guard !chain.isEmpty else { throw TLSError(.configuration, "client identity with an empty certificate chain") }
            return (chain, key)
        }
    }
}
