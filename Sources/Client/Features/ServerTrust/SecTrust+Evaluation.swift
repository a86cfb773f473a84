// Alamofire's `trust.af.perform…Validation` helpers and the leading-dot evaluator factories.

import FoundationEssentials
import TLS

extension AlamofireExtension where ExtendedType == SecTrust {
    /// Default validation (chain, dates, security level, configured CRL/OCSP policies) with or
    /// without the host check.
    ///
    /// - Parameters:
    ///   - host: the host, for the error.
    ///   - validateHost: check the host name too; `true` by default.
    ///   - anchors: when set, these certificates are the only trust anchors (any of them may end
    ///     the chain, self-signed or not); `nil` (the default) uses the session's trust roots.
    /// - Throws: `.hostValidationFailed` for a host mismatch, otherwise `.defaultEvaluationFailed`.
    public func performDefaultValidation(forHost host: String, validateHost: Bool = true, anchors: [SecCertificate]? = nil) throws {
        let context = type.context
        let result = anchors.map { context.evaluate(anchors: $0.map(\.certificate), validateHost: validateHost) }
            ?? context.evaluateDefault(validateHost: validateHost)
        guard let failure = result.failure else { return }
        let output = AFError.ServerTrustFailureReason.Output(host, type, result)
        if failure.reason == .hostnameMismatch {
            throw AFError.serverTrustEvaluationFailed(reason: .hostValidationFailed(output: output))
        }
        throw AFError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(output: output))
    }

    /// The host check alone: the leaf's DNS or IP subject alternative names must match `host`
    /// (RFC 6125 wildcards; the subject CN is never used).
    ///
    /// - Parameter host: the host name or IP literal.
    /// - Throws: `.hostValidationFailed`.
    public func performValidation(forHost host: String) throws {
        let names = type.context.peerCertificates.first?.subjectAlternativeNames ?? []
        guard !HostnameMatcher.matches(host: host, subjectAlternativeNames: names) else { return }
        let failure = TrustFailure(reason: .hostnameMismatch, message: "the certificate does not match \(host)", depth: 0)
        let result = TrustResult(failure: failure, verifiedChain: [], openSSLCode: 0)
        throw AFError.serverTrustEvaluationFailed(reason: .hostValidationFailed(output: .init(host, type, result)))
    }
}

extension ServerTrustEvaluating where Self == DefaultTrustEvaluator {
    /// `DefaultTrustEvaluator()`.
    public static var defaultEvaluator: DefaultTrustEvaluator { DefaultTrustEvaluator() }

    /// `DefaultTrustEvaluator(validateHost:)`.
    ///
    /// - Parameter validateHost: check the host name.
    /// - Returns: the evaluator.
    public static func defaultEvaluator(validateHost: Bool) -> DefaultTrustEvaluator { DefaultTrustEvaluator(validateHost: validateHost) }
}

extension ServerTrustEvaluating where Self == RevocationTrustEvaluator {
    /// `RevocationTrustEvaluator()`.
    public static var revocationChecking: RevocationTrustEvaluator { RevocationTrustEvaluator() }

    /// `RevocationTrustEvaluator(performDefaultValidation:validateHost:options:)`.
    ///
    /// - Parameters:
    ///   - performDefaultValidation: also run default validation; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    ///   - options: sources; `.any` by default.
    /// - Returns: the evaluator.
    public static func revocationChecking(
        performDefaultValidation: Bool = true, validateHost: Bool = true, options: RevocationTrustEvaluator.Options = .any
    ) -> RevocationTrustEvaluator {
        RevocationTrustEvaluator(performDefaultValidation: performDefaultValidation, validateHost: validateHost, options: options)
    }
}

extension ServerTrustEvaluating where Self == PinnedCertificatesTrustEvaluator {
    /// `PinnedCertificatesTrustEvaluator(certificates:acceptSelfSignedCertificates:performDefaultValidation:validateHost:)`.
    ///
    /// - Parameters:
    ///   - certificates: the pins.
    ///   - acceptSelfSignedCertificates: pins are the only anchors; `false` by default.
    ///   - performDefaultValidation: validate the chain too; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    /// - Returns: the evaluator.
    public static func pinnedCertificates(
        certificates: [SecCertificate], acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true, validateHost: Bool = true
    ) -> PinnedCertificatesTrustEvaluator {
        PinnedCertificatesTrustEvaluator(
            certificates: certificates, acceptSelfSignedCertificates: acceptSelfSignedCertificates,
            performDefaultValidation: performDefaultValidation, validateHost: validateHost)
    }
}

extension ServerTrustEvaluating where Self == PublicKeysTrustEvaluator {
    /// `PublicKeysTrustEvaluator(keys:performDefaultValidation:validateHost:)`.
    ///
    /// - Parameters:
    ///   - keys: the pins.
    ///   - performDefaultValidation: validate the chain too; `true` by default.
    ///   - validateHost: check the host name; `true` by default.
    /// - Returns: the evaluator.
    public static func publicKeys(keys: [SecKey], performDefaultValidation: Bool = true, validateHost: Bool = true) -> PublicKeysTrustEvaluator {
        PublicKeysTrustEvaluator(keys: keys, performDefaultValidation: performDefaultValidation, validateHost: validateHost)
    }
}

extension ServerTrustEvaluating where Self == CompositeTrustEvaluator {
    /// `CompositeTrustEvaluator(evaluators:)`.
    ///
    /// - Parameter evaluators: run in order.
    /// - Returns: the evaluator.
    public static func composite(evaluators: [any ServerTrustEvaluating]) -> CompositeTrustEvaluator {
        CompositeTrustEvaluator(evaluators: evaluators)
    }
}

extension ServerTrustEvaluating where Self == DisabledTrustEvaluator {
    /// `DisabledTrustEvaluator()`: accepts every server. **Never use in production.**
    public static var disabled: DisabledTrustEvaluator { DisabledTrustEvaluator() }
}
