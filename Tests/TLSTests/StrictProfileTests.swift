import Foundation
import Testing
@testable import TLS

/// One chain, the policy to evaluate it under, and the verdict: `nil` must be trusted.
struct ProfileCase: CustomTestStringConvertible, Sendable {
    let name: String
    let expected: TrustFailure.Reason?
    let chain: @Sendable () -> [Certificate]
    let anchors: @Sendable () -> [Certificate]
    let adjust: @Sendable (inout TrustPolicy) -> Void
    var testDescription: String { "\(name) → \(expected.map { "\($0)" } ?? "trusted")" }

    init(
        _ name: String, _ expected: TrustFailure.Reason?, _ chain: [String],
        anchors: [String] = ["root"],
        _ adjust: @escaping @Sendable (inout TrustPolicy) -> Void = { _ in }
    ) {
        self.init(name, expected, chain: { chain.map { StrictPKI.shared[$0] } }, anchors: anchors, adjust)
    }

    init(
        _ name: String, _ expected: TrustFailure.Reason?, chain: @escaping @Sendable () -> [Certificate],
        anchors: [String] = ["root"],
        _ adjust: @escaping @Sendable (inout TrustPolicy) -> Void = { _ in }
    ) {
        self.name = name
        self.expected = expected
        self.chain = chain
        // `pki.root` is the shared test PKI's root; other names are the strict PKI's.
        self.anchors = { anchors.map { $0 == "pki.root" ? PKI.shared.root.certificate : StrictPKI.shared[$0] } }
        self.adjust = adjust
    }

    /// The policy: host `strict.test`, ``TrustProfile/webPKI``, then the row's changes.
    var policy: TrustPolicy {
        var policy = TrustPolicy(host: "strict.test", profile: .webPKI)
        adjust(&policy)
        return policy
    }
}

/// The first second at which some certificate of the valid chain (leaf, CA, root) expires.
private var earliestNotAfter: Int64 { ["valid", "ca", "root"].map { StrictPKI.shared[$0].notAfter }.min()! }

private func rfc5280(_ policy: inout TrustPolicy) { policy.profile = .rfc5280 }
private func noHost(_ policy: inout TrustPolicy) { policy.host = nil }

/// Chains that must be trusted: a rule that refuses everything fails here.
let validProfileTable: [ProfileCase] = [
    ProfileCase("P-256 leaf under P-256 CA", nil, ["valid", "ca"]),
    ProfileCase("RSA 2048 leaf under RSA CA", nil, ["validRSA", "caRSA"]),
    ProfileCase("RSA-PSS signature with SHA-256", nil, ["validPSS", "caRSA"]),
    ProfileCase("P-384 CA signs with SHA-384", nil, ["valid384", "ca384"]),
    ProfileCase("wildcard leaf", nil, ["validWildcard", "ca"]) { $0.host = "www.strict.test" },
    ProfileCase("empty subject with critical SAN", nil, ["validEmptySubject", "ca"]),
    ProfileCase("IP SAN and the same IP as CN", nil, ["validIP", "ca"]) { $0.host = "127.0.0.1" },
    ProfileCase("client certificate for clientAuth", nil, ["validClient", "ca"]) { $0.host = nil; $0.requiredUsage = .clientAuth },
    ProfileCase("serial of exactly 20 octets", nil, ["validSerial20", "ca"]),
    ProfileCase("three intermediates out of order, an unrelated extra", nil,
                chain: { ["validLong", "caLong1", "newRoot", "caLong3", "ca", "caLong2"].map { StrictPKI.shared[$0] } }),
    ProfileCase("depth exactly at the limit", nil, ["validLong", "caLong3", "caLong2", "caLong1"]) { $0.maximumChainDepth = 3 },
    ProfileCase("cross-signed new root, old root trusted", nil, ["validUnderNewRoot", "caUnderNewRoot", "newRoot", "newRootCross"]),
    ProfileCase("cross-signed new root, new root trusted", nil, ["validUnderNewRoot", "caUnderNewRoot", "newRootCross"],
                anchors: ["newRoot"]),
    // Anchors are trusted as a name and a key; X509_STRICT's checks apply to what the peer sent.
    ProfileCase("anchor with the flaws of real legacy roots", nil, ["validUnderLegacy", "caUnderLegacy"], anchors: ["legacyRoot"]),
    ProfileCase("anchor whose AKI adds its own name and serial", nil, ["validUnderLegacyAKI", "caUnderLegacyAKI"], anchors: ["legacyAKIRoot"]),
    ProfileCase("inside a DNS name constraint", nil, ["validDNSConstrained", "caDNSConstrained"]) { $0.host = "www.allowed.test" },
    ProfileCase("shared test PKI chain", nil, chain: { [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate] },
                anchors: ["pki.root"]) { $0.host = "localhost" },
    // RFC 5280 section 4.1.2.5: valid through notAfter; OpenSSL alone calls this second expired.
    ProfileCase("at the notAfter second itself", nil, ["valid", "ca"]) { $0.verificationTime = earliestNotAfter },
    // rfc5280 accepts what only the Baseline Requirements forbid.
    ProfileCase("rfc5280: no EKU", nil, ["noEKU", "ca"], rfc5280),
    ProfileCase("rfc5280: serverAuth with anyExtendedKeyUsage", nil, ["serverAndAnyEKU", "ca"], rfc5280),
    ProfileCase("rfc5280: CN outside the SAN", nil, ["cnNotInSAN", "ca"], rfc5280),
    ProfileCase("rfc5280: underscore in a DNS name", nil, ["underscore", "ca"], rfc5280),
    ProfileCase("rfc5280: CA certificate as leaf", nil, ["caLeaf", "ca"], rfc5280),
]

/// One row per rule, each with the reason it must give.
let refusedProfileTable: [ProfileCase] = [
    ProfileCase("no extendedKeyUsage", .extendedKeyUsage, ["noEKU", "ca"]),
    ProfileCase("anyExtendedKeyUsage only", .extendedKeyUsage, ["anyEKU", "ca"]),
    ProfileCase("serverAuth with anyExtendedKeyUsage", .extendedKeyUsage, ["serverAndAnyEKU", "ca"]),
    ProfileCase("clientAuth only", .extendedKeyUsage, ["clientEKU", "ca"]),
    ProfileCase("rfc5280: clientAuth only", .extendedKeyUsage, ["clientEKU", "ca"], rfc5280),
    ProfileCase("server leaf where clientAuth is required", .extendedKeyUsage, ["valid", "ca"]) { $0.requiredUsage = .clientAuth },
    ProfileCase("CA certificate as leaf", .caCertificateAsLeaf, ["caLeaf", "ca"]),
    ProfileCase("CA basicConstraints not critical", .basicConstraints, ["underBasicNotCritical", "caBasicNotCritical"]),
    // RFC 5280's own MUSTs hold under rfc5280 too (trusted there before x509-limbo's rfc5280 cases).
    ProfileCase("rfc5280: negative serial", .invalidSerialNumber, ["negativeSerial", "ca"], rfc5280),
    ProfileCase("rfc5280: no authorityKeyIdentifier", .keyIdentifiers, ["noAKI", "ca"], rfc5280),
    ProfileCase("rfc5280: CA basicConstraints not critical", .basicConstraints, ["underBasicNotCritical", "caBasicNotCritical"], rfc5280),
    ProfileCase("issuer with cA: FALSE", .basicConstraints, ["underNotCA", "caNotCA"]),
    ProfileCase("rfc5280: issuer with cA: FALSE", .basicConstraints, ["underNotCA", "caNotCA"], rfc5280),
    ProfileCase("issuer without keyCertSign", .keyUsage, ["underNoCertSign", "caNoCertSign"]),
    ProfileCase("CA without subjectKeyIdentifier", .keyIdentifiers, ["underNoSKI", "caNoSKI"]),
    // OpenSSL's extension cache marks a critical AKI invalid (RFC 5280 4.2.1.1: MUST be non-critical).
    ProfileCase("CA with a critical authorityKeyIdentifier", .malformedCertificate, ["underAKICritical", "caAKICritical"]),
    ProfileCase("leaf without authorityKeyIdentifier", .keyIdentifiers, ["noAKI", "ca"]),
    ProfileCase("server leaf without SAN", .subjectAlternativeName, ["noSAN", "ca"], noHost),
    ProfileCase("server leaf without SAN, with a host", .hostnameMismatch, ["noSAN", "ca"]),
    ProfileCase("empty subject, SAN not critical", .subjectAlternativeName, ["emptySubjectSANNotCritical", "ca"]),
    ProfileCase("underscore in a DNS name", .invalidDNSName, ["underscore", "ca"]),
    ProfileCase("partial wildcard", .invalidDNSName, ["partialWildcard", "ca"]),
    ProfileCase("CN outside the SAN", .commonNameNotInSAN, ["cnNotInSAN", "ca"]),
    ProfileCase("wildcard on a top-level domain", .wildcardOnPublicSuffix, ["wildcardCom", "ca"], noHost),
    ProfileCase("wildcard on co.uk", .wildcardOnPublicSuffix, ["wildcardCoUK", "ca"], noHost),
    ProfileCase("negative serial", .invalidSerialNumber, ["negativeSerial", "ca"]),
    ProfileCase("zero serial", .invalidSerialNumber, ["zeroSerial", "ca"]),
    ProfileCase("21-octet serial", .invalidSerialNumber, ["longSerial", "ca"]),
    ProfileCase("DSA key", .unsupportedKey, ["dsa", "ca"]) { $0.securityLevel = 1 },
    ProfileCase("RSA modulus of 2052 bits", .unsupportedKey, ["rsa2052", "ca"]),
    ProfileCase("RSA 1024", .weakKeyOrSignature, ["rsa1024", "ca"]),
    ProfileCase("secp256k1 key", .unsupportedKey, ["secp256k1", "ca"]),
    ProfileCase("Ed25519 key", .unsupportedKey, ["ed25519Key", "ca"]),
    ProfileCase("P-384 CA signing with SHA-256", .unsupportedSignatureAlgorithm, ["sha256By384", "ca384"]),
    ProfileCase("Ed25519 signature", .unsupportedSignatureAlgorithm, ["signedByEd25519", "caEd25519"]),
    ProfileCase("pathLenConstraint 0 with a CA below", .pathLengthExceeded, ["underPathZero", "caBelowPathZero", "caPathZero"]),
    ProfileCase("rfc5280: pathLenConstraint 0 with a CA below", .pathLengthExceeded,
                ["underPathZero", "caBelowPathZero", "caPathZero"], rfc5280),
    ProfileCase("DNS name outside a permitted subtree", .nameConstraintViolation, ["outsideDNSConstraint", "caDNSConstrained"]),
    ProfileCase("rfc5280: DNS name outside a permitted subtree", .nameConstraintViolation,
                ["outsideDNSConstraint", "caDNSConstrained"], rfc5280),
    ProfileCase("IP outside a permitted subtree", .nameConstraintViolation, ["outsideIPConstraint", "caIPConstrained"]),
    ProfileCase("email inside an excluded subtree", .nameConstraintViolation, ["insideExcludedEmail", "caEmailConstrained"]),
    ProfileCase("directory name outside a permitted subtree", .nameConstraintViolation, ["outsideDirConstraint", "caDirConstrained"]),
    ProfileCase("one intermediate over the depth limit", .chainTooLong, ["validLong", "caLong3", "caLong2", "caLong1"]) {
        $0.maximumChainDepth = 2
    },
    ProfileCase("more certificates than allowed", .chainTooLong,
                chain: { [StrictPKI.shared["valid"]] + Array(repeating: StrictPKI.shared["ca"], count: 40) }),
    ProfileCase("one second after notAfter", .expired, ["valid", "ca"]) { $0.verificationTime = earliestNotAfter + 1 },
]

@Suite struct StrictProfileTests {
    @Test(arguments: validProfileTable)
    func trusted(_ row: ProfileCase) {
        let result = TrustStore(anchors: row.anchors()).evaluate(chain: row.chain(), policy: row.policy)
        #expect(result.isTrusted, "\(result)")
    }

    @Test(arguments: refusedProfileTable)
    func refused(_ row: ProfileCase) throws {
        let result = TrustStore(anchors: row.anchors()).evaluate(chain: row.chain(), policy: row.policy)
        let failure = try #require(result.failure, "\(row.name) was trusted")
        #expect(failure.reason == row.expected, "\(failure)")
    }
}
