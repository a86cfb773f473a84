internal import COpenSSL
internal import Glibc

extension TrustStore {
    /// Verifies `chain` under `policy`.
    ///
    /// In order, stopping at the first failure:
    /// 1. the number of certificates presented against ``TrustPolicy/maximumPresentedCertificates``;
    /// 2. the leaf's extended key usage (and, under ``TrustProfile/webPKI``, that it is not a CA);
    /// 3. OpenSSL's `X509_verify_cert`: chain building with the supplied intermediates in any
    ///    order, signatures, validity (`notAfter` inclusive), purpose `ssl_server` or
    ///    `ssl_client`, security level, path length, name constraints, depth, CRLs as asked,
    ///    `X509_V_FLAG_X509_STRICT` under ``TrustProfile/webPKI``, and the host through
    ///    `X509_VERIFY_PARAM_set1_host`/`set1_ip` with `NO_PARTIAL_WILDCARDS | NEVER_CHECK_SUBJECT`;
    /// 4. the rules of the profile on the chain built (``ProfileRules/webPKIChain(_:usage:host:)``
    ///    or ``ProfileRules/rfc5280Chain(_:)``), a CRL used without cRLNumber, and the depth limit
    ///    without self-issued intermediates; when 3 or 4 fails (except on identity), every other
    ///    path from the leaf to an anchor through the certificates supplied, found by name and
    ///    signature within 100 signature checks, is verified the same way until one passes
    ///    (``candidatePaths(leaf:pool:maximumLength:)``);
    /// 5. the host again, independently, with ``HostnameMatcher``, compared with OpenSSL's
    ///    `X509_check_host`/`X509_check_ip`: a disagreement is a ``TrustFailure/Reason/hostnameMismatch``.
    ///
    /// - Parameters:
    ///   - chain: the leaf first, then any intermediates in any order (as a server sends them).
    ///   - policy: the checks to run.
    /// - Returns: the result, with the first failure found.
    public func evaluate(chain: [Certificate], policy: TrustPolicy) -> TrustResult {
        guard let leaf = chain.first else {
            return TrustResult(failure: TrustFailure(reason: .other, message: "empty certificate chain"), verifiedChain: [], openSSLCode: 0)
        }
        guard chain.count <= policy.maximumPresentedCertificates else {
            let message = "the peer presented \(chain.count) certificates, more than \(policy.maximumPresentedCertificates)"
            return TrustResult(failure: TrustFailure(reason: .chainTooLong, message: message), verifiedChain: [], openSSLCode: 0)
        }
        if let failure = ProfileRules.leafUse(CertificateFacts(leaf), usage: policy.requiredUsage, profile: policy.profile) {
            return TrustResult(failure: failure, verifiedChain: [], openSSLCode: 0)
        }
        let identity = policy.host.map(HostIdentity.init)
        var run = verify(leaf: leaf, intermediates: chain.dropFirst(), policy: policy, identity: identity)
        // OpenSSL takes the first candidate issuer that fits and never backtracks across the
        // peer's certificates: a server that sends a self-signed root next to that root's
        // cross-signed twin gets SELF_SIGNED_CERT_IN_CHAIN although a path to an anchor exists.
        // A self-signed certificate from the peer can only end a chain as an anchor, and
        // anchors come from the store, so one retry without them is safe and bounded.
        if !run.verified, run.code == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN {
            let withoutRoots = chain.dropFirst().filter { !$0.isSelfSigned }
            if withoutRoots.count < chain.count - 1 {
                let retry = verify(leaf: leaf, intermediates: withoutRoots[...], policy: policy, identity: identity)
                if retry.verified { run = retry }
            }
        }
        run = retryingOtherIssuers(after: run, leaf: leaf, pool: Array(chain.dropFirst()), policy: policy, identity: identity)
        var failure = judged(run, policy: policy)
        if failure != nil, !TrustStore.identityCodes.contains(run.code) {
            // Another path may succeed where OpenSSL's first choice failed (see candidatePaths).
            let limit = policy.maximumChainDepth + chain.dropFirst().filter { CertificateFacts.selfIssued($0) }.count
            for path in candidatePaths(leaf: leaf, pool: Array(chain.dropFirst()), maximumLength: limit) {
                let candidate = verify(leaf: leaf, intermediates: path.intermediates[...], policy: policy, identity: identity, anchor: path.anchor)
                guard candidate.verified, judged(candidate, policy: policy) == nil else { continue }
                (run, failure) = (candidate, nil)
                break
            }
        }
        let builtChain = run.chain
        if let identity, failure == nil || failure?.reason == .hostnameMismatch {
            failure = identity.crossCheck(leaf: leaf) ?? failure
        }
        return TrustResult(failure: failure, verifiedChain: builtChain, openSSLCode: run.verified ? 0 : run.code)
    }

    /// RFC 5280 section 5.2.3: a CRL issuer MUST include the cRLNumber extension. A CRL that
    /// OpenSSL used for a certificate of `chain` (one issued by that certificate's issuer)
    /// without it makes the revocation status unknown.
    private func crlNumbers(_ chain: [Certificate], policy: TrustPolicy) -> TrustFailure? {
        guard policy.crlCheck != .none, chain.count > 1 else { return nil }
        let checked = policy.crlCheck == .leaf ? 1 : chain.count - 1
        for depth in 0..<checked {
            let issuer = X509_get_subject_name(chain[depth + 1].x509)
            for crl in crls where X509_NAME_cmp(X509_CRL_get_issuer(crl.crl), issuer) == 0 {
                guard X509_CRL_get_ext_by_NID(crl.crl, NID_crl_number, -1) < 0 else { continue }
                return TrustFailure(reason: .revocationUnknown, message: "a CRL without cRLNumber (RFC 5280 section 5.2.3)", depth: depth)
            }
        }
        return nil
    }

    /// The identity codes: no other path changes the leaf's names.
    static let identityCodes: Set<Int32> = [X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH, X509_V_ERR_EMAIL_MISMATCH]

    /// The verdict on one OpenSSL run: its failure, else the profile's rules on the chain built,
    /// else the depth limit counted as RFC 5280 counts path length (self-issued intermediates
    /// are not counted, section 4.2.1.9).
    private func judged(_ run: OpenSSLRun, policy: TrustPolicy) -> TrustFailure? {
        guard run.verified else {
            return run.code == X509_V_OK
                ? TrustFailure(reason: .other, message: "X509_verify_cert failed without a code")
                : TrustStore.refined(TrustFailure.fromVerifyCode(run.code, depth: run.depth), chain: run.chain)
        }
        if let failure = crlNumbers(run.chain, policy: policy) { return failure }
        let facts = run.chain.map(CertificateFacts.init)
        let counted = facts.dropFirst().dropLast().filter { !$0.isSelfIssued }.count
        if counted > policy.maximumChainDepth {
            let message = "\(counted) intermediates, more than \(policy.maximumChainDepth)"
            return TrustFailure(reason: .chainTooLong, code: X509_V_ERR_CERT_CHAIN_TOO_LONG, message: message, depth: facts.count - 1)
        }
        return policy.profile == .webPKI
            ? ProfileRules.webPKIChain(facts, usage: policy.requiredUsage, host: policy.host) : ProfileRules.rfc5280Chain(facts)
    }

    /// How many times a certificate the peer supplied is set aside after a signature failure
    /// and the chain built again. Go and rustls-webpki explore every candidate issuer under a
    /// budget of signature checks (100 each); OpenSSL takes the first candidate that fits and
    /// stops at its bad signature. Eight retries let a chain survive a few stale or bogus
    /// look-alikes of its intermediate, while a peer sending thousands costs at most nine builds.
    static let issuerRetryBudget = 8

    /// After a signature failure involving a certificate the peer supplied, builds again without
    /// it, up to ``issuerRetryBudget`` times; returns the first success, else `run`.
    private func retryingOtherIssuers(
        after run: OpenSSLRun, leaf: Certificate, pool: [Certificate], policy: TrustPolicy, identity: HostIdentity?
    ) -> OpenSSLRun {
        var pool = pool
        var last = run
        for _ in 0..<TrustStore.issuerRetryBudget {
            guard !last.verified, last.code == X509_V_ERR_CERT_SIGNATURE_FAILURE, last.chain.indices.contains(last.depth + 1) else { break }
            // chain[depth]'s signature did not verify under chain[depth + 1]'s key: either the
            // issuer is a look-alike with another key, or chain[depth] itself is damaged. Set
            // aside whichever of the two the peer supplied, the issuer first.
            let suspects = [last.chain[last.depth + 1].x509] + (last.depth > 0 ? [last.chain[last.depth].x509] : [])
            guard let index = suspects.lazy.compactMap({ suspect in pool.firstIndex { $0.x509 == suspect } }).first else { break }
            pool.remove(at: index)
            last = verify(leaf: leaf, intermediates: pool[...], policy: policy, identity: identity)
            if last.verified { return last }
        }
        return run
    }

    /// One `X509_verify_cert` outcome.
    private struct OpenSSLRun {
        let verified: Bool
        let code: Int32
        let depth: Int
        /// The chain built, leaf first (partial on failure).
        let chain: [Certificate]
    }

    /// Runs `X509_verify_cert` on `leaf` with `intermediates` as the untrusted pool; with
    /// `anchor`, against a store holding only that anchor (and the CRLs), which ends the path
    /// even when it is not self-signed.
    private func verify(
        leaf: Certificate, intermediates: ArraySlice<Certificate>, policy: TrustPolicy, identity: HostIdentity?, anchor: Certificate? = nil
    ) -> OpenSSLRun {
        guard let untrusted = lariat_sk_X509_new_null(), let context = X509_STORE_CTX_new() else {
            preconditionFailure("allocation failed in chain evaluation")
        }
        let singleAnchor = anchor.flatMap { TrustStore.store(anchor: $0, crls: crls) }
        defer {
            X509_STORE_CTX_free(context)
            lariat_sk_X509_pop_free(untrusted)
            if let singleAnchor { X509_STORE_free(singleAnchor) }
        }
        for certificate in intermediates { _ = lariat_sk_X509_push_up_ref(untrusted, certificate.x509) }
        guard X509_STORE_CTX_init(context, singleAnchor ?? store, leaf.x509, untrusted) == 1,
            X509_STORE_CTX_set_default(context, policy.requiredUsage.openSSLPurpose) == 1,
            let parameters = X509_STORE_CTX_get0_param(context)
        else { preconditionFailure("X509_STORE_CTX setup failed: \(OpenSSLError.drain())") }

        X509_VERIFY_PARAM_set_auth_level(parameters, Int32(policy.securityLevel))
        // Self-issued intermediates do not count (RFC 5280 section 4.2.1.9); `judged` counts the others.
        let selfIssued = intermediates.filter { CertificateFacts.selfIssued($0) }.count
        X509_VERIFY_PARAM_set_depth(parameters, Int32(max(0, policy.maximumChainDepth) + selfIssued))
        var flags = UInt(0)
        if policy.crlCheck == .leaf { flags |= UInt(X509_V_FLAG_CRL_CHECK) }
        if policy.crlCheck == .fullChain { flags |= UInt(X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL) }
        if policy.allowPartialChain || anchor.map({ !$0.isSelfSigned }) == true { flags |= UInt(X509_V_FLAG_PARTIAL_CHAIN) }
        if policy.profile == .webPKI { flags |= UInt(X509_V_FLAG_X509_STRICT) }
        X509_VERIFY_PARAM_set_flags(parameters, flags)
        if let time = policy.verificationTime { X509_VERIFY_PARAM_set_time(parameters, time_t(time)) }
        X509_STORE_CTX_set_verify_cb(context) { ok, context in
            TrustStore.notAfterInclusive(ok, context) == 1 || TrustStore.leafPurposeUnderRFC5280(ok, context) == 1
                ? 1 : TrustStore.anchorExempt(ok, context)
        }

        identity?.configure(parameters)

        let verified = X509_verify_cert(context) == 1
        defer { _ = OpenSSLError.drain() }
        return OpenSSLRun(
            verified: verified, code: X509_STORE_CTX_get_error(context), depth: Int(X509_STORE_CTX_get_error_depth(context)),
            chain: TrustStore.certificates(owning: X509_STORE_CTX_get1_chain(context)))
    }

    /// OpenSSL reports an issuer whose keyUsage lacks keyCertSign as `INVALID_CA`, like one
    /// without `cA: TRUE`; name the keyUsage when that is what is wrong.
    private static func refined(_ failure: TrustFailure, chain: [Certificate]) -> TrustFailure {
        guard failure.code == X509_V_ERR_INVALID_CA, let depth = failure.depth, chain.indices.contains(depth) else { return failure }
        let facts = CertificateFacts(chain[depth])
        guard facts.isCA, facts.hasKeyUsage, !facts.assertsKeyCertSign else { return failure }
        return TrustFailure(reason: .keyUsage, code: failure.code, message: "an issuer whose keyUsage lacks keyCertSign", depth: depth)
    }

    /// `X509_V_FLAG_X509_STRICT` checks the trust anchor's own extensions too, and real roots
    /// fail them: Go Daddy and Starfield Class 2 have a non-critical basicConstraints and no
    /// keyUsage, TWCA Global Root CA no subjectKeyIdentifier (all in Debian's bundle). An anchor
    /// is trusted as a name and a key, as in rustls-webpki and Go; the strict structural checks
    /// apply to the certificates the peer sent. This verify callback waives exactly those
    /// codes for the top certificate when it came from the store.
    private static func anchorExempt(_ ok: Int32, _ context: OpaquePointer?) -> Int32 {
        guard ok == 0, let context, anchorExemptCodes.contains(X509_STORE_CTX_get_error(context)),
            let chain = X509_STORE_CTX_get0_chain(context)
        else { return ok }
        let depth = X509_STORE_CTX_get_error_depth(context)
        guard depth == lariat_sk_X509_num(chain) - 1, depth >= X509_STORE_CTX_get_num_untrusted(context) else { return ok }
        X509_STORE_CTX_set_error(context, X509_V_OK)
        return 1
    }

    /// Under ``TrustProfile/rfc5280`` (the only profile without `X509_V_FLAG_X509_STRICT`), the
    /// leaf's keyUsage is not checked against the TLS purpose: RFC 5280 path validation does not
    /// read the leaf's keyUsage, nor do Go and rustls-webpki, and a CA certificate in leaf
    /// position is valid (x509-limbo `rfc5280::ca-as-leaf`). The leaf's extendedKeyUsage was
    /// checked before OpenSSL ran (``ProfileRules/leafUse(_:usage:profile:)``).
    private static func leafPurposeUnderRFC5280(_ ok: Int32, _ context: OpaquePointer?) -> Int32 {
        guard ok == 0, let context, X509_STORE_CTX_get_error(context) == X509_V_ERR_INVALID_PURPOSE,
            X509_STORE_CTX_get_error_depth(context) == 0, let parameters = X509_STORE_CTX_get0_param(context),
            X509_VERIFY_PARAM_get_flags(parameters) & UInt(X509_V_FLAG_X509_STRICT) == 0
        else { return ok }
        X509_STORE_CTX_set_error(context, X509_V_OK)
        return 1
    }

    /// A store holding `anchor` and `crls` only.
    private static func store(anchor: Certificate, crls: [CertificateRevocationList]) -> OpaquePointer? {
        guard let store = X509_STORE_new() else { return nil }
        _ = X509_STORE_add_cert(store, anchor.x509)
        for crl in crls { _ = X509_STORE_add_crl(store, crl.crl) }
        _ = OpenSSLError.drain()
        return store
    }

    /// The codes only `X509_V_FLAG_X509_STRICT` raises, about a certificate's own encoding.
    private static let anchorExemptCodes: Set<Int32> = [
        X509_V_ERR_CA_BCONS_NOT_CRITICAL, X509_V_ERR_CA_CERT_MISSING_KEY_USAGE, X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER,
        X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER, X509_V_ERR_AUTHORITY_KEY_IDENTIFIER_CRITICAL,
        X509_V_ERR_SUBJECT_KEY_IDENTIFIER_CRITICAL, X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3, X509_V_ERR_SUBJECT_NAME_EMPTY,
        X509_V_ERR_ISSUER_NAME_EMPTY, X509_V_ERR_EMPTY_SUBJECT_ALT_NAME, X509_V_ERR_EMPTY_SUBJECT_SAN_NOT_CRITICAL,
        X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA, X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN,
        X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY,
    ]

    /// The verify callback: OpenSSL counts the `notAfter` second itself as expired
    /// (`X509_cmp_time` returns -1 for "earlier than or equal"), RFC 5280 section 4.1.2.5 says a
    /// certificate is valid through it. Overrides exactly that case; every other verdict stands.
    private static func notAfterInclusive(_ ok: Int32, _ context: OpaquePointer?) -> Int32 {
        guard ok == 0, let context, X509_STORE_CTX_get_error(context) == X509_V_ERR_CERT_HAS_EXPIRED,
            let certificate = X509_STORE_CTX_get_current_cert(context),
            let parameters = X509_STORE_CTX_get0_param(context)
        else { return ok }
        let fixedTime = X509_VERIFY_PARAM_get_flags(parameters) & UInt(X509_V_FLAG_USE_CHECK_TIME) != 0
        // Without a fixed time OpenSSL read the clock just before; a second that ticked since
        // only makes the override not apply, which errs on the side of "expired".
        let now = fixedTime ? X509_VERIFY_PARAM_get_time(parameters) : time(nil)
        guard ASN1_TIME_cmp_time_t(X509_get0_notAfter(certificate), now) == 0 else { return ok }
        X509_STORE_CTX_set_error(context, X509_V_OK)
        return 1
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
