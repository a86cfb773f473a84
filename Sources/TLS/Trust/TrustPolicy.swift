/// The checks ``TrustStore/evaluate(chain:policy:)`` performs on a chain.
///
/// Always checked: a chain can be built from the leaf to an anchor of the store using the
/// certificates supplied; every signature verifies; every certificate is within its validity
/// window at ``verificationTime``; CA constraints and key usage fit a TLS server
/// (OpenSSL's `ssl_server` or `ssl_client` purpose, after ``requiredUsage``); keys and signature
/// digests meet ``securityLevel``; path-length and name constraints hold; no more than
/// ``maximumChainDepth`` intermediates. ``profile`` adds the rules of ``TrustProfile``.
public struct TrustPolicy: Sendable, Hashable {
    /// The host to verify the leaf against, or `nil` to skip identity checks (Alamofire's
    /// `validateHost: false`). A DNS name or an IP literal; see ``HostnameMatcher`` for the rules.
    public var host: String?

    /// OpenSSL security level for the chain (`X509_VERIFY_PARAM_set_auth_level`). Level 2, the
    /// default, refuses RSA/DSA/DH keys under 2048 bits, EC keys under 224 bits and SHA-1
    /// signatures (except on the trust anchor's own self-signature).
    public var securityLevel: Int

    /// Which certificates must be covered by a CRL in the store; ``CRLCheck/none`` by default.
    public var crlCheck: CRLCheck

    /// Accept a chain that ends at any anchor in the store, even one that is not self-signed
    /// (`X509_V_FLAG_PARTIAL_CHAIN`), on OpenSSL's first path. Needed when a pinned leaf is the
    /// anchor. `false` by default. When OpenSSL's first path fails, the path search of
    /// ``TrustStore/evaluate(chain:policy:)`` ends a path at any certificate of the store that
    /// issued the one below it, self-signed or not (as Go and rustls-webpki do): a trusted
    /// intermediate is an anchor either way.
    public var allowPartialChain: Bool

    /// The time to verify at, in seconds since the Unix epoch; `nil` (the default) means now.
    /// A certificate is valid from its `notBefore` through its `notAfter`, both inclusive.
    public var verificationTime: Int64?

    /// The rules the chain must follow beyond OpenSSL's; ``TrustProfile/webPKI`` by default.
    /// ``TLSConfiguration/trustProfile`` picks it per anchor origin when left `nil`.
    public var profile: TrustProfile

    /// The extended key usage the leaf must allow: ``ExtendedKeyUsage/serverAuth`` (the default)
    /// when verifying a server, ``ExtendedKeyUsage/clientAuth`` when a server verifies a client.
    public var requiredUsage: ExtendedKeyUsage

    /// The most intermediate certificates allowed between the leaf and the trust anchor (neither
    /// counted); 6 by default, as in rustls-webpki. Longer paths fail with
    /// ``TrustFailure/Reason/chainTooLong``.
    public var maximumChainDepth: Int

    /// The most certificates the peer may present, leaf included; 32 by default. A longer list
    /// fails with ``TrustFailure/Reason/chainTooLong`` before any chain building, which bounds the
    /// work a hostile peer can cause with thousands of candidate issuers.
    public var maximumPresentedCertificates: Int

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - host: host to check, `nil` for none. Defaults to `nil`.
    ///   - securityLevel: OpenSSL security level, 2 by default.
    ///   - crlCheck: CRL coverage, ``CRLCheck/none`` by default.
    ///   - allowPartialChain: accept non-self-signed anchors, `false` by default.
    ///   - verificationTime: Unix seconds, `nil` (now) by default.
    ///   - profile: the rules beyond OpenSSL's, ``TrustProfile/webPKI`` by default.
    ///   - requiredUsage: the leaf's required extended key usage, ``ExtendedKeyUsage/serverAuth`` by default.
    ///   - maximumChainDepth: most intermediates between leaf and anchor, 6 by default.
    ///   - maximumPresentedCertificates: most certificates the peer may send, 32 by default.
    public init(
        host: String? = nil,
        securityLevel: Int = 2,
        crlCheck: CRLCheck = .none,
        allowPartialChain: Bool = false,
        verificationTime: Int64? = nil,
        profile: TrustProfile = .webPKI,
        requiredUsage: ExtendedKeyUsage = .serverAuth,
        maximumChainDepth: Int = 6,
        maximumPresentedCertificates: Int = 32
    ) {
        self.profile = profile
        self.requiredUsage = requiredUsage
        self.maximumChainDepth = maximumChainDepth
        self.maximumPresentedCertificates = maximumPresentedCertificates
        self.host = host
        self.securityLevel = securityLevel
        self.crlCheck = crlCheck
        self.allowPartialChain = allowPartialChain
        self.verificationTime = verificationTime
    }
}

/// The outcome of a chain evaluation.
public struct TrustResult: Sendable, CustomStringConvertible {
    /// Why the chain is not trusted, or `nil` when it is.
    public let failure: TrustFailure?

    /// The chain OpenSSL built, leaf first, ending at the anchor when trusted; on failure the
    /// part built before the failing check. May include certificates from the store.
    public let verifiedChain: [Certificate]

    /// The `X509_V_ERR_*` code from `X509_verify_cert` (`0`, `X509_V_OK`, on success). Can be
    /// `0` while ``failure`` is set when a check outside OpenSSL (hostname cross-check, OCSP) failed.
    public let openSSLCode: Int32

    /// Whether every check passed.
    public var isTrusted: Bool { failure == nil }

    /// Creates a result (for evaluators that combine results).
    ///
    /// - Parameters:
    ///   - failure: the failure, `nil` when trusted.
    ///   - verifiedChain: the chain built, leaf first.
    ///   - openSSLCode: OpenSSL's code, `0` when none.
    public init(failure: TrustFailure?, verifiedChain: [Certificate], openSSLCode: Int32) {
        self.failure = failure
        self.verifiedChain = verifiedChain
        self.openSSLCode = openSSLCode
    }

    /// `trusted (n certificates)` or the failure.
    public var description: String {
        failure.map { "untrusted: \($0)" } ?? "trusted (\(verifiedChain.count) certificates)"
    }

    /// This result, or a failed copy when `other` failed (the first failure wins).
    func combined(with failure: TrustFailure?) -> TrustResult {
        guard self.failure == nil, let failure else { return self }
        return TrustResult(failure: failure, verifiedChain: verifiedChain, openSSLCode: openSSLCode)
    }
}
