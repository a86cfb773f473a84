internal import COpenSSL
internal import Glibc

/// Trust anchors and CRLs (an owned `X509_STORE`), and chain evaluation against them.
///
/// Immutable after creation and safe to share: OpenSSL locks the store internally when a
/// hashed directory lookup caches a certificate. Evaluation is a pure function of the chain,
/// the policy and the clock; it never touches the network.
public final class TrustStore: @unchecked Sendable {
    /// The owned `X509_STORE*`.
    let store: OpaquePointer

    /// The sources the anchors came from.
    public let roots: TrustRoots

    /// The CRLs loaded into the store, consulted according to ``TrustPolicy/crlCheck``.
    public let crls: [CertificateRevocationList]

    /// Debian's CA bundle, used by ``TrustRoots/system`` when `SSL_CERT_FILE`/`SSL_CERT_DIR` are unset.
    public static let debianBundlePath = "/etc/ssl/certs/ca-certificates.crt"
    /// Debian's hashed CA directory, used like ``debianBundlePath``.
    public static let debianDirectoryPath = "/etc/ssl/certs"

    /// Builds a store from trust roots and CRLs.
    ///
    /// - Parameters:
    ///   - roots: where anchors come from; ``TrustRoots/system`` by default.
    ///   - crls: revocation lists to add; empty by default.
    /// - Throws: ``TLSError/Kind/fileAccess`` when an explicitly named file or directory (including
    ///   `SSL_CERT_FILE`/`SSL_CERT_DIR`) cannot be read; ``TLSError/Kind/decoding`` when a named
    ///   bundle holds no certificate. A missing Debian default bundle is not an error: the store
    ///   is then simply empty of system anchors.
    public init(roots: TrustRoots = .system, crls: [CertificateRevocationList] = []) throws(TLSError) {
        guard let store = X509_STORE_new() else { throw TLSError.drainingQueue(.configuration, "X509_STORE_new failed") }
        self.store = store
        self.roots = roots
        self.crls = crls
        for source in roots.sources { try TrustStore.add(source, to: store) }
        for crl in crls where X509_STORE_add_crl(store, crl.crl) != 1 {
            throw TLSError.drainingQueue(.configuration, "cannot add CRL issued by \(crl.issuer)")
        }
        _ = OpenSSLError.drain()
    }

    /// A store whose only anchors are `anchors` (for pinning with self-signed certificates).
    ///
    /// - Parameter anchors: the trusted certificates.
    public convenience init(anchors: [Certificate]) {
        // Adding in-memory certificates cannot fail except on allocation failure.
        guard let store = try? TrustStore(roots: .certificates(anchors)) else { preconditionFailure("X509_STORE allocation failed") }
        self.init(copying: store)
    }

    private init(copying other: TrustStore) {
        X509_STORE_up_ref(other.store)
        self.store = other.store
        self.roots = other.roots
        self.crls = other.crls
    }

    deinit { X509_STORE_free(store) }

    // MARK: Loading

    private static func add(_ source: TrustRoots.Source, to store: OpaquePointer) throws(TLSError) {
        switch source {
        case .system:
            let file = environment("SSL_CERT_FILE")
            let directory = environment("SSL_CERT_DIR")
            if file != nil || directory != nil {
                // Explicit environment wins and must be readable, as with curl and OpenSSL.
                if let file { try add(.file(file), to: store) }
                if let directory { try add(.directory(directory), to: store) }
                return
            }
            if FileBytes.isReadable(debianBundlePath) { try add(.file(debianBundlePath), to: store) }
            if FileBytes.isReadable(debianDirectoryPath) { try add(.directory(debianDirectoryPath), to: store) }
            // OpenSSL's compiled-in defaults (/usr/lib/ssl/cert.pem, /usr/lib/ssl/certs); absent paths are fine.
            _ = X509_STORE_set_default_paths(store)
            _ = OpenSSLError.drain()
        case .file(let path):
            guard FileBytes.isReadable(path) else { throw TLSError(.fileAccess, "cannot read CA file \(path)") }
            guard X509_STORE_load_file(store, path) == 1 else {
                throw TLSError.drainingQueue(.decoding, "no usable certificate in CA file \(path)")
            }
        case .directory(let path):
            guard FileBytes.isReadable(path) else { throw TLSError(.fileAccess, "cannot read CA directory \(path)") }
            guard X509_STORE_load_path(store, path) == 1 else {
                throw TLSError.drainingQueue(.fileAccess, "cannot use CA directory \(path)")
            }
        case .certificates(let certificates):
            for certificate in certificates where X509_STORE_add_cert(store, certificate.x509) != 1 {
                // Adding the same certificate twice is harmless; OpenSSL 3 reports it as success.
                throw TLSError.drainingQueue(.configuration, "cannot add anchor \(certificate.subject)")
            }
        }
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Wraps every certificate of an owned `STACK_OF(X509)` and frees the stack.
    static func certificates(owning stack: OpaquePointer?) -> [Certificate] {
        guard let stack else { return [] }
        defer { lariat_sk_X509_pop_free(stack) }
        return (0..<lariat_sk_X509_num(stack)).compactMap { index in
            lariat_sk_X509_value(stack, index).map { Certificate(retaining: $0) }
        }
    }
}
