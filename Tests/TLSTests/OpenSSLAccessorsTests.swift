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
        let certificate = try Self.mint(row, stem: "accessor-\(Self.rows.firstIndex { $0.name == row.name }!)")
        let facts = CertificateFacts(certificate)
        #expect(certificate.commonName == row.commonName)
        #expect(facts.commonNames == (row.commonName.map { [$0] } ?? []))
        #expect(certificate.subject == row.subject)
        #expect(certificate.issuer == row.subject)
        #expect(facts.key == row.facts)
        #expect(certificate.decodedPublicKey?.algorithm == row.algorithm)
        #expect(certificate.serialNumberHex == row.serialHex)
        #expect(facts.serialOctets == row.serialOctets)
        #expect(!facts.serialIsNegative && !facts.serialIsZero)
    }

    /// A self-signed certificate for `row`, as files `STEM.key/.cnf/.pem` in the test PKI's directory.
    static func mint(_ row: Row, stem: String) throws -> Certificate {
        let minter = PKI.Minter(directory: PKI.shared.directory)
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
        return try Certificate.load(pemFile: minter.path(stem + ".pem"))[0]
    }
}

extension OpenSSLAccessorsTests {
    /// A name string that ASN1_STRING_to_UTF8 refuses (a UTF8String of 0xFF bytes, written over the
    /// BMPString CN's content octets in the DER) never reaches ``OpenSSLAccessors/commonNames(of:)``:
    /// OpenSSL canonicalizes every X509_NAME while decoding and refuses the certificate, which
    /// must surface as a typed decoding error. (commonNames(of:) still keeps such a value, decoded
    /// leniently, should a name ever arrive another way.)
    @Test func unconvertibleNameStringIsRefusedWhenParsing() throws {
        let row = try #require(Self.rows.first { $0.name == "BMPString CN" })
        let der = try Self.mint(row, stem: "accessor-unconvertible").derBytes
        let bmp: [UInt8] = [0x1E, 0x12] + Array("localhost".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let bad: [UInt8] = [0x0C, 0x12] + [UInt8](repeating: 0xFF, count: 18)
        var edited: [UInt8] = []
        var index = 0
        var replaced = 0
        while index < der.count {
            if index + bmp.count <= der.count, Array(der[index..<(index + bmp.count)]) == bmp {
                edited += bad
                index += bmp.count
                replaced += 1
            } else {
                edited.append(der[index])
                index += 1
            }
        }
        #expect(replaced == 2, "issuer and subject")
        let error = #expect(throws: TLSError.self) { try Certificate(derBytes: edited) }
        #expect(error?.kind == .decoding)
        #expect((try? Certificate(derBytes: der)) != nil, "the unedited certificate parses")
    }
}
