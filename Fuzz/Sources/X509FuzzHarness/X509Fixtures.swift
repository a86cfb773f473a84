// What the X.509 targets share: the fixed PKI (Anchors.swift) as loaded objects, a store whose
// only anchor is the fixed root, and the cut of an input into concatenated DER values.
import ClientFuzzHarness
import TLS

/// The fixed PKI, loaded once per process.
public enum X509Fixtures {
    /// The fixed root, the only anchor of ``store``.
    public static let root = load(Anchors.rootDER)
    /// The intermediate the corpus leaves are issued by (path length 0).
    public static let intermediate = load(Anchors.intermediateDER)
    /// A leaf for `localhost`, `*.fuzz.example`, 127.0.0.1 and ::1 issued by ``intermediate``.
    public static let leaf = load(Anchors.leafDER)
    /// A store whose only anchor is ``root``.
    public static let store = TrustStore(anchors: [root])

    /// The hosts every certificate is checked against, before its own names.
    public static let hosts = ["localhost", "www.example.com", "a.fuzz.example", "127.0.0.1", "::1", "10.1.2.3", "user@example.com"]

    private static func load(_ der: [UInt8]) -> Certificate {
        guard let certificate = try? Certificate(derBytes: der) else { fatalError("Anchors.swift holds a certificate OpenSSL refuses") }
        return certificate
    }

    /// The policy the targets evaluate under: the fixed time, `profile`, and the limits given.
    public static func policy(host: String?, profile: TrustProfile, chainDepth: Int = 6, presented: Int = 32) -> TrustPolicy {
        TrustPolicy(
            host: host, verificationTime: Anchors.verificationTime, profile: profile,
            maximumChainDepth: chainDepth, maximumPresentedCertificates: presented)
    }
}

/// `bytes` cut into its leading complete DER values (tag, length, contents), at most `limit`;
/// whatever follows the last complete value is dropped.
public func derElements(_ bytes: [UInt8], limit: Int) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count, result.count < limit, let size = derSize(bytes, at: offset) {
        result.append(Array(bytes[offset..<offset + size]))
        offset += size
    }
    return result
}

/// The size of the DER value at `offset` (low-tag-number form, definite length), or `nil`.
private func derSize(_ bytes: [UInt8], at offset: Int) -> Int? {
    guard offset + 2 <= bytes.count, bytes[offset] & 0x1F != 0x1F else { return nil }
    let first = Int(bytes[offset + 1])
    var header = 2
    var length = first
    if first >= 0x80 {
        let count = first & 0x7F
        guard (1...3).contains(count), offset + 2 + count <= bytes.count else { return nil }
        length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
        header += count
    }
    guard length <= bytes.count - offset - header else { return nil }
    return header + length
}

/// Every read a client makes of a certificate it was sent, and the identity checks for each of
/// `hosts` plus the certificate's own names; traps when the two matchers' verdicts and the
/// certificate's names disagree in a way evaluation would not catch.
public func exerciseCertificate(_ certificate: Certificate) -> [String] {
    _ = certificate.subject
    _ = certificate.issuer
    _ = certificate.commonName
    _ = certificate.serialNumberHex
    _ = certificate.notBefore
    _ = certificate.notAfter
    _ = certificate.isSelfSigned
    _ = certificate.description
    _ = certificate.decodedPublicKey?.pinnedPublicKeyHash
    let names = certificate.subjectAlternativeNames
    var hosts = X509Fixtures.hosts
    for name in names {
        _ = name.description
        switch name {
        case .dnsName(let pattern):
            let host = pattern.hasPrefix("*.") ? "x" + pattern.dropFirst() : pattern
            if hosts.count < 16 { hosts.append(host) }
            // A name that matches as a pattern must match through the SAN list too.
            if HostnameMatcher.matches(host: host, dnsPattern: pattern) {
                require(HostnameMatcher.matches(host: host, subjectAlternativeNames: names), "\(host) matches \(pattern) alone but not the SAN list")
            }
        case .ipAddress(let bytes):
            if let address = IPAddress(bytes: bytes), hosts.count < 16 { hosts.append(address.description) }
        default:
            break
        }
    }
    for host in hosts { _ = HostnameMatcher.matches(host: host, subjectAlternativeNames: names) }
    return hosts
}

/// Evaluates `chain` against the fixed store for `host` under both profiles. A trusted verdict
/// for a host requires the RFC 6125 matcher to accept the leaf's names for it.
public func evaluateBothProfiles(_ chain: [Certificate], host: String?, chainDepth: Int = 6, presented: Int = 32, store: TrustStore = X509Fixtures.store, partial: Bool = false) {
    for profile in [TrustProfile.rfc5280, .webPKI] {
        var policy = X509Fixtures.policy(host: host, profile: profile, chainDepth: chainDepth, presented: presented)
        policy.allowPartialChain = partial
        let result = store.evaluate(chain: chain, policy: policy)
        _ = result.description
        if result.isTrusted, let host, let leaf = chain.first {
            require(HostnameMatcher.matches(host: host, subjectAlternativeNames: leaf.subjectAlternativeNames), "trusted for \(host) without a matching SAN (\(profile))")
        }
        if result.isTrusted { require(!result.verifiedChain.isEmpty, "trusted with an empty verified chain") }
    }
}
