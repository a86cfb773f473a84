// Server certificates for `lariat.test` whose subjectAltName carries one GeneralName kind each
// (issue 18): the kinds whose payload is not a string (otherName, directoryName, registeredID,
// x400Address, ediPartyName) and the string kinds with odd contents (email, URI, iPAddress of 5
// and 17 bytes). `openssl` cannot write x400Address, ediPartyName or a bad-length iPAddress, so
// those extensions are DER written here by hand and passed as `subjectAltName=DER:...`.
// All leaves share one key and are issued by the lab root (`ca.pem`); the server sends the leaf alone.
#if FullFoundation
import Foundation

extension HTTPSLab {
    /// One certificate of the SAN-kinds matrix.
    package struct SANKind: Sendable, CustomStringConvertible {
        /// The scenario, for the test report.
        package var name: String
        /// The lab file stem (`NAME.pem`; the key is `sankinds.key` for all).
        package var file: String
        /// The `subjectAltName=` value, in openssl's config syntax (`DER:` for the hand-built ones).
        package var subjectAltName: String
        /// fetch processes per mode in CI: enough that the code before issue 18's fix, which read
        /// this kind's payload as an ASN1_STRING and took a pointer's low 32 bits as a length,
        /// survives all four modes with probability under 0.5^20 (1 for kinds it did not crash on).
        package var ciRunsPerMode: Int
        package var description: String { name }
    }

    /// `DNS:lariat.test`, so every certificate is valid for the URL's host.
    private static let dnsName: [UInt8] = [0x82, 0x0B] + Array("lariat.test".utf8)

    /// A DER length (short or long form).
    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        let bytes = withUnsafeBytes(of: UInt32(count).bigEndian, Array.init).drop { $0 == 0 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// `subjectAltName=DER:...` for GeneralNames made of `DNS:lariat.test` and `names` (each a whole TLV).
    private static func derSubjectAltName(_ names: [[UInt8]]) -> String {
        let body = dnsName + names.flatMap { $0 }
        let sequence = [0x30] + length(body.count) + body
        return "DER:" + sequence.map { String(format: "%02x", $0) }.joined()
    }

    /// `[tag] IMPLICIT` constructed or primitive context-specific TLV.
    private static func context(_ tag: UInt8, constructed: Bool, _ content: [UInt8]) -> [UInt8] {
        [(constructed ? 0xA0 : 0x80) | tag] + length(content.count) + content
    }

    /// A UTF8String.
    private static func utf8(_ text: String) -> [UInt8] { [0x0C] + length(text.utf8.count) + Array(text.utf8) }

    /// The matrix's certificates.
    package static let sanKinds: [SANKind] = [
        SANKind(name: "Microsoft UPN otherName", file: "san-upn",
                subjectAltName: "otherName:1.3.6.1.4.1.311.20.2.3;UTF8:user@example.com,DNS:lariat.test", ciRunsPerMode: 5),
        SANKind(name: "INTEGER otherName", file: "san-int", subjectAltName: "otherName:1.2.3.4;INTEGER:12345,DNS:lariat.test", ciRunsPerMode: 5),
        SANKind(name: "SEQUENCE otherName", file: "san-seq", subjectAltName: "otherName:1.2.3.5;SEQUENCE:seq,DNS:lariat.test", ciRunsPerMode: 5),
        // X509_NAME is zero-allocated: the old read took its entries pointer as the length and the
        // zero after it as a NULL data pointer, so it read nothing (0 crashes in 20 processes).
        SANKind(name: "directoryName", file: "san-dir", subjectAltName: "dirName:dir,DNS:lariat.test", ciRunsPerMode: 1),
        // A registeredID OpenSSL knows (id-kp-serverAuth) decodes to its static ASN1_OBJECT, whose
        // `sn` pointer (into libcrypto, moved by ASLR) was the length: 5 crashes in 20 processes, so
        // 10 per mode (0.75^40). An unknown OID has NULL names and read as empty.
        SANKind(name: "registeredID (known OID)", file: "san-rid", subjectAltName: "RID:1.3.6.1.5.5.7.3.1,DNS:lariat.test", ciRunsPerMode: 10),
        // ediPartyName ::= SEQUENCE { nameAssigner [0] DirectoryString OPTIONAL, partyName [1] DirectoryString }:
        // with a nameAssigner, EDIPARTYNAME's first member is a heap pointer (read as a length before the fix).
        SANKind(name: "ediPartyName (DER by hand)", file: "san-edi",
                subjectAltName: derSubjectAltName([
                    context(5, constructed: true, context(0, constructed: true, utf8("assigner")) + context(1, constructed: true, utf8("party"))),
                ]), ciRunsPerMode: 5),
        // x400Address [3] ORAddress: OpenSSL 3 keeps it as an ASN1_STRING of the SEQUENCE's contents.
        SANKind(name: "x400Address (DER by hand)", file: "san-x400",
                subjectAltName: derSubjectAltName([context(3, constructed: true, [0x30, 0x03, 0x13, 0x01, 0x41])]), ciRunsPerMode: 1),
        SANKind(name: "rfc822Name", file: "san-email", subjectAltName: "email:someone@lariat.test,DNS:lariat.test", ciRunsPerMode: 1),
        SANKind(name: "uniformResourceIdentifier", file: "san-uri", subjectAltName: "URI:https://lariat.test/x,DNS:lariat.test", ciRunsPerMode: 1),
        SANKind(name: "iPAddress of 5 bytes (DER by hand)", file: "san-ip5",
                subjectAltName: derSubjectAltName([context(7, constructed: false, [127, 0, 0, 1, 0])]), ciRunsPerMode: 1),
        SANKind(name: "iPAddress of 17 bytes (DER by hand)", file: "san-ip17",
                subjectAltName: derSubjectAltName([context(7, constructed: false, [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1, 2])]),
                ciRunsPerMode: 1),
    ]

    /// The lab with the SAN-kinds certificates minted (once per test process).
    package static let sanKindsLab: Result<HTTPSLab, Failure> = {
        do {
            let lab = try shared.get()
            try lab.mintSANKinds()
            return .success(lab)
        } catch let error as Failure {
            return .failure(error)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    private func mintSANKinds() throws {
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("sankinds.key")])
        try openssl(["pkey", "-in", path("sankinds.key"), "-pubout", "-out", path("sankinds.pub.pem")])
        try openssl(["req", "-new", "-key", path("sankinds.key"), "-subj", "/CN=lariat.test", "-out", path("sankinds.csr")])
        for kind in HTTPSLab.sanKinds {
            try """
            [ext]
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth
            subjectAltName=\(kind.subjectAltName)
            [seq]
            field1=UTF8:first
            field2=INTEGER:7
            [dir]
            CN=directory name
            O=Lariat
            """.write(toFile: path(kind.file + ".ext"), atomically: true, encoding: .utf8)
            try openssl([
                "x509", "-req", "-in", path("sankinds.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                "-days", "1", "-extfile", path(kind.file + ".ext"), "-extensions", "ext", "-out", path(kind.file + ".pem"),
            ])
            try FileManager.default.copyItem(atPath: path("sankinds.key"), toPath: path(kind.file + ".key"))
        }
    }
}
#endif
