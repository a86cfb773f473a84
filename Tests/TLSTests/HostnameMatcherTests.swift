import Foundation
import Testing
@testable import TLS

/// One row: a rule of RFC 6125 section 6 (as listed on ``HostnameMatcher``), a SAN, a host, the verdict.
struct HostnameCase: CustomTestStringConvertible, Sendable {
    let rule: String
    let san: String  // `DNS:...` or `IP:...`, as the openssl CLI spells it
    let host: String
    let matches: Bool
    var testDescription: String { "\(rule): \(san) vs \(host) → \(matches)" }

    var subjectAlternativeName: SubjectAlternativeName {
        if san.hasPrefix("IP:") { return .ipAddress(IPAddress(String(san.dropFirst(3)))!.bytes) }
        return .dnsName(String(san.dropFirst(4)))
    }
}

let hostnameTable: [HostnameCase] = [
    // Rule 2: ASCII case-insensitive, one trailing dot on the host ignored.
    HostnameCase(rule: "exact", san: "DNS:example.com", host: "example.com", matches: true),
    HostnameCase(rule: "case-insensitive", san: "DNS:Example.COM", host: "eXample.com", matches: true),
    HostnameCase(rule: "absolute host", san: "DNS:example.com", host: "example.com.", matches: true),
    HostnameCase(rule: "different name", san: "DNS:example.com", host: "example.org", matches: false),
    HostnameCase(rule: "suffix is not a match", san: "DNS:example.com", host: "www.example.com", matches: false),
    HostnameCase(rule: "prefix is not a match", san: "DNS:www.example.com", host: "example.com", matches: false),
    // Rule 3: wildcard only as the complete left-most label.
    HostnameCase(rule: "partial wildcard suffix", san: "DNS:api*.example.com", host: "api1.example.com", matches: false),
    HostnameCase(rule: "partial wildcard prefix", san: "DNS:*api.example.com", host: "xapi.example.com", matches: false),
    HostnameCase(rule: "partial wildcard middle", san: "DNS:f*o.example.com", host: "foo.example.com", matches: false),
    HostnameCase(rule: "wildcard not left-most", san: "DNS:www.*.example.com", host: "www.a.example.com", matches: false),
    HostnameCase(rule: "two wildcards", san: "DNS:*.*.example.com", host: "a.b.example.com", matches: false),
    HostnameCase(rule: "wildcard in A-label", san: "DNS:xn--*.example.com", host: "xn--bcher-kva.example.com", matches: false),
    // Rule 4: exactly one non-empty label.
    HostnameCase(rule: "wildcard one label", san: "DNS:*.example.com", host: "www.example.com", matches: true),
    HostnameCase(rule: "wildcard case-insensitive", san: "DNS:*.Example.com", host: "WWW.example.COM", matches: true),
    HostnameCase(rule: "wildcard over IDN label", san: "DNS:*.example.com", host: "xn--bcher-kva.example.com", matches: true),
    HostnameCase(rule: "wildcard not empty label", san: "DNS:*.example.com", host: "example.com", matches: false),
    HostnameCase(rule: "wildcard not two labels", san: "DNS:*.example.com", host: "a.b.example.com", matches: false),
    HostnameCase(rule: "wildcard suffix differs", san: "DNS:*.example.com", host: "www.example.org", matches: false),
    // Rule 5: no wildcard over fewer than two fixed labels.
    HostnameCase(rule: "wildcard over TLD", san: "DNS:*.com", host: "example.com", matches: false),
    HostnameCase(rule: "lone wildcard", san: "DNS:*", host: "localhost", matches: false),
    // Rule 6: IP literals match iPAddress SANs only.
    HostnameCase(rule: "IPv4 SAN", san: "IP:127.0.0.1", host: "127.0.0.1", matches: true),
    HostnameCase(rule: "IPv4 different", san: "IP:127.0.0.1", host: "127.0.0.2", matches: false),
    HostnameCase(rule: "IPv4 never DNS SAN", san: "DNS:127.0.0.1", host: "127.0.0.1", matches: false),
    HostnameCase(rule: "IPv6 SAN", san: "IP:::1", host: "::1", matches: true),
    HostnameCase(rule: "IPv6 bracketed", san: "IP:::1", host: "[::1]", matches: true),
    HostnameCase(rule: "IPv6 long form", san: "IP:0:0:0:0:0:0:0:1", host: "::1", matches: true),
    HostnameCase(rule: "IPv6 never DNS SAN", san: "DNS:::1", host: "::1", matches: false),
    HostnameCase(rule: "IPv4-mapped is not IPv4", san: "IP:127.0.0.1", host: "::ffff:127.0.0.1", matches: false),
    HostnameCase(rule: "IP SAN not for names", san: "IP:127.0.0.1", host: "localhost", matches: false),
    // Rule 7: invalid hosts match nothing.
    HostnameCase(rule: "empty label host", san: "DNS:a..example.com", host: "a..example.com", matches: false),
    HostnameCase(rule: "wildcard host", san: "DNS:*.example.com", host: "*.example.com", matches: false),
    HostnameCase(rule: "space in host", san: "DNS:example.com", host: "exa mple.com", matches: false),
]

@Suite struct HostnameMatcherTests {
    @Test(arguments: hostnameTable)
    func rfc6125Rule(_ row: HostnameCase) {
        #expect(HostnameMatcher.matches(host: row.host, subjectAlternativeNames: [row.subjectAlternativeName]) == row.matches)
    }

    // Rule 1: only SANs count; an empty SAN list (a CN-only certificate) matches nothing.
    @Test func noSubjectAltNameMatchesNothing() {
        #expect(!HostnameMatcher.matches(host: "localhost", subjectAlternativeNames: []))
        #expect(!HostnameMatcher.matches(host: "localhost", subjectAlternativeNames: [.email("localhost"), .uri("https://localhost")]))
    }

    // Rule 1 with a real certificate: CN=localhost without SANs is refused by both checks.
    @Test func commonNameIsNeverUsed() {
        let certificate = PKI.shared.noSANLeaf.certificate
        #expect(certificate.commonName == "localhost")
        #expect(!HostnameMatcher.matches(host: "localhost", subjectAlternativeNames: certificate.subjectAlternativeNames))
        #expect(!HostnameMatcher.openSSLMatches(host: "localhost", certificate: certificate))
    }

    // Rule 7: the `good.com\0.evil.com` trick and other control bytes in a SAN.
    @Test func controlBytesInPatternNeverMatch() {
        #expect(!HostnameMatcher.matches(host: "good.com", dnsPattern: "good.com\u{0}.evil.com"))
        #expect(!HostnameMatcher.matches(host: "good.com", dnsPattern: "good.com\n"))
    }

    // Any SAN of several may match.
    @Test func anySANMayMatch() {
        let names: [SubjectAlternativeName] = [.dnsName("a.example"), .dnsName("*.b.example"), .ipAddress([10, 0, 0, 1])]
        #expect(HostnameMatcher.matches(host: "x.b.example", subjectAlternativeNames: names))
        #expect(HostnameMatcher.matches(host: "10.0.0.1", subjectAlternativeNames: names))
        #expect(!HostnameMatcher.matches(host: "b.example", subjectAlternativeNames: names))
    }

    /// The pure function and OpenSSL's `X509_check_host`/`X509_check_ip` agree on every row,
    /// each checked against a certificate carrying exactly that SAN.
    @Test func agreesWithOpenSSLOnTheWholeTable() throws {
        let minter = PKI.Minter(directory: PKI.shared.directory)
        var certificates: [String: Certificate] = [:]
        for (index, row) in hostnameTable.enumerated() where certificates[row.san] == nil {
            try minter.openssl([
                "req", "-x509", "-new", "-key", PKI.shared.leaf.keyPath, "-subj", "/CN=table", "-days", "1",
                "-addext", "subjectAltName=\(row.san)", "-out", minter.path("san-\(index).pem"),
            ])
            certificates[row.san] = try Certificate.load(pemFile: minter.path("san-\(index).pem"))[0]
        }
        for row in hostnameTable {
            let certificate = try #require(certificates[row.san])
            let swift = HostnameMatcher.matches(host: row.host, subjectAlternativeNames: certificate.subjectAlternativeNames)
            let openSSL = HostnameMatcher.openSSLMatches(host: row.host, certificate: certificate)
            #expect(swift == row.matches, "\(row.testDescription): Swift said \(swift)")
            #expect(openSSL == row.matches, "\(row.testDescription): OpenSSL said \(openSSL)")
        }
    }

    @Test func normalization() {
        #expect(HostnameMatcher.normalizedHostname("WWW.Example.COM.") == "www.example.com")
        #expect(HostnameMatcher.normalizedHostname("") == nil)
        #expect(HostnameMatcher.normalizedHostname(".") == nil)
        #expect(HostnameMatcher.normalizedHostname(String(repeating: "a", count: 64) + ".com") == nil)
        #expect(HostnameMatcher.normalizedHostname("under_score.example") == "under_score.example")
    }
}
