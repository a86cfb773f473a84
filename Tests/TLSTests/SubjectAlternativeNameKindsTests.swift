import Foundation
import Testing
@testable import TLS

/// Every GeneralName kind in a subjectAltName is read by its own type (issue 18): otherName,
/// directoryName and registeredID payloads are not strings, and reading them as an ASN1_STRING
/// took a pointer's bits as a length (a crash in about half of the processes before the fix).
@Suite struct SubjectAlternativeNameKindsTests {
    /// (scenario, subjectAltName as `openssl -addext` writes it, names expected in order)
    static let rows: [(String, String, [SubjectAlternativeName])] = [
        ("Microsoft UPN otherName", "DNS:localhost,otherName:1.3.6.1.4.1.311.20.2.3;UTF8:user@example.com",
         [.dnsName("localhost"), .other(tag: 0)]),
        ("INTEGER otherName", "otherName:1.2.3.4;INTEGER:12345,DNS:a.example", [.other(tag: 0), .dnsName("a.example")]),
        ("SEQUENCE otherName", "otherName:1.2.3.5;SEQUENCE:seq,DNS:b.example", [.other(tag: 0), .dnsName("b.example")]),
        ("directoryName", "dirName:dir,DNS:c.example", [.other(tag: 4), .dnsName("c.example")]),
        ("registeredID", "RID:1.2.3.4.5,IP:127.0.0.1", [.other(tag: 8), .ipAddress([127, 0, 0, 1])]),
        ("email and URI", "email:a@b.example,URI:https://u.example/x", [.email("a@b.example"), .uri("https://u.example/x")]),
    ]

    @Test(arguments: rows.indices)
    func kindIsReadByItsType(row: Int) throws {
        let (scenario, sans, expected) = Self.rows[row]
        let minter = PKI.Minter(directory: PKI.shared.directory)
        let config = minter.path("san-kinds-\(row).cnf")
        try """
        [req]
        distinguished_name=dn
        x509_extensions=ext
        prompt=no
        [dn]
        CN=kinds
        [ext]
        subjectAltName=\(sans)
        [seq]
        field1=UTF8:first
        field2=INTEGER:7
        [dir]
        CN=directory name
        O=Lariat
        """.write(toFile: config, atomically: true, encoding: .utf8)
        try minter.openssl([
            "req", "-x509", "-new", "-key", PKI.shared.leaf.keyPath, "-days", "1", "-config", config,
            "-out", minter.path("san-kinds-\(row).pem"),
        ])
        let der = try Certificate.load(pemFile: minter.path("san-kinds-\(row).pem"))[0].derBytes
        // The values, read repeatedly. This suite does not reproduce the crash: the old code took
        // a pointer's low bits as a length, and within one process those are nearly constant (a
        // known OID's ASN1_OBJECT sits in libcrypto's static table). Separate processes vary them
        // (ASLR): SANKindsHandshakeTests runs fetch processes per kind and failed on the old code.
        for _ in 0..<200 {
            let certificate = try Certificate(derBytes: der)
            #expect(certificate.subjectAlternativeNames == expected, "\(scenario)")
        }
    }
}
