/// The checks of ``TrustProfile`` that OpenSSL does not make, as pure functions over
/// ``CertificateFacts``. Each returns the first failure it finds, `nil` when the input passes.
package enum ProfileRules {
    /// Checks made on the leaf before any chain is built: is it a certificate for this use at all?
    ///
    /// - Parameters:
    ///   - leaf: the leaf's facts.
    ///   - usage: the extended key usage required.
    ///   - profile: the profile in force.
    package static func leafUse(_ leaf: CertificateFacts, usage: ExtendedKeyUsage, profile: TrustProfile) -> TrustFailure? {
        let allowed = usage == .serverAuth ? leaf.allowsServerAuth : leaf.allowsClientAuth
        if leaf.hasExtendedKeyUsage && !allowed {
            return failure(.extendedKeyUsage, "the leaf's extendedKeyUsage does not include \(usage)", depth: 0)
        }
        guard profile == .webPKI else { return nil }
        if !leaf.hasExtendedKeyUsage {
            return failure(.extendedKeyUsage, "the leaf has no extendedKeyUsage; \(usage) must be listed", depth: 0)
        }
        if leaf.extendedKeyUsageCritical {
            return failure(.extendedKeyUsage, "the leaf's extendedKeyUsage is critical (Baseline Requirements 7.1.2.7.6)", depth: 0)
        }
        if leaf.listsAnyExtendedKeyUsage {
            return failure(.extendedKeyUsage, "the leaf lists anyExtendedKeyUsage (Baseline Requirements 7.1.2.7.10)", depth: 0)
        }
        if leaf.isCA || leaf.assertsKeyCertSign {
            return failure(.caCertificateAsLeaf, "the leaf is a CA certificate (cA: TRUE or keyCertSign)", depth: 0)
        }
        return nil
    }

    /// Checks on the chain OpenSSL built and verified, leaf first; the last certificate is the
    /// trust anchor, whose own properties are the store's business and are not checked.
    ///
    /// - Parameters:
    ///   - chain: the verified chain's facts, leaf first, anchor last.
    ///   - usage: the extended key usage required (server-certificate rules apply to `serverAuth`).
    ///   - host: the host being verified, if any (a wildcard on a private registry's suffix does not identify it).
    package static func webPKIChain(_ chain: [CertificateFacts], usage: ExtendedKeyUsage, host: String? = nil) -> TrustFailure? {
        for depth in chain.indices.dropLast() {
            let facts = chain[depth]
            if let failure = serial(facts, depth: depth) ?? key(facts, depth: depth)
                ?? signature(facts, issuer: chain[depth + 1], depth: depth) {
                return failure
            }
            if !facts.hasAuthorityKeyIdentifier {
                return failure(.keyIdentifiers, "no authorityKeyIdentifier (RFC 5280 section 4.2.1.1)", depth: depth)
            }
            guard depth > 0 else { continue }
            if !facts.hasBasicConstraints || !facts.basicConstraintsCritical || !facts.isCA {
                return failure(.basicConstraints, "an issuer without a critical basicConstraints cA: TRUE", depth: depth)
            }
            if !facts.hasSubjectKeyIdentifier {
                return failure(.keyIdentifiers, "a CA without subjectKeyIdentifier (RFC 5280 section 4.2.1.2)", depth: depth)
            }
        }
        if let failure = webPKIStructure(chain) ?? constrainedNames(chain) { return failure }
        guard usage == .serverAuth, let leaf = chain.first else { return nil }
        return serverNames(leaf) ?? host.flatMap { privateWildcardOnly(leaf, host: $0) }
    }

    /// A host that only a wildcard on a private registry's suffix (`*.github.io`) matches is not identified by it.
    static func privateWildcardOnly(_ leaf: CertificateFacts, host: String) -> TrustFailure? {
        let names = leaf.subjectAlternativeNames
        let others = names.filter { name in
            if case .dnsName(let dns) = name { return !DNSNameSyntax.isWildcardOnPrivateSuffix(dns) }
            return true
        }
        guard others.count < names.count, !HostnameMatcher.matches(host: host, subjectAlternativeNames: others),
            HostnameMatcher.matches(host: host, subjectAlternativeNames: names)
        else { return nil }
        return failure(.wildcardOnPublicSuffix, "only a wildcard on a private registry's suffix matches \(host)", depth: 0)
    }

    /// The Baseline Requirements' rules on extensions that OpenSSL does not read: the root's
    /// (7.1.2.1: no extKeyUsage, an authorityKeyIdentifier with its keyIdentifier naming the root
    /// itself, an RSA modulus in whole bytes), nameConstraints with at least one subtree (7.1.2.5.2), and an
    /// authorityInfoAccess with at least one access description (7.1.2.7.7).
    static func webPKIStructure(_ chain: [CertificateFacts]) -> TrustFailure? {
        guard let anchor = chain.last, chain.count > 1 else { return nil }
        let anchorDepth = chain.count - 1
        if anchor.hasExtendedKeyUsage {
            return failure(.extendedKeyUsage, "the root has extKeyUsage (Baseline Requirements 7.1.2.1.2)", depth: anchorDepth)
        }
        // A root's AKI must carry keyIdentifier and name the root itself. Real roots (Go Daddy and
        // Starfield Class 2, QuoVadis Root CA 2 and 3, Certigna) add their own name and serial:
        // accepted, since they still name themselves.
        if anchor.isSelfIssued && anchor.hasAuthorityKeyIdentifierExtension
            && (!anchor.hasAuthorityKeyIdentifier || !anchor.namesItselfAsIssuer) {
            let message = "the root's authorityKeyIdentifier lacks keyIdentifier or names another certificate (Baseline Requirements 7.1.2.1.3)"
            return failure(.keyIdentifiers, message, depth: anchorDepth)
        }
        if case .rsa(let bits) = anchor.key, bits % 8 != 0 {
            return failure(.unsupportedKey, "the root's RSA modulus of \(bits) bits is not a multiple of 8", depth: anchorDepth)
        }
        for (depth, facts) in chain.enumerated() {
            if depth > 0 && facts.subjectIsEmpty {
                return failure(.basicConstraints, "a CA with an empty subject (RFC 5280 section 4.1.2.6)", depth: depth)
            }
            if facts.hasNameConstraints && facts.nameConstraintsEmpty {
                return failure(.nameConstraintViolation, "nameConstraints with no subtree (Baseline Requirements 7.1.2.5.2)", depth: depth)
            }
            if depth < anchorDepth && facts.authorityInfoAccessMalformed {
                return failure(.other, "malformed authorityInfoAccess (Baseline Requirements 7.1.2.7.7)", depth: depth)
            }
        }
        return nil
    }

    /// RFC 5280 section 4.1.2.2: a positive integer of at most 20 octets.
    static func serial(_ facts: CertificateFacts, depth: Int) -> TrustFailure? {
        if facts.serialIsNegative || facts.serialIsZero {
            return failure(.invalidSerialNumber, "serial number is not positive", depth: depth)
        }
        if facts.serialOctets > 20 {
            return failure(.invalidSerialNumber, "serial number is \(facts.serialOctets) octets, more than 20", depth: depth)
        }
        return nil
    }

    /// Baseline Requirements 6.1.5 and 7.1.3.1: RSA of 2048 bits or more in whole bytes, or ECDSA on a NIST curve.
    static func key(_ facts: CertificateFacts, depth: Int) -> TrustFailure? {
        switch facts.key {
        case .rsa(let bits) where bits < 2048:
            return failure(.weakKeyOrSignature, "RSA key of \(bits) bits, fewer than 2048", depth: depth)
        case .rsa(let bits) where bits % 8 != 0:
            return failure(.unsupportedKey, "RSA modulus of \(bits) bits is not a multiple of 8", depth: depth)
        case .rsa:
            return nil
        case .ec(let curve) where allowedCurves[curve] != nil:
            return nil
        case .ec(let curve):
            return failure(.unsupportedKey, "EC key on \(curve), not P-256, P-384 or P-521", depth: depth)
        case .dsa:
            return failure(.unsupportedKey, "DSA key", depth: depth)
        case .other(let name):
            return failure(.unsupportedKey, "\(name) key", depth: depth)
        }
    }

    /// The curves the Baseline Requirements allow, with the digest each must be signed with.
    static let allowedCurves = ["prime256v1": "SHA256", "secp384r1": "SHA384", "secp521r1": "SHA512"]

    /// Baseline Requirements 7.1.3.2: RSA PKCS#1 v1.5 or PSS, or ECDSA, with SHA-256/384/512,
    /// ECDSA's digest matching the issuer's curve (P-256 with SHA-256, P-384 with SHA-384, as
    /// Mozilla's root store policy section 5.1 has required for years; P-521 with SHA-512).
    static func signature(_ facts: CertificateFacts, issuer: CertificateFacts, depth: Int) -> TrustFailure? {
        let digest = facts.signatureDigest
        if digest == "SHA1" || digest == "MD5" {
            return failure(.weakKeyOrSignature, "signed with \(digest)", depth: depth)
        }
        switch facts.signatureFamily {
        case .rsaPKCS1, .rsaPSS:
            guard ["SHA256", "SHA384", "SHA512"].contains(digest) else { break }
            return nil
        case .ecdsa:
            guard ["SHA256", "SHA384", "SHA512"].contains(digest) else { break }
            // An issuer key on another curve (or an anchor's odd key) is judged at its own depth.
            guard case .ec(let curve) = issuer.key, let expected = allowedCurves[curve] else { return nil }
            guard digest == expected else {
                return failure(.unsupportedSignatureAlgorithm, "ECDSA with \(digest) by a \(curve) key (needs \(expected))", depth: depth)
            }
            return nil
        case .other:
            break
        }
        let name = digest.isEmpty ? "\(facts.signatureFamily)" : "\(facts.signatureFamily) with \(digest)"
        return failure(.unsupportedSignatureAlgorithm, "signature algorithm \(name) is not allowed", depth: depth)
    }

    /// Baseline Requirements 7.1.2.7 and RFC 5280 section 4.2.1.6 on a server leaf's names.
    static func serverNames(_ leaf: CertificateFacts) -> TrustFailure? {
        guard leaf.hasSubjectAlternativeName, !leaf.subjectAlternativeNames.isEmpty else {
            return failure(.subjectAlternativeName, "a server certificate needs a subjectAltName", depth: 0)
        }
        if leaf.subjectIsEmpty && !leaf.subjectAlternativeNameCritical {
            return failure(.subjectAlternativeName, "the subject is empty and subjectAltName is not critical", depth: 0)
        }
        var dnsNames: [String] = []
        var addresses: [String] = []
        for name in leaf.subjectAlternativeNames {
            switch name {
            case .dnsName(let dns):
                guard DNSNameSyntax.isValidReference(dns) else {
                    return failure(.invalidDNSName, "DNS name \"\(dns)\" is not a valid host name or wildcard", depth: 0)
                }
                if DNSNameSyntax.isWildcardOnPublicSuffix(dns) {
                    return failure(.wildcardOnPublicSuffix, "wildcard \(dns) covers a public suffix", depth: 0)
                }
                dnsNames.append(dns)
            case .ipAddress(let bytes):
                if let address = IPAddress(bytes: bytes) { addresses.append(address.description) }
            default:
                continue
            }
        }
        // Baseline Requirements 7.1.4.3: a character-for-character copy of a dNSName, or an IP
        // address in its canonical text (dotted decimal, RFC 5952). Identity is never read from it.
        for commonName in leaf.commonNames where !dnsNames.contains(commonName) && !addresses.contains(commonName) {
            return failure(.commonNameNotInSAN, "CN \"\(commonName)\" is not a copy of a subjectAltName entry", depth: 0)
        }
        return nil
    }

    static func failure(_ reason: TrustFailure.Reason, _ message: String, depth: Int) -> TrustFailure {
        TrustFailure(reason: reason, message: message, depth: depth)
    }
}
