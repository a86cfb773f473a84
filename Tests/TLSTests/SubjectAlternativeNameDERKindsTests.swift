import Foundation
import Testing
@testable import TLS

/// The GeneralName kinds `openssl -addext` cannot write, as DER by hand (issue 18): x400Address
/// and ediPartyName become `.other(tag:)` without their payload being touched; an iPAddress of
/// 5 or 17 bytes is kept as its bytes, prints without crashing and matches no host. A registeredID
/// OpenSSL knows decodes to its static ASN1_OBJECT (the shape that crashed fetch before the fix).
@Suite struct SubjectAlternativeNameDERKindsTests {
    /// (scenario, GeneralName TLVs after `DNS:kinds.example`, names expected after the DNS name,
    /// a host that must not match through them)
    static let rows: [(String, [UInt8], [SubjectAlternativeName], String)] = [
        ("x400Address", [0xA3, 0x05, 0x30, 0x03, 0x13, 0x01, 0x41], [.other(tag: 3)], "A"),
        ("ediPartyName with nameAssigner",
         [0xA5, 0x14, 0xA0, 0x09, 0x0C, 0x07] + Array("assigne".utf8) + [0xA1, 0x07, 0x0C, 0x05] + Array("party".utf8),
         [.other(tag: 5)], "party"),
        ("iPAddress of 5 bytes", [0x87, 0x05, 127, 0, 0, 1, 0], [.ipAddress([127, 0, 0, 1, 0])], "127.0.0.1"),
        ("iPAddress of 17 bytes", [0x87, 0x11, 0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1, 2],
         [.ipAddress([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1, 2])], "fe80::1"),
        ("registeredID id-kp-serverAuth", [0x88, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01], [.other(tag: 8)], "serverAuth"),
        ("empty iPAddress", [0x87, 0x00], [.ipAddress([])], "0.0.0.0"),
    ]

    @Test(arguments: rows.indices)
    func handBuiltKind(row: Int) throws {
        let (scenario, tlvs, expected, host) = Self.rows[row]
        let dns: [UInt8] = [0x82, 0x0D] + Array("kinds.example".utf8)
        let body = dns + tlvs
        let sequence: [UInt8] = [0x30, UInt8(body.count)] + body
        let hex = sequence.map { String(format: "%02x", $0) }.joined()
        let minter = PKI.Minter(directory: PKI.shared.directory)
        let output = minter.path("san-der-\(row).pem")
        try minter.openssl([
            "req", "-x509", "-new", "-key", PKI.shared.leaf.keyPath, "-subj", "/CN=kinds", "-days", "1",
            "-addext", "subjectAltName=DER:\(hex)", "-out", output,
        ])
        let certificate = try Certificate.load(pemFile: output)[0]
        let names = certificate.subjectAlternativeNames
        #expect(names == [.dnsName("kinds.example")] + expected, "\(scenario)")
        #expect(!names.map(\.description).isEmpty)
        #expect(!HostnameMatcher.matches(host: host, subjectAlternativeNames: names), "\(scenario)")
        #expect(HostnameMatcher.matches(host: "kinds.example", subjectAlternativeNames: names), "\(scenario)")
        #expect(CertificateFacts(certificate).subjectAlternativeNames == names)
    }
}
