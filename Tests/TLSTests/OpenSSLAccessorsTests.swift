import Foundation
import Testing
@testable import TLS

/// The audit rows of Sources/TLS/README.md that read OpenSSL memory while a certificate is
/// inspected: names (X509_NAME_ENTRY_get_data, BIO_get_mem_data), the serial (ASN1_INTEGER),
/// the key by EVP_PKEY id, and the public key's type name. One minted certificate per row,
/// read through the public API and through CertificateFacts.
@Suite struct OpenSSLAccessorsTests {
    /// What one certificate must read as.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// `genpkey` arguments for the key.
        var key: [String]
        /// Lines of the `[dn]` section, and `string_mask` for the request.
        var dn: String
        var stringMask = "utf8only"
        var serial = "0x1001"
        var commonName: String?
        var subject: String
        var facts: CertificateFacts.Key
        var algorithm: String
        var serialHex = "1001"
        var serialOctets = 2
        var testDescription: String { name }
    }

    static let ec = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]

    static let rows: [Row] = [
        // X.500 DirectoryString kinds: the CN is text whatever its tag (ASN1_STRING_to_UTF8).
        // Before the audit, a BMPString CN was returned as its UTF-16 bytes ("\0l\0o...").
        Row(name: "BMPString CN", key: ec, dn: "CN=localhost", stringMask: "MASK:0x800", commonName: "localhost",
            subject: "CN=localhost", facts: .ec(curve: "prime256v1"), algorithm: "EC"),
        Row(name: "UTF8String CN, not ASCII", key: ec, dn: "CN=bücher.example", commonName: "bücher.example",
            subject: #"CN=b\C3\BCcher.example"#, facts: .ec(curve: "prime256v1"), algorithm: "EC"),
        Row(name: "PrintableString CN", key: ec, dn: "CN=localhost", stringMask: "nombstr", commonName: "localhost",
            subject: "CN=localhost", facts: .ec(curve: "prime256v1"), algorithm: "EC"),
        Row(name: "no CN", key: ec, dn: "O=Lariat", commonName: nil, subject: "O=Lariat", facts: .ec(curve: "prime256v1"), algorithm: "EC"),
        // EVP_PKEY by id.
        Row(name: "RSA 2048", key: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], dn: "CN=rsa", commonName: "rsa",
            subject: "CN=rsa", facts: .rsa(bits: 2048), algorithm: "RSA"),
        Row(name: "EC P-384", key: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], dn: "CN=p384", commonName: "p384",
            subject: "CN=p384", facts: .ec(curve: "secp384r1"), algorithm: "EC"),
        Row(name: "Ed25519", key: ["-algorithm", "ED25519"], dn: "CN=ed", commonName: "ed", subject: "CN=ed", facts: .other("ED25519"),
            algorithm: "ED25519"),
        // ASN1_INTEGER serial: a positive value with its top bit set takes a leading zero octet.
        Row(name: "serial 0x80", key: ec, dn: "CN=serial", serial: "0x80", commonName: "serial", subject: "CN=serial",
            facts: .ec(curve: "prime256v1"), algorithm: "EC", serialHex: "80", serialOctets: 2),
        Row(name: "serial of 20 octets", key: ec, dn: "CN=long", serial: "0x7f" + String(repeating: "ab", count: 19), commonName: "long",
            subject: "CN=long", facts: .ec(curve: "prime256v1"), algorithm: "EC",
            serialHex: "7F" + String(repeating: "AB", count: 19), serialOctets: 20),
    ]

    @Test(arguments: rows)
    func certificateReadsAsItsTypes(_ row: Row) throws {
        let minter = PKI.Minter(directory: PKI.shared.directory)
        let stem = "accessor-\(Self.rows.firstIndex { $0.name == row.name }!)"
        try minter.openssl(["genpkey"] + row.key + ["-out", minter.path(stem + ".key")])
        try """
        [req]
        distinguished_name=dn
        prompt=no
        utf8=yes
        string_mask=\(row.stringMask)
        [dn]
        \(row.dn)
        """.write(toFile: minter.path(stem + ".cnf"), atomically: true, encoding: .utf8)
        try minter.openssl([
            "req", "-x509", "-new", "-key", minter.path(stem + ".key"), "-days", "1", "-config", minter.path(stem + ".cnf"),
            "-set_serial", row.serial, "-out", minter.path(stem + ".pem"),
        ])
        let certificate = try Certificate.load(pemFile: minter.path(stem + ".pem"))[0]
        let facts = CertificateFacts(certificate)
        #expect(certificate.commonName == row.commonName)
        #expect(facts.commonNames == (row.commonName.map { [$0] } ?? []))
        #expect(certificate.subject == row.subject)
        #expect(certificate.issuer == row.subject)
        #expect(facts.key == row.facts)
        #expect(certificate.publicKey.algorithm == row.algorithm)
        #expect(certificate.serialNumberHex == row.serialHex)
        #expect(facts.serialOctets == row.serialOctets)
        #expect(!facts.serialIsNegative && !facts.serialIsZero)
    }
}
