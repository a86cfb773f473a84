internal import COpenSSL
internal import Glibc

/// A certificate's status according to a verified OCSP response (RFC 6960 section 2.2).
public struct OCSPCertificateStatus: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable { case good, revoked, unknown }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// The responder knows the certificate and it is not revoked.
    public static let good = OCSPCertificateStatus(.good)
    /// The certificate is revoked.
    public static let revoked = OCSPCertificateStatus(.revoked)
    /// The responder does not know the certificate.
    public static let unknown = OCSPCertificateStatus(.unknown)

    /// `good`, `revoked` or `unknown`.
    public var description: String { base.rawValue }
}

/// The outcome of checking one OCSP response for one certificate.
public struct OCSPCheckResult: Sendable, CustomStringConvertible {
    /// The certificate's status, or `nil` when the response could not be used (see ``problem``).
    public let status: OCSPCertificateStatus?
    /// Why the response is unusable (always ``TrustFailure/Reason/revocationUnknown``), or `nil`.
    public let problem: TrustFailure?
    /// thisUpdate of the single response, in Unix seconds, when known.
    public let thisUpdate: Int64?
    /// nextUpdate of the single response, in Unix seconds, when present.
    public let nextUpdate: Int64?
    /// When the certificate was revoked, in Unix seconds, for a `revoked` status.
    public let revocationTime: Int64?

    /// `good`, `revoked`, `unknown` or the problem.
    public var description: String { status.map(\.description) ?? "unusable: \(problem.map(\.message) ?? "")" }

    static func unusable(_ message: String) -> OCSPCheckResult {
        OCSPCheckResult(
            status: nil, problem: TrustFailure(reason: .revocationUnknown, message: "OCSP: " + message, origin: .stapledOCSP),
            thisUpdate: nil, nextUpdate: nil, revocationTime: nil)
    }

    /// The failure this result means under `policy`, or `nil` when it is acceptable.
    ///
    /// - Parameter policy: ``OCSPStaplingPolicy/ifPresent`` fails only on a verified `revoked`;
    ///   ``OCSPStaplingPolicy/require`` also fails on anything that is not a verified `good`.
    public func failure(under policy: OCSPStaplingPolicy) -> TrustFailure? {
        if policy == .ignore { return nil }
        if status == .revoked {
            return TrustFailure(reason: .revoked, code: X509_V_ERR_CERT_REVOKED, message: "OCSP response says the certificate is revoked", depth: 0, origin: .stapledOCSP)
        }
        guard policy == .require, status != .good else { return nil }
        if let problem { return problem }
        return TrustFailure(reason: .revocationUnknown, code: X509_V_ERR_OCSP_CERT_UNKNOWN, message: "OCSP responder does not know the certificate", depth: 0, origin: .stapledOCSP)
    }
}

extension TrustStore {
    /// Allowed clock skew for OCSP thisUpdate/nextUpdate, in seconds (5 minutes, as `openssl ocsp`).
    public static let ocspClockSkew = 300

    /// Checks an OCSP response (for example the one a server stapled) for the leaf of `chain`.
    ///
    /// What is checked, in order:
    /// 1. the response decodes and its responseStatus is `successful`;
    /// 2. the BasicOCSPResponse signature verifies (`OCSP_basic_verify`): the signer is the leaf's
    ///    issuer, or a delegated responder certificate issued by it with the OCSPSigning EKU, and
    ///    the signer chains to an anchor of this store (intermediates taken from `chain`);
    /// 3. it contains a SingleResponse for the leaf's CertID (issuer name and key hash, serial;
    ///    SHA-1 or SHA-256 CertIDs);
    /// 4. thisUpdate is not in the future and nextUpdate, when present, not in the past, both with
    ///    ``ocspClockSkew`` tolerance.
    /// Nonces do not apply to stapled responses and are not checked.
    ///
    /// - Parameters:
    ///   - responseDER: the DER OCSPResponse.
    ///   - chain: the verified chain, leaf first; the leaf's issuer must be `chain[1]`.
    /// - Returns: the status, or why the response is unusable.
    public func checkOCSPResponse(_ responseDER: [UInt8], chain: [Certificate]) -> OCSPCheckResult {
        defer { _ = OpenSSLError.drain() }
        guard chain.count >= 2 else { return .unusable("no issuer certificate to check the response against") }
        let leaf = chain[0]
        let issuer = chain[1]
        guard let response = OpenSSLBytes.parseDER(responseDER, { cursor, length in d2i_OCSP_RESPONSE(nil, cursor, length) }, free: { OCSP_RESPONSE_free($0) }) else {
            return .unusable("response does not decode")
        }
        defer { OCSP_RESPONSE_free(response) }
        let responseStatus = OCSP_response_status(response)
        guard responseStatus == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            return .unusable("responseStatus \(String(cString: OCSP_response_status_str(Int(responseStatus))))")
        }
        guard let basic = OCSP_response_get1_basic(response) else { return .unusable("not a BasicOCSPResponse") }
        defer { OCSP_BASICRESP_free(basic) }

        guard let intermediates = lariat_sk_X509_new_null() else { preconditionFailure("allocation failed") }
        defer { lariat_sk_X509_pop_free(intermediates) }
        for certificate in chain.dropFirst() { _ = lariat_sk_X509_push_up_ref(intermediates, certificate.x509) }
        guard OCSP_basic_verify(basic, intermediates, store, 0) == 1 else {
            return .unusable("signature or signer does not verify: \(OpenSSLError.drain().map(\.message).joined(separator: "; "))")
        }

        for digest in [EVP_sha1(), EVP_sha256()] {
            guard let id = OCSP_cert_to_id(digest, leaf.x509, issuer.x509) else { continue }
            defer { OCSP_CERTID_free(id) }
            var status: Int32 = -1
            var reason: Int32 = -1
            var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
            var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
            var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
            guard OCSP_resp_find_status(basic, id, &status, &reason, &revoked, &thisUpdate, &nextUpdate) == 1 else { continue }
            guard OCSP_check_validity(thisUpdate, nextUpdate, TrustStore.ocspClockSkew, -1) == 1 else {
                return .unusable("response is not current (thisUpdate/nextUpdate)")
            }
            let mapped: OCSPCertificateStatus
            switch status {
            case V_OCSP_CERTSTATUS_GOOD: mapped = .good
            case V_OCSP_CERTSTATUS_REVOKED: mapped = .revoked
            default: mapped = .unknown
            }
            return OCSPCheckResult(
                status: mapped, problem: nil,
                thisUpdate: thisUpdate.map { Certificate.seconds(UnsafePointer($0)) },
                nextUpdate: nextUpdate.map { Certificate.seconds(UnsafePointer($0)) },
                revocationTime: revoked.map { Certificate.seconds(UnsafePointer($0)) })
        }
        return .unusable("response does not cover the certificate")
    }
}
