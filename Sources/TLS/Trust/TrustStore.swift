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

    /// Verifies `chain` under `policy`.
    ///
    /// Runs OpenSSL's `X509_verify_cert` (chain building with the supplied intermediates,
    /// signatures, validity, purpose `ssl_server`, security level, CRLs as asked, and the host
    /// through `X509_VERIFY_PARAM_set1_host`/`set1_ip` with
    /// `NO_PARTIAL_WILDCARDS | NEVER_CHECK_SUBJECT`), then independently checks the host with
    /// ``HostnameMatcher`` and compares it with OpenSSL's `X509_check_host`/`X509_check_ip`:
    /// a disagreement is a ``TrustFailure/Reason/hostnameMismatch``.
    ///
    /// - Parameters:
    ///   - chain: the leaf first, then any intermediates in any order (as a server sends them).
    ///   - policy: the checks to run.
    /// - Returns: the result; OpenSSL stops at the first failing check.
    public func evaluate(chain: [Certificate], policy: TrustPolicy) -> TrustResult {
        guard let leaf = chain.first else {
            return TrustResult(failure: TrustFailure(reason: .other, message: "empty certificate chain"), verifiedChain: [], openSSLCode: 0)
        }
        guard let untrusted = lariat_sk_X509_new_null(), let context = X509_STORE_CTX_new() else {
            preconditionFailure("allocation failed in chain evaluation")
        }
        defer {
            X509_STORE_CTX_free(context)
            lariat_sk_X509_pop_free(untrusted)
        }
        for certificate in chain.dropFirst() { _ = lariat_sk_X509_push_up_ref(untrusted, certificate.x509) }
        guard X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1,
            X509_STORE_CTX_set_default(context, "ssl_server") == 1,
            let parameters = X509_STORE_CTX_get0_param(context)
        else { preconditionFailure("X509_STORE_CTX setup failed: \(OpenSSLError.drain())") }

        X509_VERIFY_PARAM_set_auth_level(parameters, Int32(policy.securityLevel))
        var flags = UInt(0)
        if policy.crlCheck == .leaf { flags |= UInt(X509_V_FLAG_CRL_CHECK) }
        if policy.crlCheck == .fullChain { flags |= UInt(X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL) }
        if policy.allowPartialChain { flags |= UInt(X509_V_FLAG_PARTIAL_CHAIN) }
        X509_VERIFY_PARAM_set_flags(parameters, flags)
        if let time = policy.verificationTime { X509_VERIFY_PARAM_set_time(parameters, time_t(time)) }

        let identity = policy.host.map(HostIdentity.init)
        identity?.configure(parameters)

        let verified = X509_verify_cert(context) == 1
        let code = X509_STORE_CTX_get_error(context)
        let depth = Int(X509_STORE_CTX_get_error_depth(context))
        let builtChain = TrustStore.certificates(owning: X509_STORE_CTX_get1_chain(context))
        _ = OpenSSLError.drain()

        var failure: TrustFailure? = nil
        if !verified {
            failure = code == X509_V_OK
                ? TrustFailure(reason: .other, message: "X509_verify_cert failed without a code")
                : TrustFailure.fromVerifyCode(code, depth: depth)
        }
        if let identity, failure == nil || failure?.reason == .hostnameMismatch {
            failure = identity.crossCheck(leaf: leaf) ?? failure
        }
        return TrustResult(failure: failure, verifiedChain: builtChain, openSSLCode: verified ? 0 : code)
    }

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

extension HostnameMatcher {
    /// OpenSSL's answer to the same question (`X509_check_host` with
    /// `NO_PARTIAL_WILDCARDS | NEVER_CHECK_SUBJECT`, or `X509_check_ip`), on the host as
    /// normalized by ``normalizedHostname(_:)``. For the tests that require agreement.
    package static func openSSLMatches(host: String, certificate: Certificate) -> Bool {
        defer { _ = OpenSSLError.drain() }
        return HostIdentity(host).openSSLMatches(certificate)
    }
}

/// The host half of a policy, in the two forms the independent checks need.
private struct HostIdentity {
    let host: String
    let address: IPAddress?
    let normalized: String?

    init(_ host: String) {
        self.host = host
        self.address = IPAddress(host)
        self.normalized = address == nil ? HostnameMatcher.normalizedHostname(host) : nil
    }

    static let hostFlags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)

    /// Makes `X509_verify_cert` check the identity too.
    func configure(_ parameters: OpaquePointer) {
        if let address {
            _ = address.bytes.withUnsafeBufferPointer { X509_VERIFY_PARAM_set1_ip(parameters, $0.baseAddress, $0.count) }
        } else if let normalized {
            X509_VERIFY_PARAM_set_hostflags(parameters, HostIdentity.hostFlags)
            _ = X509_VERIFY_PARAM_set1_host(parameters, normalized, normalized.utf8.count)
        }
    }

    /// OpenSSL's verdict, asked directly so it is known even when chain checks failed first.
    func openSSLMatches(_ leaf: Certificate) -> Bool {
        if let address {
            return address.bytes.withUnsafeBufferPointer { X509_check_ip(leaf.x509, $0.baseAddress, $0.count, 0) } == 1
        }
        guard let normalized else { return false }
        return X509_check_host(leaf.x509, normalized, normalized.utf8.count, HostIdentity.hostFlags, nil) == 1
    }

    /// The identity failure, if any: a mismatch both checks agree on, or any disagreement.
    func crossCheck(leaf: Certificate) -> TrustFailure? {
        let names = leaf.subjectAlternativeNames
        let swift = HostnameMatcher.matches(host: host, subjectAlternativeNames: names)
        let openSSL = openSSLMatches(leaf)
        _ = OpenSSLError.drain()
        if swift && openSSL { return nil }
        if swift != openSSL {
            return TrustFailure(
                reason: .hostnameMismatch,
                message: "identity checks disagree for \(host): RFC 6125 matcher \(swift), OpenSSL \(openSSL); refusing")
        }
        let code = address == nil ? X509_V_ERR_HOSTNAME_MISMATCH : X509_V_ERR_IP_ADDRESS_MISMATCH
        let why = names.isEmpty ? "certificate has no subjectAltName (the CN is never used)" : "no subjectAltName matches \(host)"
        return TrustFailure(reason: .hostnameMismatch, code: code, message: why, depth: 0)
    }
}
