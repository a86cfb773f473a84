internal import COpenSSL

/// What the strict profile needs to know about one certificate, read once from OpenSSL's
/// decoded form. A plain value, so the rules in ``ProfileRules`` are pure functions that table
/// tests can drive without minting certificates.
package struct CertificateFacts: Sendable, Hashable {
    /// The subject public key's algorithm and size.
    package enum Key: Sendable, Hashable {
        /// `rsaEncryption` with the modulus size in bits.
        case rsa(bits: Int)
        /// `id-ecPublicKey` on the named curve (OpenSSL's group name, such as `prime256v1`).
        case ec(curve: String)
        /// DSA, at any size.
        case dsa
        /// Anything else (RSA-PSS keys, Ed25519, ...), by OpenSSL's short name.
        case other(String)
    }

    /// The certificate's signature algorithm family.
    package enum SignatureFamily: Sendable, Hashable { case rsaPKCS1, rsaPSS, ecdsa, other(String) }

    /// basicConstraints is present.
    package var hasBasicConstraints = false
    /// basicConstraints is marked critical.
    package var basicConstraintsCritical = false
    /// basicConstraints says `cA: TRUE`.
    package var isCA = false
    /// keyUsage is present.
    package var hasKeyUsage = false
    /// keyUsage is present and asserts keyCertSign.
    package var assertsKeyCertSign = false
    /// extendedKeyUsage is present.
    package var hasExtendedKeyUsage = false
    /// The extension lists id-kp-serverAuth.
    package var allowsServerAuth = false
    /// The extension lists id-kp-clientAuth.
    package var allowsClientAuth = false
    /// The extension lists anyExtendedKeyUsage.
    package var listsAnyExtendedKeyUsage = false
    /// authorityKeyIdentifier is present.
    package var hasAuthorityKeyIdentifier = false
    /// subjectKeyIdentifier is present.
    package var hasSubjectKeyIdentifier = false
    /// The subject is an empty sequence of RDNs.
    package var subjectIsEmpty = false
    /// subjectAltName is present.
    package var hasSubjectAlternativeName = false
    /// subjectAltName is marked critical.
    package var subjectAlternativeNameCritical = false
    /// Every subjectAltName entry, in order.
    package var subjectAlternativeNames: [SubjectAlternativeName] = []
    /// Every commonName attribute of the subject, decoded as UTF-8.
    package var commonNames: [String] = []
    /// The serial number is negative.
    package var serialIsNegative = false
    /// The serial number is zero.
    package var serialIsZero = false
    /// Length of the serial number's DER contents octets (what RFC 5280's 20-octet limit counts).
    package var serialOctets = 1
    /// The subject public key.
    package var key: Key = .other("unknown")
    /// The signature algorithm family.
    package var signatureFamily: SignatureFamily = .other("unknown")
    /// The signature's digest (`SHA256`, `SHA1`, ...), empty when the algorithm has none.
    package var signatureDigest = ""
    /// Subject and issuer are the same name (a self-issued certificate, RFC 5280 section 6.1).
    package var isSelfIssued = false
    /// The signature verifies under the certificate's own key (as well as being self-issued).
    package var isSelfSigned = false
    /// authorityKeyIdentifier is present, with or without its keyIdentifier field
    /// (``hasAuthorityKeyIdentifier`` is the keyIdentifier field).
    package var hasAuthorityKeyIdentifierExtension = false
    /// The certificate names itself as its issuer, authorityKeyIdentifier included: each field
    /// of that extension that is present (keyIdentifier, authorityCertIssuer, serial) matches the
    /// certificate's own SKI, issuer and serial (`X509_check_issued(x, x)`).
    package var namesItselfAsIssuer = false
    /// extendedKeyUsage is marked critical.
    package var extendedKeyUsageCritical = false
    /// nameConstraints is present.
    package var hasNameConstraints = false
    /// nameConstraints is marked critical.
    package var nameConstraintsCritical = false
    /// nameConstraints has neither a permitted nor an excluded subtree (or does not decode).
    package var nameConstraintsEmpty = false
    /// The permitted subtrees' base names, in order.
    package var permittedSubtrees: [SubjectAlternativeName] = []
    /// The excluded subtrees' base names, in order.
    package var excludedSubtrees: [SubjectAlternativeName] = []
    /// policyConstraints is present.
    package var hasPolicyConstraints = false
    /// policyConstraints is marked critical.
    package var policyConstraintsCritical = false
    /// authorityInfoAccess is present.
    package var hasAuthorityInfoAccess = false
    /// authorityInfoAccess is present but does not decode to one or more access descriptions.
    package var authorityInfoAccessMalformed = false

    /// Facts with every flag at its zero value, for tests to fill in.
    package init() {}

    /// Reads the facts from `certificate`.
    package init(_ certificate: Certificate) {
        let x509 = certificate.x509
        let flags = X509_get_extension_flags(x509)
        hasBasicConstraints = flags & UInt32(EXFLAG_BCONS) != 0
        basicConstraintsCritical = flags & UInt32(EXFLAG_BCONS_CRITICAL) != 0
        isCA = flags & UInt32(EXFLAG_CA) != 0 && hasBasicConstraints
        hasKeyUsage = flags & UInt32(EXFLAG_KUSAGE) != 0
        assertsKeyCertSign = hasKeyUsage && X509_get_key_usage(x509) & UInt32(KU_KEY_CERT_SIGN) != 0
        hasExtendedKeyUsage = flags & UInt32(EXFLAG_XKUSAGE) != 0
        if hasExtendedKeyUsage {
            let usage = X509_get_extended_key_usage(x509)
            allowsServerAuth = usage & UInt32(XKU_SSL_SERVER) != 0
            allowsClientAuth = usage & UInt32(XKU_SSL_CLIENT) != 0
            listsAnyExtendedKeyUsage = usage & UInt32(XKU_ANYEKU) != 0
        }
        hasAuthorityKeyIdentifier = X509_get0_authority_key_id(x509) != nil
        hasSubjectKeyIdentifier = X509_get0_subject_key_id(x509) != nil
        let subject = X509_get_subject_name(x509)
        subjectIsEmpty = X509_NAME_entry_count(subject) == 0
        hasSubjectAlternativeName = X509_get_ext_by_NID(x509, NID_subject_alt_name, -1) >= 0
        subjectAlternativeNameCritical = flags & UInt32(EXFLAG_SAN_CRITICAL) != 0
        subjectAlternativeNames = certificate.subjectAlternativeNames
        commonNames = OpenSSLAccessors.commonNames(of: subject)
        readSerial(x509)
        key = CertificateFacts.key(X509_get0_pubkey(x509))
        readSignature(x509)
        isSelfIssued = X509_NAME_cmp(X509_get_issuer_name(x509), subject) == 0
        isSelfSigned = certificate.isSelfSigned
        readConstraintExtensions(x509)
        _ = OpenSSLError.drain()
    }

    private mutating func readSerial(_ x509: OpaquePointer) {
        guard let serial = X509_get0_serialNumber(x509) else { return }
        let magnitude = OpenSSLAccessors.bytes(of: serial).drop { $0 == 0 }
        serialIsNegative = ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER
        serialIsZero = magnitude.isEmpty
        // DER adds a leading 0x00 to a positive value whose top bit is set; two's complement of a
        // negative value may need one byte more or less, but negative serials are refused anyway.
        serialOctets = max(1, magnitude.count + (magnitude.first.map { $0 & 0x80 != 0 ? 1 : 0 } ?? 0))
    }

    private static func key(_ pkey: OpaquePointer?) -> Key {
        guard let pkey else { return .other("unreadable") }
        switch OpenSSLAccessors.keyKind(pkey) {
        case .rsa(let bits): return .rsa(bits: bits)
        case .dsa: return .dsa
        case .ec(let curve): return .ec(curve: curve ?? "explicit")
        case .other(let name): return .other(name)
        }
    }

    private mutating func readSignature(_ x509: OpaquePointer) {
        var digestNID: Int32 = 0
        var keyNID: Int32 = 0
        var securityBits: Int32 = 0
        var signatureFlags: UInt32 = 0
        let nid = X509_get_signature_nid(x509)
        guard X509_get_signature_info(x509, &digestNID, &keyNID, &securityBits, &signatureFlags) == 1 else {
            signatureFamily = .other(OpenSSLAccessors.shortName(nid: nid) ?? "nid \(nid)")
            return
        }
        signatureDigest = digestNID == NID_undef ? "" : (OpenSSLAccessors.shortName(nid: digestNID) ?? "")
        switch keyNID {
        case NID_rsaEncryption: signatureFamily = .rsaPKCS1
        case NID_rsassaPss: signatureFamily = .rsaPSS
        case NID_X9_62_id_ecPublicKey: signatureFamily = .ecdsa
        default: signatureFamily = .other(OpenSSLAccessors.shortName(nid: nid) ?? "nid \(nid)")
        }
    }
}
