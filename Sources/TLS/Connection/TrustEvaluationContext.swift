internal import COpenSSL

/// What a ``TrustEvaluator`` sees, with the primitives to evaluate the server its own way.
///
/// Maps onto Alamofire's evaluators: `DefaultTrustEvaluator(validateHost:)` is
/// ``evaluateDefault(validateHost:)``; `RevocationTrustEvaluator` is
/// ``evaluateRevocation(crlCheck:ocsp:validateHost:)``; `PinnedCertificatesTrustEvaluator`
/// compares ``peerCertificates`` (whole DER) and, with `acceptSelfSignedCertificates`, uses
/// ``evaluate(anchors:includeDefaultAnchors:validateHost:)``; `PublicKeysTrustEvaluator` compares
/// `peerCertificates.compactMap(\.decodedPublicKey)` (SubjectPublicKeyInfo); `DisabledTrustEvaluator` returns.
public struct TrustEvaluationContext: Sendable {
    /// The host name or IP literal the client connected to.
    public let host: String
    /// The server port.
    public let port: Int
    /// The chain as the server presented it, leaf first (for a resumed session: as stored).
    public let peerCertificates: [Certificate]
    /// The server's stapled OCSP response (DER), or `nil` when none was stapled.
    public let stapledOCSPResponse: [UInt8]?
    /// Whether the handshake resumed a session: the chain and OCSP response are the ones
    /// verified when the session was established, re-evaluated now.
    public let isResumedSession: Bool
    /// The anchors and CRLs of the connection's context.
    public let trustStore: TrustStore
    /// The connection's configuration (security level, CRL and OCSP policies).
    public let configuration: TLSConfiguration

    private let chainResult: TrustResult?

    init(
        host: String, port: Int, peerCertificates: [Certificate], chainResult: TrustResult?,
        stapledOCSPResponse: [UInt8]?, isResumedSession: Bool, trustStore: TrustStore, configuration: TLSConfiguration
    ) {
        self.host = host
        self.port = port
        self.peerCertificates = peerCertificates
        self.chainResult = chainResult
        self.stapledOCSPResponse = stapledOCSPResponse
        self.isResumedSession = isResumedSession
        self.trustStore = trustStore
        self.configuration = configuration
    }

    /// OpenSSL's default verification of the chain with host checking, plus the configured CRL
    /// and stapled-OCSP policies: exactly what decides when there is no evaluator.
    /// ``TrustResult/openSSLCode`` is the `X509_V_ERR_*` value.
    public var defaultResult: TrustResult { evaluateDefault(validateHost: true) }

    /// The default evaluation, with or without the host check (Alamofire's `validateHost:`).
    ///
    /// - Parameter validateHost: check the leaf against ``host``; `true` by default.
    /// - Returns: the chain result combined with the configured stapled-OCSP policy.
    public func evaluateDefault(validateHost: Bool = true) -> TrustResult {
        let chain: TrustResult
        if validateHost, let chainResult {
            chain = chainResult
        } else {
            chain = trustStore.evaluate(chain: peerCertificates, policy: configuration.trustPolicy(host: validateHost ? host : nil))
        }
        return TrustEvaluationContext.withStapledOCSP(
            chain, response: stapledOCSPResponse, policy: configuration.ocspStapling, store: trustStore, presented: peerCertificates)
    }

    /// Evaluates against custom anchors, such as pinned self-signed certificates.
    ///
    /// Any anchor may end the chain, self-signed or not (`X509_V_FLAG_PARTIAL_CHAIN`), so a pinned
    /// leaf or intermediate works. Validity, signatures and the security level are still checked,
    /// as are the configuration's required usage and depth; the profile is
    /// ``TLSConfiguration/trustProfile``, or ``TrustProfile/rfc5280`` when that is `nil` (the
    /// anchors are the user's own).
    ///
    /// - Parameters:
    ///   - anchors: the certificates to trust.
    ///   - includeDefaultAnchors: also accept chains to the context's anchors; `false` by default
    ///     (anchors only, like `SecTrustSetAnchorCertificatesOnly(true)`).
    ///   - validateHost: check the leaf against ``host``; `true` by default.
    /// - Returns: the first trusted result (custom anchors first), or the custom-anchor failure.
    public func evaluate(anchors: [Certificate], includeDefaultAnchors: Bool = false, validateHost: Bool = true) -> TrustResult {
        var policy = configuration.trustPolicy(host: validateHost ? host : nil)
        policy.crlCheck = .none
        policy.profile = configuration.effectiveProfile(for: .certificates(anchors))
        policy.allowPartialChain = true
        let pinned = TrustStore(anchors: anchors).evaluate(chain: peerCertificates, policy: policy)
        guard !pinned.isTrusted, includeDefaultAnchors else { return pinned }
        let standard = evaluateDefault(validateHost: validateHost)
        return standard.isTrusted ? standard : pinned
    }

    /// Evaluates revocation explicitly, whatever the configuration says.
    ///
    /// - Parameters:
    ///   - crlCheck: CRL coverage to require from the context's CRLs (``TLSConfiguration/crlFiles``).
    ///   - ocsp: policy for the stapled response.
    ///   - validateHost: check the leaf against ``host`` too; `true` by default.
    /// - Returns: the chain result under `crlCheck`, combined with the OCSP verdict under `ocsp`.
    public func evaluateRevocation(crlCheck: CRLCheck, ocsp: OCSPStaplingPolicy, validateHost: Bool = true) -> TrustResult {
        var policy = configuration.trustPolicy(host: validateHost ? host : nil)
        policy.crlCheck = crlCheck
        let chain = trustStore.evaluate(chain: peerCertificates, policy: policy)
        return TrustEvaluationContext.withStapledOCSP(chain, response: stapledOCSPResponse, policy: ocsp, store: trustStore, presented: peerCertificates)
    }

    /// The stapled response checked against the chain, or `nil` when none was stapled.
    public var stapledOCSPResult: OCSPCheckResult? {
        guard let stapledOCSPResponse else { return nil }
        let chain = chainResult.map(\.verifiedChain).flatMap { $0.count >= 2 ? $0 : nil } ?? peerCertificates
        return trustStore.checkOCSPResponse(stapledOCSPResponse, chain: chain)
    }

    /// Combines a chain result with the verdict on a stapled response under `policy`.
    static func withStapledOCSP(
        _ chain: TrustResult, response: [UInt8]?, policy: OCSPStaplingPolicy, store: TrustStore, presented: [Certificate]
    ) -> TrustResult {
        guard policy != .ignore, chain.isTrusted else { return chain }
        guard let response else {
            guard policy == .require else { return chain }
            return chain.combined(with: TrustFailure(
                reason: .revocationUnknown, code: X509_V_ERR_OCSP_VERIFY_NEEDED,
                message: "OCSP stapling is required but the server stapled no response", depth: 0, origin: .stapledOCSP))
        }
        let issuerChain = chain.verifiedChain.count >= 2 ? chain.verifiedChain : presented
        return chain.combined(with: store.checkOCSPResponse(response, chain: issuerChain).failure(under: policy))
    }
}
