extension ProfileRules {
    /// RFC 5280's MUSTs on the certificates of a built chain that OpenSSL's default
    /// verification does not enforce, checked under ``TrustProfile/rfc5280``.
    ///
    /// - Serial numbers positive, non-zero and at most 20 octets (section 4.1.2.2), except the anchor's.
    /// - authorityKeyIdentifier's keyIdentifier in every certificate except a self-signed one
    ///   and the anchor (4.2.1.1; an anchor is trusted as a name and a key, section 6.1.1 (d),
    ///   and may be a cross-signed CA, as in CVE-2024-0567's shape).
    /// - Every CA certificate of the path, the anchor included, with a non-empty subject
    ///   (4.1.2.6), a critical basicConstraints `cA: TRUE` (4.2.1.9) and a subjectKeyIdentifier (4.2.1.2).
    /// - A leaf that is not a CA does not assert keyCertSign (4.2.1.9) nor carry nameConstraints
    ///   (4.2.1.10); a leaf with an empty subject has a critical subjectAltName (4.2.1.6).
    /// - nameConstraints and policyConstraints critical wherever they appear (4.2.1.10, 4.2.1.11).
    /// - Name constraints the way ``constrainedNames(_:)`` reads them.
    ///
    /// - Parameter chain: the verified chain's facts, leaf first, anchor last.
    package static func rfc5280Chain(_ chain: [CertificateFacts]) -> TrustFailure? {
        let anchorDepth = chain.count - 1
        for (depth, facts) in chain.enumerated() {
            let isAnchor = depth == anchorDepth && depth > 0
            if !isAnchor, let failure = serial(facts, depth: depth) { return failure }
            if !isAnchor, !facts.isSelfSigned, !facts.hasAuthorityKeyIdentifier {
                return failure(.keyIdentifiers, "no authorityKeyIdentifier keyIdentifier (RFC 5280 section 4.2.1.1)", depth: depth)
            }
            if depth > 0 {
                if facts.subjectIsEmpty {
                    return failure(.basicConstraints, "a CA with an empty subject (RFC 5280 section 4.1.2.6)", depth: depth)
                }
                if !facts.hasBasicConstraints || !facts.basicConstraintsCritical || !facts.isCA {
                    return failure(.basicConstraints, "a CA without a critical basicConstraints cA: TRUE (RFC 5280 section 4.2.1.9)", depth: depth)
                }
                if !facts.hasSubjectKeyIdentifier {
                    return failure(.keyIdentifiers, "a CA without subjectKeyIdentifier (RFC 5280 section 4.2.1.2)", depth: depth)
                }
            }
            if facts.hasNameConstraints && !facts.nameConstraintsCritical {
                return failure(.nameConstraintViolation, "nameConstraints not marked critical (RFC 5280 section 4.2.1.10)", depth: depth)
            }
            if facts.hasPolicyConstraints && !facts.policyConstraintsCritical {
                return failure(.other, "policyConstraints not marked critical (RFC 5280 section 4.2.1.11)", depth: depth)
            }
        }
        guard let leaf = chain.first else { return nil }
        if !leaf.isCA && leaf.assertsKeyCertSign {
            return failure(.keyUsage, "keyCertSign asserted by a certificate that is not a CA (RFC 5280 section 4.2.1.9)", depth: 0)
        }
        if !leaf.isCA && leaf.hasNameConstraints {
            return failure(.nameConstraintViolation, "nameConstraints in a certificate that is not a CA (RFC 5280 section 4.2.1.10)", depth: 0)
        }
        if leaf.subjectIsEmpty && leaf.hasSubjectAlternativeName && !leaf.subjectAlternativeNameCritical {
            return failure(.subjectAlternativeName, "the subject is empty and subjectAltName is not critical (RFC 5280 section 4.2.1.6)", depth: 0)
        }
        return constrainedNames(chain)
    }

    /// Name constraints beyond OpenSSL's matching, under both profiles, for every constraint of
    /// every CA above the leaf:
    ///
    /// - a `dNSName` constraint must itself be a host name (no leading period, which RFC 5280
    ///   allows for URIs only);
    /// - under any `dNSName` constraint each of the leaf's `dNSName`s must be a valid host name
    ///   or wildcard, under any `rfc822Name` constraint each `rfc822Name` a valid mailbox: a
    ///   malformed name is in no namespace, so it cannot be shown to be in the permitted one;
    /// - a wildcard `*.example.com` under an excluded `bar.example.com` is refused, since it
    ///   would match an excluded name (CVE-2025-61727).
    package static func constrainedNames(_ chain: [CertificateFacts]) -> TrustFailure? {
        guard let leaf = chain.first else { return nil }
        let constraints = chain.dropFirst()
        let all = constraints.flatMap { $0.permittedSubtrees + $0.excludedSubtrees }
        var constrainsDNS = false
        var constrainsEmail = false
        for name in all {
            switch name {
            case .dnsName(let base):
                constrainsDNS = true
                if !base.isEmpty && !DNSNameSyntax.isValidReference(base) || base.hasPrefix("*") {
                    return failure(.nameConstraintViolation, "dNSName constraint \"\(base)\" is not a host name", depth: 1)
                }
            case .email: constrainsEmail = true
            default: continue
            }
        }
        let excludedDNS = constraints.flatMap(\.excludedSubtrees).compactMap { name -> String? in
            if case .dnsName(let base) = name { return base.lowercased() }
            return nil
        }
        for name in leaf.subjectAlternativeNames {
            switch name {
            case .dnsName(let dns) where constrainsDNS:
                guard DNSNameSyntax.isValidReference(dns) else {
                    return failure(.nameConstraintViolation, "dNSName \"\(dns)\" under a name constraint is malformed", depth: 0)
                }
                guard dns.hasPrefix("*.") else { continue }
                let base = dns.dropFirst(2).lowercased()
                if let excluded = excludedDNS.first(where: { parent(of: $0) == base }) {
                    return failure(.nameConstraintViolation, "wildcard \(dns) covers the excluded \(excluded)", depth: 0)
                }
            case .email(let address) where constrainsEmail:
                guard isMailbox(address) else {
                    return failure(.nameConstraintViolation, "rfc822Name \"\(address)\" under a name constraint is malformed", depth: 0)
                }
            default:
                continue
            }
        }
        return nil
    }

    /// `example.com` for `bar.example.com`; `nil` for a single label.
    private static func parent(of name: String) -> String? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return String(name[name.index(after: dot)...])
    }

    /// RFC 5321 section 4.1.2 in its common form: one `@`, a non-empty local part without
    /// spaces, quotes or angle brackets, and a host name as domain.
    static func isMailbox(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, !local.isEmpty, local.utf8.count <= 64 else { return false }
        let forbidden: Set<UInt8> = [0x20, 0x22, 0x28, 0x29, 0x2C, 0x3A, 0x3B, 0x3C, 0x3E, 0x5B, 0x5C, 0x5D]
        guard local.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else { return false }
        return DNSNameSyntax.isValidReference(String(parts[1])) && !parts[1].hasPrefix("*")
    }
}
