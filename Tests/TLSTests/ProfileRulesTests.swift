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
        ("*.com", true), ("*.uk", true), ("*.co.uk", true), ("*.CO.UK", true), ("*.github.io", true), ("*.com.au", true),
        ("*.example.com", false), ("*.example.co.uk", false), ("*.user.github.io", false), ("example.com", false), ("com", false),
    ])
    func wildcardOnPublicSuffix(_ name: String, _ refused: Bool) {
        #expect(DNSNameSyntax.isWildcardOnPublicSuffix(name) == refused)
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
        ("CN in another case", 0, { $0.commonNames = ["EXAMPLE.com"] }, nil),
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
