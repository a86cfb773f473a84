import Testing
@testable import TLS

/// The pure halves of the strict profile, without certificates: DNS name syntax, the
/// public-suffix rule and the per-certificate rules over ``CertificateFacts``.
@Suite struct ProfileRulesTests {
    @Test(arguments: [
        ("example.com", true), ("a.b-c.example.com", true), ("xn--bcher-kva.example", true), ("EXAMPLE.com", true),
        ("*.example.com", true), ("*.com", true), ("localhost", true), ("1.example.com", true),
        ("under_score.example.com", false), ("*.under_score.com", false), ("space .example.com", false),
        ("w*.example.com", false), ("*w.example.com", false), ("a.*.example.com", false), ("**.example.com", false),
        ("ab--cd.example.com", false), ("XN--bcher-kva.example", true), ("a--b.example.com", true), ("*", false), ("*.", false), ("example.com.", false), (".example.com", false), ("a..example.com", false),
        ("-a.example.com", false), ("a-.example.com", false), ("bücher.example", false), ("", false),
        (String(repeating: "a", count: 64) + ".com", false), (String(repeating: "a", count: 63) + ".com", true),
        (Array(repeating: "abcdefghi", count: 26).joined(separator: "."), false),
    ])
    func dnsNameSyntax(_ name: String, _ valid: Bool) {
        #expect(DNSNameSyntax.isValidReference(name) == valid)
    }

    @Test(arguments: [
        ("*.com", true), ("*.uk", true), ("*.co.uk", true), ("*.CO.UK", true), ("*.github.io", false), ("*.com.au", true),
        ("*.example.com", false), ("*.example.co.uk", false), ("*.user.github.io", false), ("example.com", false), ("com", false),
        ("*.s3.amazonaws.com", false),
    ])
    func wildcardOnPublicSuffix(_ name: String, _ refused: Bool) {
        #expect(DNSNameSyntax.isWildcardOnPublicSuffix(name) == refused)
    }

    /// A wildcard on a private registry's suffix is a valid certificate name that identifies no host by itself.
    @Test(arguments: [
        ("x.s3.amazonaws.com", [SubjectAlternativeName.dnsName("*.s3.amazonaws.com")], true),
        ("s3.amazonaws.com", [.dnsName("*.s3.amazonaws.com"), .dnsName("s3.amazonaws.com")], false),
        ("x.s3.amazonaws.com", [.dnsName("*.s3.amazonaws.com"), .dnsName("x.s3.amazonaws.com")], false),
        ("x.github.io", [.dnsName("*.GitHub.io")], true),
        ("x.example.com", [.dnsName("*.example.com")], false),
    ])
    func privateSuffixWildcardIdentifiesNoHost(_ host: String, _ names: [SubjectAlternativeName], _ refused: Bool) {
        var leaf = ProfileRulesTests.good(depth: 0)
        leaf.subjectAlternativeNames = names
        #expect((ProfileRules.privateWildcardOnly(leaf, host: host) != nil) == refused)
    }

    /// Facts of a certificate that passes every rule, to change one field per row.
    static func good(depth: Int) -> CertificateFacts {
        var facts = CertificateFacts()
        facts.hasBasicConstraints = true
        facts.basicConstraintsCritical = true
        facts.isCA = depth > 0
        facts.hasKeyUsage = true
        facts.assertsKeyCertSign = depth > 0
        facts.hasExtendedKeyUsage = depth == 0
        facts.allowsServerAuth = depth == 0
        facts.hasAuthorityKeyIdentifier = true
        facts.hasSubjectKeyIdentifier = true
        facts.hasSubjectAlternativeName = depth == 0
        facts.subjectAlternativeNames = depth == 0 ? [.dnsName("example.com")] : []
        facts.commonNames = depth == 0 ? ["example.com"] : ["CA \(depth)"]
        facts.serialOctets = 16
        facts.key = .ec(curve: "prime256v1")
        facts.signatureFamily = .ecdsa
        facts.signatureDigest = "SHA256"
        return facts
    }

    /// One change at one depth of a leaf → CA → anchor chain, and the verdict.
    @Test(arguments: [
        ("nothing changed", 0, { @Sendable (_: inout CertificateFacts) in }, nil),
        ("RSA 3072", 0, { @Sendable in $0.key = .rsa(bits: 3072) }, nil),
        ("RSA 2040", 0, { $0.key = .rsa(bits: 2040) }, .weakKeyOrSignature),
        ("RSA 2049", 0, { $0.key = .rsa(bits: 2049) }, .unsupportedKey),
        ("brainpool", 1, { $0.key = .ec(curve: "brainpoolP256r1") }, .unsupportedKey),
        ("DSA", 0, { $0.key = .dsa }, .unsupportedKey),
        ("MD5", 0, { $0.signatureDigest = "MD5" }, .weakKeyOrSignature),
        ("SHA-224", 0, { $0.signatureDigest = "SHA224" }, .unsupportedSignatureAlgorithm),
        ("ECDSA with SHA-384 by a P-256 key", 0, { $0.signatureDigest = "SHA384" }, .unsupportedSignatureAlgorithm),
        ("RSA-PSS with SHA-512", 0, { $0.signatureFamily = .rsaPSS; $0.signatureDigest = "SHA512" }, nil),
        ("serial of 20 octets", 1, { $0.serialOctets = 20 }, nil),
        ("serial of 21 octets", 1, { $0.serialOctets = 21 }, .invalidSerialNumber),
        ("negative serial", 1, { $0.serialIsNegative = true }, .invalidSerialNumber),
        ("no AKI on the CA", 1, { $0.hasAuthorityKeyIdentifier = false }, .keyIdentifiers),
        ("no SKI on the CA", 1, { $0.hasSubjectKeyIdentifier = false }, .keyIdentifiers),
        ("no SKI on the leaf", 0, { $0.hasSubjectKeyIdentifier = false }, nil),
        ("CA basicConstraints not critical", 1, { $0.basicConstraintsCritical = false }, .basicConstraints),
        ("anchor with anything wrong", 2, { $0 = CertificateFacts() }, nil),
        ("IP SAN and its CN", 0, { $0.subjectAlternativeNames = [.ipAddress([10, 0, 0, 1])]; $0.commonNames = ["10.0.0.1"] }, nil),
        ("CN in another case", 0, { $0.commonNames = ["EXAMPLE.com"] }, .commonNameNotInSAN),
        ("IP SAN and its CN uncompressed", 0, {
            $0.subjectAlternativeNames = [.ipAddress([0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1])]
            $0.commonNames = ["2001:db8:0:0:0:0:0:1"]
        }, .commonNameNotInSAN),
        ("critical EKU on the leaf is judged before the chain", 0, { $0.extendedKeyUsageCritical = true }, nil),
        ("EKU on the root", 2, { $0.hasExtendedKeyUsage = true }, .extendedKeyUsage),
        ("root AKI without keyIdentifier", 2, {
            $0.isSelfIssued = true
            $0.namesItselfAsIssuer = true
            $0.hasAuthorityKeyIdentifierExtension = true
            $0.hasAuthorityKeyIdentifier = false
        }, .keyIdentifiers),
        ("root AKI naming another certificate", 2, { $0.isSelfIssued = true; $0.hasAuthorityKeyIdentifierExtension = true }, .keyIdentifiers),
        ("root AKI naming itself", 2, { $0.isSelfIssued = true; $0.namesItselfAsIssuer = true; $0.hasAuthorityKeyIdentifierExtension = true }, nil),
        ("root RSA 2052", 2, { $0.key = .rsa(bits: 2052) }, .unsupportedKey),
        ("CA nameConstraints with no subtree", 1, { $0.hasNameConstraints = true; $0.nameConstraintsEmpty = true }, .nameConstraintViolation),
        ("malformed AIA on the leaf", 0, { $0.hasAuthorityInfoAccess = true; $0.authorityInfoAccessMalformed = true }, .other),
        ("CA with an empty subject", 1, { $0.subjectIsEmpty = true }, .basicConstraints),
        ("two CNs, one outside", 0, { $0.commonNames = ["example.com", "other.com"] }, .commonNameNotInSAN),
        ("no CN, critical SAN", 0, { $0.commonNames = []; $0.subjectIsEmpty = true; $0.subjectAlternativeNameCritical = true }, nil),
        ("SAN with only an email", 0, { $0.subjectAlternativeNames = [.email("a@example.com")]; $0.commonNames = [] }, nil),
        ("empty SAN", 0, { $0.subjectAlternativeNames = [] }, .subjectAlternativeName),
    ] as [(String, Int, @Sendable (inout CertificateFacts) -> Void, TrustFailure.Reason?)])
    func chainRule(_ name: String, _ depth: Int, _ change: @Sendable (inout CertificateFacts) -> Void, _ expected: TrustFailure.Reason?) {
        var chain = (0...2).map(ProfileRulesTests.good)
        change(&chain[depth])
        let failure = ProfileRules.webPKIChain(chain, usage: .serverAuth)
        #expect(failure?.reason == expected, "\(name): \(String(describing: failure))")
        if expected != nil { #expect(failure?.depth == depth) }
    }

    /// ``ProfileRules/rfc5280Chain(_:)``: one row per RFC 5280 rule, leaf, CA and anchor at depths 0, 1 and 2.
    @Test(arguments: [
        ("a good chain", 0, { @Sendable (_: inout CertificateFacts) in }, nil),
        ("underscore without a name constraint", 0, { @Sendable (facts: inout CertificateFacts) in
            facts.subjectAlternativeNames = [.dnsName("a_b.example.com")]
        }, nil),
        ("zero serial", 0, { $0.serialIsZero = true }, .invalidSerialNumber),
        ("serial of 21 octets on the anchor", 2, { $0.serialOctets = 21 }, nil),
        ("no AKI on the leaf", 0, { $0.hasAuthorityKeyIdentifier = false }, .keyIdentifiers),
        ("no AKI on a self-signed leaf", 0, { $0.hasAuthorityKeyIdentifier = false; $0.isSelfSigned = true }, nil),
        ("no AKI on the anchor", 2, { $0.hasAuthorityKeyIdentifier = false }, nil),
        ("no SKI on the anchor", 2, { $0.hasSubjectKeyIdentifier = false }, .keyIdentifiers),
        ("anchor basicConstraints not critical", 2, { $0.basicConstraintsCritical = false }, .basicConstraints),
        ("anchor without basicConstraints", 2, { $0.hasBasicConstraints = false; $0.isCA = false }, .basicConstraints),
        ("CA with an empty subject", 1, { $0.subjectIsEmpty = true }, .basicConstraints),
        ("keyCertSign on a leaf that is not a CA", 0, { $0.assertsKeyCertSign = true }, .keyUsage),
        ("nameConstraints on a leaf", 0, { $0.hasNameConstraints = true; $0.nameConstraintsCritical = true }, .nameConstraintViolation),
        ("nameConstraints not critical", 1, { $0.hasNameConstraints = true; $0.permittedSubtrees = [.dnsName("example.com")] }, .nameConstraintViolation),
        ("policyConstraints not critical", 1, { $0.hasPolicyConstraints = true }, .other),
        ("policyConstraints critical", 1, { $0.hasPolicyConstraints = true; $0.policyConstraintsCritical = true }, nil),
        ("empty subject, SAN not critical", 0, { $0.subjectIsEmpty = true; $0.commonNames = [] }, .subjectAlternativeName),
        ("DNS constraint with a leading period", 1, constrained([.dnsName(".example.com")]), .nameConstraintViolation),
    ] as [(String, Int, @Sendable (inout CertificateFacts) -> Void, TrustFailure.Reason?)])
    func rfc5280ChainRule(_ name: String, _ depth: Int, _ change: @Sendable (inout CertificateFacts) -> Void, _ expected: TrustFailure.Reason?) {
        var chain = (0...2).map(ProfileRulesTests.good)
        change(&chain[depth])
        let failure = ProfileRules.rfc5280Chain(chain)
        #expect(failure?.reason == expected, "\(name): \(String(describing: failure))")
    }

    /// Name constraints on the leaf's names (``ProfileRules/constrainedNames(_:)``), under a CA at depth 1.
    @Test(arguments: [
        (SubjectAlternativeName.dnsName(".example.com"), [SubjectAlternativeName.dnsName("example.com")], [SubjectAlternativeName](), true),
        (.dnsName("a_b.example.com"), [.dnsName("example.com")], [], true),
        (.dnsName("www.example.com"), [.dnsName("example.com")], [], false),
        (.dnsName("*.example.com"), [], [.dnsName("bar.example.com")], true),
        (.dnsName("*.example.com"), [], [.dnsName("a.bar.example.com")], false),
        (.dnsName("*.example.com"), [], [.dnsName("other.test")], false),
        (.email("invalid@address@example.com"), [.email("example.com")], [], true),
        (.email("a b@example.com"), [.email("example.com")], [], true),
        (.email("user@example.com"), [.email("example.com")], [], false),
        (.email("invalid@address@example.com"), [.dnsName("example.com")], [], false),
        (.dnsName(".example.com"), [.email("example.com")], [], false),
    ])
    func constrainedNames(_ name: SubjectAlternativeName, _ permitted: [SubjectAlternativeName], _ excluded: [SubjectAlternativeName], _ refused: Bool) {
        var chain = (0...2).map(ProfileRulesTests.good)
        chain[0].subjectAlternativeNames = [name]
        chain[1].permittedSubtrees = permitted
        chain[1].excludedSubtrees = excluded
        #expect((ProfileRules.constrainedNames(chain) != nil) == refused, "\(name)")
    }

    @Test(arguments: [
        (TrustProfile.webPKI, ExtendedKeyUsage.serverAuth, (true, true, false, false), nil),
        (.webPKI, .serverAuth, (false, false, false, false), .extendedKeyUsage),
        (.rfc5280, .serverAuth, (false, false, false, false), nil),
        (.webPKI, .clientAuth, (true, true, false, false), .extendedKeyUsage),
        (.rfc5280, .clientAuth, (true, true, false, false), .extendedKeyUsage),
        (.webPKI, .serverAuth, (true, true, true, false), .caCertificateAsLeaf),
        (.webPKI, .serverAuth, (true, true, false, true), .extendedKeyUsage),
        (.rfc5280, .serverAuth, (true, true, false, true), nil),
        (.rfc5280, .serverAuth, (true, true, true, false), nil),
    ] as [(TrustProfile, ExtendedKeyUsage, (Bool, Bool, Bool, Bool), TrustFailure.Reason?)])
    func leafUse(_ profile: TrustProfile, _ usage: ExtendedKeyUsage, _ leaf: (eku: Bool, server: Bool, ca: Bool, any: Bool), _ expected: TrustFailure.Reason?) {
        var facts = CertificateFacts()
        facts.hasExtendedKeyUsage = leaf.eku
        facts.allowsServerAuth = leaf.server
        facts.isCA = leaf.ca
        facts.listsAnyExtendedKeyUsage = leaf.any
        #expect(ProfileRules.leafUse(facts, usage: usage, profile: profile)?.reason == expected)
    }
}

/// A change that gives a CA critical nameConstraints with these subtrees.
private func constrained(_ permitted: [SubjectAlternativeName], excluded: [SubjectAlternativeName] = []) -> @Sendable (inout CertificateFacts) -> Void {
    { @Sendable facts in
        facts.hasNameConstraints = true
        facts.nameConstraintsCritical = true
        facts.permittedSubtrees = permitted
        facts.excludedSubtrees = excluded
    }
}
