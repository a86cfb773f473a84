/// Where trust anchors come from. Combine sources with ``combining(_:)``.
///
/// A struct around a private enum so sources can be added later.
public struct TrustRoots: Sendable, Hashable, CustomStringConvertible {
    enum Source: Sendable, Hashable {
        case system
        case file(String)
        case directory(String)
        case certificates([Certificate])
    }

    let sources: [Source]

    private init(_ sources: [Source]) { self.sources = sources }

    /// The system store, resolved when a ``TrustStore`` is built:
    /// 1. when `SSL_CERT_FILE` and/or `SSL_CERT_DIR` are set, exactly those (as OpenSSL and curl do);
    /// 2. otherwise Debian's bundle `/etc/ssl/certs/ca-certificates.crt` and the hashed directory
    ///    `/etc/ssl/certs` (each when present), plus OpenSSL's compiled-in default file and directory.
    public static let system = TrustRoots([.system])

    /// Every certificate in a PEM bundle file (curl `--cacert`).
    ///
    /// - Parameter path: the PEM file.
    public static func file(_ path: String) -> TrustRoots { TrustRoots([.file(path)]) }

    /// An OpenSSL hashed certificate directory (`c_rehash` layout, curl `--capath`); certificates are
    /// looked up by subject hash as needed.
    ///
    /// - Parameter path: the directory.
    public static func directory(_ path: String) -> TrustRoots { TrustRoots([.directory(path)]) }

    /// The given certificates, and nothing else.
    ///
    /// - Parameter certificates: the anchors; an empty array trusts nothing.
    public static func certificates(_ certificates: [Certificate]) -> TrustRoots { TrustRoots([.certificates(certificates)]) }

    /// The union of several sources.
    ///
    /// - Parameter roots: the sources to combine, in any order.
    public static func combining(_ roots: [TrustRoots]) -> TrustRoots { TrustRoots(roots.flatMap(\.sources)) }

    /// A summary such as `system + file(/tmp/ca.pem)`.
    public var description: String {
        sources.map { source in
            switch source {
            case .system: return "system"
            case .file(let path): return "file(\(path))"
            case .directory(let path): return "directory(\(path))"
            case .certificates(let list): return "certificates(\(list.count))"
            }
        }.joined(separator: " + ")
    }
}

/// Which certificates are checked against the CRLs of a ``TrustStore``.
public struct CRLCheck: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case none, leaf, fullChain }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// No CRL checking (the default).
    public static let none = CRLCheck(.none)
    /// The leaf only (`X509_V_FLAG_CRL_CHECK`): its issuer's CRL must be present and valid.
    public static let leaf = CRLCheck(.leaf)
    /// Every certificate in the chain (`X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL`):
    /// a CRL from each issuer must be present and valid.
    public static let fullChain = CRLCheck(.fullChain)

    /// `none`, `leaf` or `fullChain`.
    public var description: String { base.rawValue }
}

/// What to do with a stapled OCSP response (RFC 6066 section 8, `status_request`).
public struct OCSPStaplingPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case ignore, ifPresent, require }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// Do not look at stapled responses.
    public static let ignore = OCSPStaplingPolicy(.ignore)
    /// The default. When the server staples a response that verifies (signature by the issuer
    /// or its delegated responder, matching certificate ID, current thisUpdate/nextUpdate) and
    /// says `revoked`, fail with ``TrustFailure/Reason/revoked``. A missing, unverifiable or
    /// `unknown` response is not an error, because an attacker could strip it anyway.
    public static let ifPresent = OCSPStaplingPolicy(.ifPresent)
    /// Like curl's `--cert-status`: a verified response saying `good` is required; anything else
    /// fails (missing, unverifiable or `unknown`: ``TrustFailure/Reason/revocationUnknown``;
    /// `revoked`: ``TrustFailure/Reason/revoked``).
    public static let require = OCSPStaplingPolicy(.require)

    /// `ignore`, `ifPresent` or `require`.
    public var description: String { base.rawValue }
}
