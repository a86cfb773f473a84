/// A TLS protocol version.
public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The wire value (`0x0303` for TLS 1.2).
    public let wireValue: Int32
    private init(_ wireValue: Int32) { self.wireValue = wireValue }

    /// TLS 1.0 (RFC 2246). Refused by clients; exists for test servers and for reporting.
    public static let v1_0 = TLSVersion(0x0301)
    /// TLS 1.1 (RFC 4346). Refused by clients; exists for test servers and for reporting.
    public static let v1_1 = TLSVersion(0x0302)
    /// TLS 1.2 (RFC 5246).
    public static let v1_2 = TLSVersion(0x0303)
    /// TLS 1.3 (RFC 8446).
    public static let v1_3 = TLSVersion(0x0304)

    init?(wireValue: Int32) {
        guard (0x0301...0x0304).contains(wireValue) else { return nil }
        self.wireValue = wireValue
    }

    /// Orders by wire value.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.wireValue < rhs.wireValue }

    /// `TLSv1.2` style name.
    public var description: String { "TLSv1.\(wireValue - 0x0301)" }
}

/// Whether the peer's certificate chain is verified.
public struct VerificationMode: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case full, none }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// The default: chain to a trusted anchor, validity, security level, revocation as
    /// configured, and the host name or IP address.
    public static let full = VerificationMode(.full)
    /// No verification at all (curl `--insecure`). Anyone on the path can read and change the
    /// traffic. Never use this in production.
    public static let none = VerificationMode(.none)

    /// `full` or `none`.
    public var description: String { base.rawValue }
}

/// Everything a ``TLSClientContext`` is built from. A value type: copy, change, build.
///
/// Defaults are strict: TLS 1.2 or 1.3 only, forward-secret AEAD suites only, security
/// level 2, full verification against the system store under ``TrustProfile/webPKI`` (RFC 5280
/// and the CA/B Forum Baseline Requirements; ``TrustProfile/rfc5280`` for anchors the user
/// supplies, see ``trustProfile``), ALPN `http/1.1`, stapled OCSP requested and honoured when it
/// says `revoked`.
public struct TLSConfiguration: Sendable {
    /// TLS 1.2 suites allowed by default: ECDHE key exchange with AES-GCM or ChaCha20-Poly1305.
    public static let defaultCipherList =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// TLS 1.3 suites allowed by default (all three AEAD suites of RFC 8446 that OpenSSL enables).
    public static let defaultCipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// Trust anchors; ``TrustRoots/system`` by default.
    public var trustRoots: TrustRoots = .system

    /// Lowest version offered; ``TLSVersion/v1_2`` by default. Values below 1.2 are refused.
    public var minimumVersion: TLSVersion = .v1_2

    /// Highest version offered; `nil` (the default) means the highest OpenSSL supports (1.3).
    public var maximumVersion: TLSVersion? = nil

    /// TLS 1.2 cipher list in OpenSSL syntax (curl `--ciphers`); ``defaultCipherList`` by default.
    public var cipherList: String = TLSConfiguration.defaultCipherList

    /// TLS 1.3 cipher suites in OpenSSL syntax (curl `--tls13-ciphers`); ``defaultCipherSuites`` by default.
    public var cipherSuites: String = TLSConfiguration.defaultCipherSuites

    /// Key-exchange groups offered, in OpenSSL's colon-separated syntax (`X25519:P-256`, curl
    /// `--curves`); `nil` (the default) offers OpenSSL's own list.
    public var groups: String? = nil

    /// OpenSSL security level for the handshake and the chain; 2 by default, lower values refused.
    public var securityLevel: Int = 2

    /// Certificate verification; ``VerificationMode/full`` by default.
    public var verification: VerificationMode = .full

    /// Certificate and key to present when asked; `nil` (none) by default.
    public var clientIdentity: ClientIdentity? = nil

    /// ALPN protocols offered, most preferred first; `["http/1.1"]` by default, empty for no ALPN.
    public var applicationProtocols: [String] = ["http/1.1"]

    /// CRL files (PEM or DER) to load into the trust store; empty by default.
    public var crlFiles: [String] = []

    /// Which certificates must be covered by a CRL. ``CRLCheck/none`` by default; set it when
    /// ``crlFiles`` is not empty (curl `--crlfile` corresponds to ``CRLCheck/fullChain``).
    public var crlCheck: CRLCheck = .none

    /// Handling of stapled OCSP responses; ``OCSPStaplingPolicy/ifPresent`` by default. Stapling
    /// is requested in every ClientHello unless this is ``OCSPStaplingPolicy/ignore``.
    public var ocspStapling: OCSPStaplingPolicy = .ifPresent

    /// Whether new connections to a host resume an earlier TLS session with it (tickets, kept in
    /// the session's cache); `true` by default. Resumption skips the certificate exchange and
    /// the trust evaluation of the full handshake (the first handshake evaluated the server).
    /// curl's `--no-sessionid` is `false`.
    public var sessionResumption: Bool = true

    /// The certificate profile chains are held to; `nil` (the default) chooses by where the
    /// anchors come from: ``TrustProfile/webPKI`` when ``trustRoots`` includes
    /// ``TrustRoots/system``, ``TrustProfile/rfc5280`` when every anchor was supplied by the user
    /// (curl's `--cacert`, `.file`, `.certificates`). See ``TrustProfile`` for why.
    public var trustProfile: TrustProfile? = nil

    /// The extended key usage the peer's leaf must allow; ``ExtendedKeyUsage/serverAuth`` by default.
    public var requiredUsage: ExtendedKeyUsage = .serverAuth

    /// The most intermediates allowed between the leaf and the anchor; 6 by default.
    public var maximumChainDepth: Int = 6

    /// Creates the default configuration; change properties afterwards.
    public init() {}

    /// The profile in force for anchors from `roots` (``trustRoots`` unless pinning).
    func effectiveProfile(for roots: TrustRoots) -> TrustProfile {
        trustProfile ?? TrustProfile.automatic(for: roots)
    }

    /// The policy the default evaluation applies for `host` (`nil` for no identity check).
    func trustPolicy(host: String?) -> TrustPolicy {
        TrustPolicy(
            host: host, securityLevel: securityLevel, crlCheck: crlCheck, profile: effectiveProfile(for: trustRoots),
            requiredUsage: requiredUsage, maximumChainDepth: maximumChainDepth)
    }
}
