internal import COpenSSL

/// Why a certificate chain was not trusted: which check failed, OpenSSL's code and text,
/// and where in the chain.
///
/// Compare ``reason`` with the static members of ``Reason``; ``code`` keeps the exact
/// `X509_V_ERR_*` value for logs and for reasons without a named member (``Reason/other``).
public struct TrustFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The check that failed. A struct around a private enum so reasons can be added.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case expired, notYetValid, hostnameMismatch, untrustedRoot, selfSigned
            case incompleteChain, weakKeyOrSignature, revoked, revocationUnknown, other
            case extendedKeyUsage, caCertificateAsLeaf, keyUsage, basicConstraints, keyIdentifiers
            case subjectAlternativeName, invalidDNSName, commonNameNotInSAN, wildcardOnPublicSuffix
            case invalidSerialNumber, unsupportedKey, unsupportedSignatureAlgorithm
            case pathLengthExceeded, nameConstraintViolation, chainTooLong, malformedCertificate
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A certificate's notAfter lies in the past (`X509_V_ERR_CERT_HAS_EXPIRED`).
        public static let expired = Reason(.expired)
        /// A certificate's notBefore lies in the future (`X509_V_ERR_CERT_NOT_YET_VALID`).
        public static let notYetValid = Reason(.notYetValid)
        /// The leaf's subjectAltName entries do not cover the host or IP address, or the leaf has
        /// no subjectAltName at all (the subject CN is never consulted), or the two independent
        /// checks (OpenSSL's and ``HostnameMatcher``) disagreed.
        public static let hostnameMismatch = Reason(.hostnameMismatch)
        /// The chain ends in a root that is not a trust anchor (`SELF_SIGNED_CERT_IN_CHAIN`,
        /// `CERT_UNTRUSTED`, `CERT_REJECTED`, `UNABLE_TO_GET_ISSUER_CERT`).
        public static let untrustedRoot = Reason(.untrustedRoot)
        /// The leaf is self-signed and not itself a trust anchor (`DEPTH_ZERO_SELF_SIGNED_CERT`).
        public static let selfSigned = Reason(.selfSigned)
        /// The issuer of some certificate could not be found among the certificates the peer sent
        /// or the anchors (`UNABLE_TO_GET_ISSUER_CERT_LOCALLY`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`):
        /// usually a server that does not send its intermediate, or a root that is not trusted.
        public static let incompleteChain = Reason(.incompleteChain)
        /// A key or signature algorithm is below the security level (`EE_KEY_TOO_SMALL`,
        /// `CA_KEY_TOO_SMALL`, `CA_MD_TOO_WEAK`): RSA under 2048 bits or SHA-1 at level 2; under
        /// ``TrustProfile/webPKI`` also at any level (RSA under 2048 bits, SHA-1 or MD5 signatures).
        public static let weakKeyOrSignature = Reason(.weakKeyOrSignature)
        /// A CRL or a verified OCSP response says the certificate is revoked.
        public static let revoked = Reason(.revoked)
        /// Revocation status was required but could not be established: CRL missing, stale or
        /// badly signed; OCSP response missing, stale, badly signed or answering "unknown".
        public static let revocationUnknown = Reason(.revocationUnknown)
        /// Any other verification error; see ``TrustFailure/code`` and ``TrustFailure/message``.
        public static let other = Reason(.other)

        /// The leaf's extendedKeyUsage does not list ``TrustPolicy/requiredUsage``, or (under
        /// ``TrustProfile/webPKI``) the leaf has no extendedKeyUsage at all; anyExtendedKeyUsage
        /// never counts.
        public static let extendedKeyUsage = Reason(.extendedKeyUsage)
        /// The leaf is a CA certificate (basicConstraints `cA: TRUE` or keyUsage keyCertSign);
        /// ``TrustProfile/webPKI`` only.
        public static let caCertificateAsLeaf = Reason(.caCertificateAsLeaf)
        /// A keyUsage or purpose does not allow the certificate's place in the chain: an issuer
        /// without keyCertSign, a leaf without digitalSignature (`INVALID_PURPOSE`,
        /// `KEYUSAGE_NO_CERTSIGN`, `CA_CERT_MISSING_KEY_USAGE`, ...).
        public static let keyUsage = Reason(.keyUsage)
        /// An issuer is not a CA, or its basicConstraints is missing or not critical, or a pathLen
        /// sits on a non-CA (`INVALID_CA`, `CA_BCONS_NOT_CRITICAL`, ...).
        public static let basicConstraints = Reason(.basicConstraints)
        /// authorityKeyIdentifier or subjectKeyIdentifier missing where RFC 5280 requires it, or
        /// marked critical (`MISSING_AUTHORITY_KEY_IDENTIFIER`, ...); ``TrustProfile/webPKI`` only.
        public static let keyIdentifiers = Reason(.keyIdentifiers)
        /// A server leaf without subjectAltName, with an empty one, or with an empty subject and a
        /// non-critical subjectAltName; ``TrustProfile/webPKI`` only.
        public static let subjectAlternativeName = Reason(.subjectAlternativeName)
        /// A dNSName in the leaf is not a host name (an underscore, a space, an empty label, a
        /// partial wildcard, ...); see ``DNSNameSyntax``. ``TrustProfile/webPKI`` only.
        public static let invalidDNSName = Reason(.invalidDNSName)
        /// A commonName in the leaf's subject is not one of its subjectAltName entries;
        /// ``TrustProfile/webPKI`` only.
        public static let commonNameNotInSAN = Reason(.commonNameNotInSAN)
        /// A wildcard dNSName sits directly on a public suffix (`*.com`, `*.co.uk`);
        /// ``TrustProfile/webPKI`` only.
        public static let wildcardOnPublicSuffix = Reason(.wildcardOnPublicSuffix)
        /// A serial number is zero, negative or longer than 20 octets; ``TrustProfile/webPKI`` only.
        public static let invalidSerialNumber = Reason(.invalidSerialNumber)
        /// A key type the Baseline Requirements do not allow: DSA, an RSA modulus that is not a
        /// multiple of 8 bits, a curve other than P-256/384/521, explicit EC parameters, Ed25519.
        public static let unsupportedKey = Reason(.unsupportedKey)
        /// A signature algorithm outside RSA PKCS#1 v1.5, RSA-PSS and ECDSA with SHA-256/384/512,
        /// or an ECDSA digest that does not match the issuer's curve.
        public static let unsupportedSignatureAlgorithm = Reason(.unsupportedSignatureAlgorithm)
        /// A CA's pathLenConstraint allows fewer CAs below it than the chain has (`PATH_LENGTH_EXCEEDED`).
        public static let pathLengthExceeded = Reason(.pathLengthExceeded)
        /// A name in a certificate falls outside a CA's permitted subtrees or inside its excluded
        /// ones, or a constraint cannot be processed (`PERMITTED_VIOLATION`, `EXCLUDED_VIOLATION`, ...).
        public static let nameConstraintViolation = Reason(.nameConstraintViolation)
        /// The chain needs more intermediates than ``TrustPolicy/maximumChainDepth``
        /// (`CERT_CHAIN_TOO_LONG`), or the peer sent more certificates than
        /// ``TrustPolicy/maximumPresentedCertificates``.
        public static let chainTooLong = Reason(.chainTooLong)
        /// A certificate is malformed in a way the strict parser refuses: extensions in a v1/v2
        /// certificate, an empty issuer, inner and outer signature algorithms that differ, a
        /// critical extension nobody understands.
        public static let malformedCertificate = Reason(.malformedCertificate)

        /// The reason's name, such as `expired`.
        public var description: String { base.rawValue }
    }

    /// Which part of the evaluation found a failure: the chain (OpenSSL's verification, CRLs and
    /// the host cross-check) or the stapled OCSP response. curl reports the two differently (60
    /// and, under `--cert-status`, 91), and a revoked certificate can be reported by either.
    public struct Origin: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable { case chain, stapledOCSP }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The chain evaluation: building, signatures, validity, security level, CRLs, host name.
        public static let chain = Origin(.chain)
        /// The check of the server's stapled OCSP response (missing, unusable, `unknown` or `revoked`).
        public static let stapledOCSP = Origin(.stapledOCSP)

        /// `chain` or `stapledOCSP`.
        public var description: String { base.rawValue }
    }

    /// The check that failed.
    public let reason: Reason

    /// Where the failure was found; ``Origin/chain`` unless the stapled OCSP response decided.
    public let origin: Origin

    /// The `X509_V_ERR_*` code OpenSSL reported, or `0` when the failure was found by Swift code
    /// (the hostname cross-check, an OCSP verdict).
    public let code: Int32

    /// OpenSSL's text for ``code`` or our own explanation.
    public let message: String

    /// Position in the chain of the certificate that failed, 0 for the leaf; `nil` when the
    /// failure is not tied to one certificate.
    public let depth: Int?

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - reason: the check that failed.
    ///   - code: the `X509_V_ERR_*` code, `0` when none applies.
    ///   - message: a human-readable explanation.
    ///   - depth: chain position (0 = leaf) of the offending certificate, `nil` when not applicable.
    ///   - origin: the check that found it, ``Origin/chain`` by default.
    public init(reason: Reason, code: Int32 = 0, message: String, depth: Int? = nil, origin: Origin = .chain) {
        self.reason = reason
        self.origin = origin
        self.code = code
        self.message = message
        self.depth = depth
    }

    /// `reason (code N at depth D): message`.
    public var description: String {
        var text = "\(reason)"
        if code != 0 { text += " (X509_V_ERR \(code)" + (depth.map { " at depth \($0)" } ?? "") + ")" }
        return text + ": " + message
    }

    /// Maps an `X509_V_ERR_*` code to a failure, keeping OpenSSL's text.
    ///
    /// - Parameters:
    ///   - code: the verification error code; must not be `X509_V_OK`.
    ///   - depth: chain position reported by `X509_STORE_CTX_get_error_depth`.
    static func fromVerifyCode(_ code: Int32, depth: Int?) -> TrustFailure {
        let message = String(cString: X509_verify_cert_error_string(Int(code)))
        return TrustFailure(reason: reason(forVerifyCode: code), code: code, message: message, depth: depth)
    }

    /// The named reason for an `X509_V_ERR_*` code; codes without a name map to ``Reason/other``.
    static func reason(forVerifyCode code: Int32) -> Reason {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .hostnameMismatch
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return .selfSigned
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            return .untrustedRoot
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .incompleteChain
        case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL, X509_V_ERR_CA_MD_TOO_WEAK:
            return .weakKeyOrSignature
        case X509_V_ERR_CERT_REVOKED:
            return .revoked
        case X509_V_ERR_INVALID_PURPOSE, X509_V_ERR_KEYUSAGE_NO_CERTSIGN, X509_V_ERR_KEYUSAGE_NO_DIGITAL_SIGNATURE,
            X509_V_ERR_CA_CERT_MISSING_KEY_USAGE, X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN,
            X509_V_ERR_KU_KEY_CERT_SIGN_INVALID_FOR_NON_CA:
            return .keyUsage
        case X509_V_ERR_INVALID_CA, X509_V_ERR_INVALID_NON_CA, X509_V_ERR_CA_BCONS_NOT_CRITICAL, X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA:
            return .basicConstraints
        case X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER, X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER,
            X509_V_ERR_AUTHORITY_KEY_IDENTIFIER_CRITICAL, X509_V_ERR_SUBJECT_KEY_IDENTIFIER_CRITICAL:
            return .keyIdentifiers
        case X509_V_ERR_EMPTY_SUBJECT_ALT_NAME, X509_V_ERR_EMPTY_SUBJECT_SAN_NOT_CRITICAL:
            return .subjectAlternativeName
        case X509_V_ERR_EC_KEY_EXPLICIT_PARAMS:
            return .unsupportedKey
        case X509_V_ERR_UNSUPPORTED_SIGNATURE_ALGORITHM, X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH:
            return .unsupportedSignatureAlgorithm
        case X509_V_ERR_PATH_LENGTH_EXCEEDED:
            return .pathLengthExceeded
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION, X509_V_ERR_SUBTREE_MINMAX,
            X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX, X509_V_ERR_UNSUPPORTED_NAME_SYNTAX:
            return .nameConstraintViolation
        case X509_V_ERR_CERT_CHAIN_TOO_LONG:
            return .chainTooLong
        case X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3, X509_V_ERR_ISSUER_NAME_EMPTY, X509_V_ERR_SUBJECT_NAME_EMPTY,
            X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY, X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, X509_V_ERR_INVALID_EXTENSION,
            X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
            return .malformedCertificate
        case X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_CRL_NOT_YET_VALID, X509_V_ERR_CRL_HAS_EXPIRED,
            X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE, X509_V_ERR_CRL_SIGNATURE_FAILURE,
            X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER, X509_V_ERR_DIFFERENT_CRL_SCOPE,
            X509_V_ERR_OCSP_VERIFY_NEEDED, X509_V_ERR_OCSP_VERIFY_FAILED, X509_V_ERR_OCSP_CERT_UNKNOWN:
            return .revocationUnknown
        default:
            return .other
        }
    }
}
