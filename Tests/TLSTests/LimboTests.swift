import COpenSSL
import Foundation
import Testing
@testable import TLS

/// The public x509-limbo suite (C2SP, Apache-2.0) through ``TrustStore/evaluate(chain:policy:)``.
///
/// Each case runs under the profile of its namespace (`webpki::` and `online::` under
/// ``TrustProfile/webPKI``, every other under ``TrustProfile/rfc5280``), with its validation
/// time, `max_chain_depth`, extended key usage and validation kind, expected peer name and CRLs;
/// the suite's `key_usage` is checked on the leaf by the runner (``LimboSuite/missingKeyUsage(_:leaf:)``).
/// A verdict that differs from the suite's and is not in ``LimboSuite/disagreements`` fails the
/// test; so does an entry of that list that has become right (the list must shrink with it).
@Suite struct LimboTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: LimboSuite.path), "no x509-limbo suite at ../shared/x509-limbo/limbo.json"))
    func suiteVerdicts() throws {
        let cases = try #require(try LimboSuite.load())
        var right = 0
        var wrong: [String] = []
        var skipped: [String] = []
        for testCase in cases {
            switch LimboSuite.run(testCase) {
            case .right: right += 1
            case .wrong(let detail):
                wrong.append(testCase.id)
                print("limbo wrong: \(testCase.id) expected \(testCase.expected): \(detail)")
            case .skipped(let why):
                skipped.append(testCase.id)
                print("limbo skipped: \(testCase.id): \(why)")
            }
        }
        print("limbo: \(right) right, \(wrong.count) wrong, \(skipped.count) skipped")
        let unexpected = (wrong + skipped).filter { LimboSuite.disagreements[$0] == nil }
        #expect(unexpected.isEmpty, "verdicts that differ from x509-limbo and are not in the allow-list: \(unexpected)")
        let healed = LimboSuite.disagreements.keys.filter { !wrong.contains($0) && !skipped.contains($0) }.sorted()
        #expect(healed.isEmpty, "now right, remove from LimboSuite.disagreements: \(healed)")
        #expect(wrong.count <= 5 && skipped.count <= 5)
    }
}

/// Loading and running x509-limbo cases.
enum LimboSuite {
    /// Cases whose verdict we knowingly do not share with the suite, each with the reason.
    /// Listed again in the README's "TLS profiles" section.
    static let disagreements: [String: String] = [
        "rfc5280::san::underscore-dns":
            "an underscore in a dNSName is refused under .webPKI only; .rfc5280 serves private PKIs, where internal names with underscores are common and OpenSSL, Go and curl accept them",
        "rfc5280::aki::cross-signed-root-missing-aki":
            "a trust anchor is a name and a key (RFC 5280 section 6.1.1 (d)); the suite marks this pedantic, and cve::cve-2024-0567 expects success for a cross-signed anchor without AKI",
        "webpki::nc::nc-permits-dns-san-pattern":
            "CN example.com is not a copy of a SAN entry (*.foo.com); Baseline Requirements 7.1.4.3, which the suite's webpki::cn cases enforce, forbids it",
        "webpki::san::exact-localhost-ip-san":
            "CN example.com is not a copy of a SAN entry (IP 127.0.0.1); Baseline Requirements 7.1.4.3, which the suite's webpki::cn cases enforce, forbids it",
        "webpki::san::leftmost-wildcard-san":
            "CN example.com is not a copy of a SAN entry (*.example.com); Baseline Requirements 7.1.4.3, which the suite's webpki::cn cases enforce, forbids it",
    ]

    /// `../shared/x509-limbo/limbo.json` from the package root.
    static var path: String {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/x509-limbo/limbo.json").path
    }

    struct Case {
        let id: String
        let expected: String
        let object: [String: Any]
        var strings: (String) -> [String] { { key in object[key] as? [String] ?? [] } }
    }

    enum Verdict { case right, wrong(String), skipped(String) }

    static func load() throws -> [Case]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(root["testcases"] as? [[String: Any]])
        return cases.map { Case(id: $0["id"] as? String ?? "?", expected: $0["expected_result"] as? String ?? "?", object: $0) }
    }

    static func run(_ testCase: Case) -> Verdict {
        let object = testCase.object
        let profile: TrustProfile = testCase.id.hasPrefix("webpki::") || testCase.id.hasPrefix("online::") ? .webPKI : .rfc5280
        var policy = TrustPolicy(profile: profile)
        policy.requiredUsage = (object["validation_kind"] as? String) == "CLIENT" ? .clientAuth : .serverAuth
        let usages = testCase.strings("extended_key_usage")
        if usages.contains("clientAuth") && !usages.contains("serverAuth") { policy.requiredUsage = .clientAuth }
        if usages.contains("serverAuth") && !usages.contains("clientAuth") { policy.requiredUsage = .serverAuth }
        if let depth = object["max_chain_depth"] as? Int { policy.maximumChainDepth = depth }
        if let name = object["expected_peer_name"] as? [String: Any], let value = name["value"] as? String { policy.host = value }
        // No validation_time means now (the suite's certificates are made to be valid then).
        if let text = object["validation_time"] as? String {
            guard let time = parseTime(text) else { return .skipped("unreadable validation_time \(text)") }
            policy.verificationTime = time
        }
        let crlPEM = testCase.strings("crls")
        if !crlPEM.isEmpty { policy.crlCheck = .leaf }

        let verdict: String
        let detail: String
        do {
            let anchors = try testCase.strings("trusted_certs").flatMap { pem throws(TLSError) in
                try Certificate.certificates(fromPEM: Array(pem.utf8))
            }
            let intermediates = try testCase.strings("untrusted_intermediates").flatMap { pem throws(TLSError) in
                try Certificate.certificates(fromPEM: Array(pem.utf8))
            }
            let peer = try Certificate(pemBytes: Array((object["peer_certificate"] as? String ?? "").utf8))
            let crls = try crlPEM.flatMap { pem throws(TLSError) in try CertificateRevocationList.crls(fromPEM: Array(pem.utf8)) }
            let store = try TrustStore(roots: .certificates(anchors), crls: crls)
            let result = store.evaluate(chain: [peer] + intermediates, policy: policy)
            let keyUsage = missingKeyUsage(testCase.strings("key_usage"), leaf: peer)
            verdict = result.isTrusted && keyUsage == nil ? "SUCCESS" : "FAILURE"
            detail = keyUsage ?? "\(result)"
        } catch {
            // A client refuses what it cannot parse.
            verdict = "FAILURE"
            detail = "parse: \(error)"
        }
        return verdict == testCase.expected ? .right : .wrong("got \(verdict) under \(profile) (\(detail))")
    }

    /// The suite's `key_usage` (the bits the application requires of the leaf): ``TrustPolicy``
    /// has no such requirement, so the runner reads the leaf's keyUsage itself. A leaf without
    /// the extension allows every use (RFC 5280 section 4.2.1.3).
    static func missingKeyUsage(_ required: [String], leaf: Certificate) -> String? {
        let bits: [String: UInt32] = [
            "digitalSignature": UInt32(KU_DIGITAL_SIGNATURE), "contentCommitment": UInt32(KU_NON_REPUDIATION),
            "keyEncipherment": UInt32(KU_KEY_ENCIPHERMENT), "dataEncipherment": UInt32(KU_DATA_ENCIPHERMENT),
            "keyAgreement": UInt32(KU_KEY_AGREEMENT), "keyCertSign": UInt32(KU_KEY_CERT_SIGN), "cRLSign": UInt32(KU_CRL_SIGN),
        ]
        guard !required.isEmpty, X509_get_extension_flags(leaf.x509) & UInt32(EXFLAG_KUSAGE) != 0 else { return nil }
        let asserted = X509_get_key_usage(leaf.x509)
        let missing = required.filter { name in bits[name].map { asserted & $0 == 0 } ?? true }
        return missing.isEmpty ? nil : "the leaf's keyUsage lacks \(missing)"
    }

    /// `2024-01-01T00:00:00+00:00` (or `Z`) as Unix seconds.
    static func parseTime(_ text: String) -> Int64? {
        // Fractions of a second (`00:00:00.999`) are dropped: TrustPolicy counts whole seconds.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}
