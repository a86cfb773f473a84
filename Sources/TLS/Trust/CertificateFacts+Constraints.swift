internal import COpenSSL

extension CertificateFacts {
    /// Reads the extensions the profile rules judge by presence and criticality: AKI, EKU,
    /// nameConstraints (with its subtrees), policyConstraints and authorityInfoAccess. The
    /// decoded structures are read only through the typed accessors of `COpenSSL/shim.h`.
    mutating func readConstraintExtensions(_ x509: OpaquePointer) {
        hasAuthorityKeyIdentifierExtension = CertificateFacts.extensionState(x509, NID_authority_key_identifier).present
        namesItselfAsIssuer = X509_check_issued(x509, x509) == X509_V_OK
        extendedKeyUsageCritical = CertificateFacts.extensionState(x509, NID_ext_key_usage).critical
        (hasPolicyConstraints, policyConstraintsCritical) = CertificateFacts.extensionState(x509, NID_policy_constraints)
        (hasNameConstraints, nameConstraintsCritical) = CertificateFacts.extensionState(x509, NID_name_constraints)
        if hasNameConstraints { readNameConstraints(x509) }
        hasAuthorityInfoAccess = CertificateFacts.extensionState(x509, NID_info_access).present
        if hasAuthorityInfoAccess {
            if let access = lariat_X509_get_info_access(x509) {
                authorityInfoAccessMalformed = lariat_AUTHORITY_INFO_ACCESS_count(access) < 1
                AUTHORITY_INFO_ACCESS_free(access)
            } else {
                authorityInfoAccessMalformed = true
            }
        }
    }

    private mutating func readNameConstraints(_ x509: OpaquePointer) {
        guard let constraints = lariat_X509_get_name_constraints(x509) else {
            nameConstraintsEmpty = true
            return
        }
        defer { NAME_CONSTRAINTS_free(constraints) }
        let permitted = lariat_NAME_CONSTRAINTS_count(constraints, 0)
        let excluded = lariat_NAME_CONSTRAINTS_count(constraints, 1)
        nameConstraintsEmpty = permitted < 1 && excluded < 1
        permittedSubtrees = (0..<max(0, permitted)).map { CertificateFacts.name(lariat_NAME_CONSTRAINTS_base(constraints, 0, $0)) }
        excludedSubtrees = (0..<max(0, excluded)).map { CertificateFacts.name(lariat_NAME_CONSTRAINTS_base(constraints, 1, $0)) }
    }

    /// One GeneralName of a subtree, read as ``SubjectAlternativeName`` reads SANs
    /// (``OpenSSLAccessors/generalName(_:)``).
    private static func name(_ name: UnsafePointer<GENERAL_NAME>?) -> SubjectAlternativeName {
        guard let name else { return .other(tag: -1) }
        return OpenSSLAccessors.generalName(name)
    }

    /// Whether `certificate`'s subject and issuer names are equal.
    static func selfIssued(_ certificate: Certificate) -> Bool {
        X509_NAME_cmp(X509_get_issuer_name(certificate.x509), X509_get_subject_name(certificate.x509)) == 0
    }

    /// Whether the extension `nid` is present, and whether it is marked critical.
    static func extensionState(_ x509: OpaquePointer, _ nid: Int32) -> (present: Bool, critical: Bool) {
        let index = X509_get_ext_by_NID(x509, nid, -1)
        guard index >= 0, let ext = X509_get_ext(x509, index) else { return (false, false) }
        return (true, X509_EXTENSION_get_critical(ext) == 1)
    }
}
