internal import COpenSSL
import Synchronization

/// Source of ``TLSClientContext`` identities (keys sessions to the context that verified them).
private let contextCounter = Atomic<UInt64>(0)

/// Shared, immutable client settings: an owned `SSL_CTX` built from a ``TLSConfiguration``,
/// its ``TrustStore`` and an optional ``TLSSessionCache``.
///
/// Build one per configuration and share it across connections and threads; creating it
/// loads the trust store and client identity once. Sendable: the `SSL_CTX` is never changed
/// after `init`, and OpenSSL allows `SSL_new` from several threads on one context.
public final class TLSClientContext: @unchecked Sendable {
    /// The configuration this context was built from.
    public let configuration: TLSConfiguration
    /// Anchors and CRLs used by the default evaluation.
    public let trustStore: TrustStore
    /// Where sessions are stored and looked up, or `nil` for no resumption.
    public let sessionCache: TLSSessionCache?

    /// The owned `SSL_CTX*`.
    let context: OpaquePointer
    /// Distinguishes this context's entries in a shared session cache.
    let identity: UInt64

    /// Builds a context.
    ///
    /// - Parameters:
    ///   - configuration: the settings; the strict defaults of ``TLSConfiguration/init()`` by default.
    ///   - sessionCache: cache for session resumption; `nil` (no resumption) by default.
    /// - Throws: ``TLSError/Kind/configuration`` for versions below 1.2, a security level below 2,
    ///   cipher strings that select nothing, bad ALPN names, or a client key that does not match
    ///   its certificate; ``TLSError/Kind/fileAccess`` / ``TLSError/Kind/decoding`` when trust
    ///   roots, CRLs or the client identity cannot be loaded.
    public init(configuration: TLSConfiguration = TLSConfiguration(), sessionCache: TLSSessionCache? = nil) throws(TLSError) {
        guard configuration.minimumVersion >= .v1_2 else {
            throw TLSError(.configuration, "minimum version \(configuration.minimumVersion) is below TLS 1.2")
        }
        if let maximum = configuration.maximumVersion, maximum < configuration.minimumVersion {
            throw TLSError(.configuration, "maximum version \(maximum) is below minimum \(configuration.minimumVersion)")
        }
        guard (2...5).contains(configuration.securityLevel) else {
            throw TLSError(.configuration, "security level \(configuration.securityLevel) is outside 2...5")
        }
        var crls: [CertificateRevocationList] = []
        for path in configuration.crlFiles { crls += try CertificateRevocationList.load(file: path) }
        let trustStore = try TrustStore(roots: configuration.trustRoots, crls: crls)
        let alpn = try TLSEngine.alpnWireFormat(configuration.applicationProtocols)
        let identity = try configuration.clientIdentity?.load()

        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.drainingQueue(.configuration, "SSL_CTX_new failed")
        }
        self.context = context
        self.configuration = configuration
        self.trustStore = trustStore
        self.sessionCache = sessionCache
        self.identity = contextCounter.wrappingAdd(1, ordering: .relaxed).newValue
        try configure(alpn: alpn, identity: identity)
    }

    deinit { SSL_CTX_free(context) }

    private func configure(alpn: [UInt8], identity: (chain: [Certificate], key: PrivateKey)?) throws(TLSError) {
        ERR_clear_error()
        let configuration = self.configuration
        guard lariat_SSL_CTX_set_min_proto_version(context, configuration.minimumVersion.wireValue) == 1,
            lariat_SSL_CTX_set_max_proto_version(context, configuration.maximumVersion?.wireValue ?? 0) == 1
        else { throw TLSError.drainingQueue(.configuration, "cannot set the protocol version range") }
        SSL_CTX_set_security_level(context, Int32(configuration.securityLevel))
        guard SSL_CTX_set_cipher_list(context, configuration.cipherList) == 1 else {
            throw TLSError.drainingQueue(.configuration, "cipher list '\(configuration.cipherList)' selects no cipher")
        }
        guard SSL_CTX_set_ciphersuites(context, configuration.cipherSuites) == 1 else {
            throw TLSError.drainingQueue(.configuration, "TLS 1.3 suites '\(configuration.cipherSuites)' are invalid")
        }
        if let groups = configuration.groups, lariat_SSL_CTX_set1_groups_list(context, groups) != 1 {
            throw TLSError.drainingQueue(.configuration, "failed setting curves list: '\(groups)'")
        }
        // No compression (CRIME), and no renegotiation: a server-initiated renegotiation
        // mid-response is refused rather than silently re-verified.
        SSL_CTX_set_options(context, lariat_SSL_OP_NO_COMPRESSION() | lariat_SSL_OP_NO_RENEGOTIATION())
        // Partial writes let a full BIO pair return `.written(n)` instead of failing.
        _ = lariat_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        if !alpn.isEmpty {
            // SSL_CTX_set_alpn_protos returns 0 on success.
            guard alpn.withUnsafeBufferPointer({ SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count)) }) == 0 else {
                throw TLSError.drainingQueue(.configuration, "cannot set ALPN protocols")
            }
        }
        // Verification always runs through our callback (see TLSClientConnection+Trust.swift);
        // SSL_VERIFY_PEER makes OpenSSL abort the handshake when the callback says no.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        SSL_CTX_set_cert_verify_callback(context, clientCertificateVerifyCallback, nil)
        _ = lariat_SSL_CTX_set_tlsext_status_cb(context, clientStatusCallback)
        if sessionCache != nil {
            _ = lariat_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE))
            SSL_CTX_sess_set_new_cb(context, clientNewSessionCallback)
        } else {
            _ = lariat_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        }
        if let identity { try use(identity) }
    }

    private func use(_ identity: (chain: [Certificate], key: PrivateKey)) throws(TLSError) {
        guard let leaf = identity.chain.first, SSL_CTX_use_certificate(context, leaf.x509) == 1 else {
            throw TLSError.drainingQueue(.configuration, "client certificate refused (too weak for the security level?)")
        }
        for certificate in identity.chain.dropFirst() where lariat_SSL_CTX_add1_chain_cert(context, certificate.x509) != 1 {
            throw TLSError.drainingQueue(.configuration, "cannot add client chain certificate \(certificate.subject)")
        }
        guard SSL_CTX_use_PrivateKey(context, identity.key.pkey) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.drainingQueue(.configuration, "client private key does not match its certificate")
        }
    }

    /// The session cache key for a server under this context.
    func sessionKey(host: String, port: Int) -> TLSSessionCache.Key {
        TLSSessionCache.Key(host: host, port: port, contextID: identity)
    }
}
