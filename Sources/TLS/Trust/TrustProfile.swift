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
    /// On top of OpenSSL's checks: `X509_V_FLAG_X509_STRICT` (critical basicConstraints on
    /// CAs, key identifiers, non-empty issuer, explicit EC parameters refused, ...), and in Swift,
    /// for every certificate except the trust anchor: serial numbers positive and at most 20
    /// octets; RSA keys of at least 2048 bits and a multiple of 8, or EC keys on P-256, P-384 or
    /// P-521 (DSA, Ed25519 and RSA-PSS keys refused); signatures RSA PKCS#1 v1.5, RSA-PSS or ECDSA
    /// with SHA-256/384/512 (ECDSA's hash matching the issuer's curve); authorityKeyIdentifier
    /// present; on CAs a non-empty subject, a critical basicConstraints and a subjectKeyIdentifier;
    /// nameConstraints with at least one subtree; authorityInfoAccess, when present, decodable
    /// with at least one entry. On the anchor (which is otherwise trusted as a name and a key):
    /// no extKeyUsage, an authorityKeyIdentifier (if any) with a keyIdentifier and naming the root
    /// itself (its SKI, and its own name and serial when given), an RSA modulus in whole bytes. On the leaf: the required extended key usage present
    /// explicitly and not critical (no missing extension, and no anyExtendedKeyUsage at all); not a
    /// CA; and for server certificates a subjectAltName (critical when the subject is empty), DNS
    /// names made of letters, digits and hyphens only, every CN a character-for-character copy of
    /// a SAN entry (an IP address in its canonical text; Baseline Requirements 7.1.4.3), no
    /// wildcard directly above a public suffix of the ICANN section (`*.co.uk`). Identity comes
    /// from the SAN only: the CN is never matched against the host, and a wildcard on a private
    /// registry's suffix (`*.s3.amazonaws.com`) is allowed in a certificate but identifies no host.
    /// Name constraints as under ``rfc5280``.
    public static let webPKI = TrustProfile(.webPKI)

    /// RFC 5280 path validation: OpenSSL's checks plus an inclusive `notAfter`, the depth limit
    /// (self-issued intermediates not counted), the required extended key usage when the leaf has
    /// that extension (a leaf without one may be used for anything, section 4.2.1.12), and
    /// RFC 5280's own MUSTs that OpenSSL leaves out: serial numbers positive and at most 20 octets
    /// (the anchor's excepted); an authorityKeyIdentifier keyIdentifier on every certificate but a
    /// self-signed one and the anchor; every CA of the path, anchor included, with a non-empty
    /// subject, a critical basicConstraints `cA: TRUE` and a subjectKeyIdentifier; keyCertSign and
    /// nameConstraints only in CAs; nameConstraints and policyConstraints critical; a critical
    /// subjectAltName when the subject is empty. Name constraints apply to every kind of name
    /// (OpenSSL's matching, which refuses a kind it cannot check), and beyond it: a dNSName
    /// constraint must be a host name (no leading period), a malformed dNSName or rfc822Name under
    /// a constraint of its kind is refused, and a wildcard SAN that could match an excluded name
    /// is refused. The leaf's keyUsage is not held to the TLS purpose (a CA certificate may be a
    /// leaf), as in Go and rustls-webpki. Underscores in DNS names and CNs outside the SAN are
    /// accepted: private PKIs use them.
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
