// Alamofire's evaluators, expressed with the TLS module's primitives. Each throws
// `AFError.serverTrustEvaluationFailed` with Alamofire's reason.

import FoundationEssentials
import TLS

/// OpenSSL's default validation: a chain to a trusted root (the session's trust roots, by
/// default the system store), validity dates, the security level, the configured CRL and
/// stapled-OCSP policies, and, when `validateHost`, the host name (DNS or IP SANs only).
public struct DefaultTrustEvaluator: ServerTrustEvaluating {
    /// Whether the host name is checked.
    public let validateHost: Bool

    /// Creates the evaluator.
    ///
    /// - Parameter validateHost: check the certificate against the host; `true` by default.
    public init(validateHost: Bool = true) { self.validateHost = validateHost }

    /// Runs the default validation.
    ///
    /// - Throws: `.hostValidationFailed` for a name mismatch, otherwise `.defaultEvaluationFailed`.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {
        try trust.af.performDefaultValidation(forHost: host, validateHost: validateHost)
    }
}

/// Default validation plus revocation, from two sources only (Lariat makes no network requests):
/// the server's *stapled OCSP response* (verified against the chain, within its validity window)
/// and *CRL files* configured on the session's `TLSConfiguration.crlFiles`.
///
/// Listed sources are consulted when present: a stapled response must say `good`; CRLs, when any
/// are configured, must not list the leaf. With ``Options/requirePositiveResponse`` a listed
/// source must give an answer: no stapled response, or no CRL covering the leaf, then fails.
public struct RevocationTrustEvaluator: ServerTrustEvaluating {
    /// Which revocation sources to consult.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from bits.
        ///
        /// - Parameter rawValue: the bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// CRLs from the configured CRL files (leaf certificate).
        public static let crl = Options(rawValue: 1 << 0)
        /// The stapled OCSP response.
        public static let ocsp = Options(rawValue: 1 << 1)
        /// Fail when a listed source has no answer, rather than only when it says revoked.
        public static let requirePositiveResponse = Options(rawValue: 1 << 2)
        /// Both sources: `[.crl, .ocsp]`.
        public static let any: Options = [.crl, .ocsp]
    }

    /// Whether default validation runs too.
    public let performDefaultValidation: Bool
    /// Whether the host name is checked.
    public let validateHost: Bool
    /// The sources consulted.
    public let options: Options

    /// Creates the evaluator.
    ///
    /// - Parameters:
    ///   - performDefaultValidation: also run ``DefaultTrustEvaluator``'s checks; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    ///   - options: sources; `.any` by default.
    public init(performDefaultValidation: Bool = true, validateHost: Bool = true, options: Options = .any) {
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.options = options
    }

    /// Checks revocation.
    ///
    /// - Throws: `.defaultEvaluationFailed`/`.hostValidationFailed` from default validation,
    ///   `.revocationCheckFailed` when a source says revoked or (with `.requirePositiveResponse`) says nothing.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {
        if performDefaultValidation {
            try trust.af.performDefaultValidation(forHost: host, validateHost: validateHost)
        } else if validateHost {
            try trust.af.performValidation(forHost: host)
        }
        let context = trust.context
        let required = options.contains(.requirePositiveResponse)
        let crl: CRLCheck = options.contains(.crl) && (required || !context.trustStore.crls.isEmpty) ? .leaf : .none
        let ocsp: OCSPStaplingPolicy = options.contains(.ocsp) ? (required ? .require : .ifPresent) : .ignore
        let result = context.evaluateRevocation(crlCheck: crl, ocsp: ocsp, validateHost: false)
        if !result.isTrusted {
            throw AFError.serverTrustEvaluationFailed(reason: .revocationCheckFailed(output: .init(host, trust, result), options: options))
        }
    }
}

/// Certificate pinning: the server's chain must contain one of `certificates` (compared as whole
/// DER encodings).
public struct PinnedCertificatesTrustEvaluator: ServerTrustEvaluating {
    /// The pinned certificates.
    public let certificates: [SecCertificate]
    /// Whether the pinned certificates are also the only trust anchors (so self-signed or private
    /// CA certificates validate).
    public let acceptSelfSignedCertificates: Bool
    /// Whether default validation runs too.
    public let performDefaultValidation: Bool
    /// Whether the host name is checked.
    public let validateHost: Bool

    /// Creates the evaluator. Unlike Alamofire there is no bundle to default to: load pins with
    /// ``SecCertificate/certificates(inFile:)`` or ``SecCertificate/certificates(inDirectory:)``.
    ///
    /// - Parameters:
    ///   - certificates: the pins.
    ///   - acceptSelfSignedCertificates: use the pins as the only anchors for default
    ///     validation; `false` by default.
    ///   - performDefaultValidation: validate the chain too; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    public init(
        certificates: [SecCertificate], acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true, validateHost: Bool = true
    ) {
        self.certificates = certificates
        self.acceptSelfSignedCertificates = acceptSelfSignedCertificates
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    /// Validates, then compares certificates.
    ///
    /// - Throws: `.noCertificatesFound`, a default or host validation reason, or `.certificatePinningFailed`.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {
        guard !certificates.isEmpty else { throw AFError.serverTrustEvaluationFailed(reason: .noCertificatesFound) }
        if performDefaultValidation {
            let anchors = acceptSelfSignedCertificates ? certificates : nil
            try trust.af.performDefaultValidation(forHost: host, validateHost: validateHost, anchors: anchors)
        } else if validateHost {
            try trust.af.performValidation(forHost: host)
        }
        let pinned = Set(certificates)
        guard trust.certificates.contains(where: pinned.contains) else {
            throw AFError.serverTrustEvaluationFailed(reason: .certificatePinningFailed(
                host: host, trust: trust, pinnedCertificates: certificates, serverCertificates: trust.certificates))
        }
    }
}

/// Public key pinning: one of the server chain's keys must be one of `keys` (compared as
/// SubjectPublicKeyInfo, as curl's `--pinnedpubkey` does).
public struct PublicKeysTrustEvaluator: ServerTrustEvaluating {
    /// The pinned keys.
    public let keys: [SecKey]
    /// Whether default validation runs too.
    public let performDefaultValidation: Bool
    /// Whether the host name is checked.
    public let validateHost: Bool

    /// Creates the evaluator. Load keys with ``SecKey/publicKeys(inFile:)``.
    ///
    /// - Parameters:
    ///   - keys: the pins.
    ///   - performDefaultValidation: validate the chain too; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    public init(keys: [SecKey], performDefaultValidation: Bool = true, validateHost: Bool = true) {
        self.keys = keys
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    /// Validates, then compares keys.
    ///
    /// - Throws: `.noPublicKeysFound`, a default or host validation reason, or `.publicKeyPinningFailed`.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {
        guard !keys.isEmpty else { throw AFError.serverTrustEvaluationFailed(reason: .noPublicKeysFound) }
        if performDefaultValidation {
            try trust.af.performDefaultValidation(forHost: host, validateHost: validateHost)
        } else if validateHost {
            try trust.af.performValidation(forHost: host)
        }
        let pinned = Set(keys)
        let serverKeys = trust.af.publicKeys
        guard serverKeys.contains(where: pinned.contains) else {
            throw AFError.serverTrustEvaluationFailed(reason: .publicKeyPinningFailed(
                host: host, trust: trust, pinnedKeys: keys, serverKeys: serverKeys))
        }
    }
}

/// Runs several evaluators in order; the first to throw refuses the server.
public struct CompositeTrustEvaluator: ServerTrustEvaluating {
    /// The evaluators, in order.
    public let evaluators: [any ServerTrustEvaluating]

    /// Creates the evaluator.
    ///
    /// - Parameter evaluators: run in order.
    public init(evaluators: [any ServerTrustEvaluating]) { self.evaluators = evaluators }

    /// Runs every evaluator.
    ///
    /// - Throws: the first evaluator's error.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {
        for evaluator in evaluators { try evaluator.evaluate(trust, forHost: host) }
    }
}

/// Accepts every server: no chain, date, host or revocation check at all.
///
/// **Never use in production.** Anyone on the network path can impersonate the server, read and
/// change every request and response, including credentials. For local development against
/// throwaway certificates only; prefer pinning the development certificate with
/// ``PinnedCertificatesTrustEvaluator`` and `acceptSelfSignedCertificates: true`.
public struct DisabledTrustEvaluator: ServerTrustEvaluating {
    /// Creates the evaluator.
    public init() {}

    /// Does nothing: every server is accepted.
    public func evaluate(_ trust: SecTrust, forHost host: String) throws {}
}
