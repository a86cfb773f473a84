/// Which rules, beyond OpenSSL's own checks, a chain must satisfy.
///
/// Both profiles build the chain, check signatures, validity (``TrustPolicy/verificationTime``,
/// `notAfter` inclusive as RFC 5280 section 4.1.2.5 says), path-length and name constraints, the
/// security level, ``TrustPolicy/maximumChainDepth`` and ``TrustPolicy/requiredUsage``.
///
/// ``webPKI`` adds the CA/Browser Forum Baseline Requirements for TLS server certificates and
/// RFC 5280's issuer-side MUSTs, each with its own ``TrustFailure/Reason``. ``rfc5280`` is for
/// private PKIs whose certificates predate those rules or were never bound by them.
///
/// Which one applies by default: ``TLSConfiguration/trustProfile`` is `nil` unless set, and then
/// chains are evaluated under ``webPKI`` when ``TLSConfiguration/trustRoots`` includes
/// ``TrustRoots/system``, and under ``rfc5280`` when every anchor is one the user supplied
/// (`--cacert`, `.file`, `.certificates`, pinned anchors). The Baseline Requirements bind
/// publicly trusted CAs only; a private CA made with `openssl req` (no extendedKeyUsage, a CN
/// outside the SAN, an internal name with an underscore) is not wrong under the rules it was
/// made by, and refusing it would push users towards `verification = .none`. Browsers draw the
/// same line: Chrome relaxes its BR-only rules for locally installed anchors. Set
/// ``webPKI`` explicitly to hold a private PKI to the public rules.
public struct TrustProfile: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case webPKI, rfc5280 }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// Strict: RFC 5280 and the CA/B Forum Baseline Requirements for server certificates.
    ///
    /// On top of ``rfc5280``: OpenSSL's `X509_V_FLAG_X509_STRICT` (critical basicConstraints on
    /// CAs, key identifiers, non-empty issuer, explicit EC parameters refused, ...), and in Swift,
    /// for every certificate except the trust anchor: serial numbers positive and at most 20
    /// octets; RSA keys of at least 2048 bits and a multiple of 8, or EC keys on P-256, P-384 or
    /// P-521 (DSA, Ed25519 and RSA-PSS keys refused); signatures RSA PKCS#1 v1.5, RSA-PSS or ECDSA
    /// with SHA-256/384/512 (ECDSA's hash matching the issuer's curve); authorityKeyIdentifier
    /// present; on CAs a critical basicConstraints and a subjectKeyIdentifier. On the leaf: the
    /// required extended key usage present explicitly (no missing extension, and no
    /// anyExtendedKeyUsage at all); not a CA; and for server certificates a
    /// subjectAltName (critical when the subject is empty), DNS names made of letters, digits and
    /// hyphens only, every CN repeated in the SAN, no wildcard directly above a public suffix.
    public static let webPKI = TrustProfile(.webPKI)

    /// RFC 5280 path validation as OpenSSL implements it, plus an inclusive `notAfter`, the
    /// depth limit, and the required extended key usage when the leaf has that extension (a
    /// leaf without one may be used for anything, RFC 5280 section 4.2.1.12).
    public static let rfc5280 = TrustProfile(.rfc5280)

    /// `webPKI` or `rfc5280`.
    public var description: String { base.rawValue }

    /// The profile to use when none was chosen, from the anchors' origin (see the type's docs).
    static func automatic(for roots: TrustRoots) -> TrustProfile {
        roots.sources.contains(.system) ? .webPKI : .rfc5280
    }
}

/// The extended key usage (RFC 5280 section 4.2.1.12) the leaf must allow.
public struct ExtendedKeyUsage: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case serverAuth, clientAuth }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// `id-kp-serverAuth`: a client verifying a TLS server (the default).
    public static let serverAuth = ExtendedKeyUsage(.serverAuth)
    /// `id-kp-clientAuth`: a server verifying a TLS client's certificate.
    public static let clientAuth = ExtendedKeyUsage(.clientAuth)

    /// `serverAuth` or `clientAuth`.
    public var description: String { base.rawValue }

    /// OpenSSL's purpose name for `X509_STORE_CTX_set_default`.
    var openSSLPurpose: String { self == .serverAuth ? "ssl_server" : "ssl_client" }
}
