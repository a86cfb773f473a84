import Foundation
import Testing
@testable import TLS

@Suite struct CertificateTests {
    let pki = PKI.shared

    @Test func derAndPEMRoundTrip() throws {
        let certificate = pki.leaf.certificate
        let der = certificate.derBytes
        #expect(der.first == 0x30)
        #expect(try Certificate(derBytes: der) == certificate)
        let pem = try Data(contentsOf: URL(fileURLWithPath: pki.leaf.certificatePath))
        #expect(try Certificate(pemBytes: Array(pem)) == certificate)
        #expect(try Certificate(derBytes: der).hashValue == certificate.hashValue)
    }

    @Test func malformedInputIsDecodingError() {
        let der = pki.leaf.certificate.derBytes
        for bad in [[], [0x30, 0x00], Array(der.dropLast()), der + [0]] as [[UInt8]] {
            let error = #expect(throws: TLSError.self) { try Certificate(derBytes: bad) }
            #expect(error?.kind == .decoding)
        }
        #expect(throws: TLSError.self) { try Certificate(pemBytes: Array("no pem here".utf8)) }
        #expect(throws: TLSError.self) {
            try Certificate.certificates(fromPEM: Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8))
        }
    }

    @Test func summariesAndDates() {
        let certificate = pki.leaf.certificate
        #expect(certificate.subject == "CN=localhost")
        #expect(certificate.issuer == "CN=Lariat Test Intermediate")
        #expect(certificate.commonName == "localhost")
        #expect(!certificate.serialNumberHex.isEmpty)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(certificate.notBefore < now && now < certificate.notAfter)
        #expect(abs(certificate.notBefore - (now - 3600)) < 600)
        #expect(certificate.sha256Fingerprint.count == 32)
        #expect(!certificate.isSelfSigned)
        #expect(pki.root.certificate.isSelfSigned)
        #expect(pki.selfSignedLeaf.certificate.isSelfSigned)
    }

    @Test func subjectAlternativeNames() {
        #expect(pki.leaf.certificate.subjectAlternativeNames == [
            .dnsName("localhost"), .dnsName("example.test"), .ipAddress([127, 0, 0, 1]),
            .ipAddress([UInt8](repeating: 0, count: 15) + [1]),
        ])
        #expect(pki.noSANLeaf.certificate.subjectAlternativeNames.isEmpty)
        #expect(SubjectAlternativeName.ipAddress([127, 0, 0, 1]).description == "IP:127.0.0.1")
    }

    @Test func publicKeyIdentityIsSubjectPublicKeyInfo() throws {
        let key = try #require(pki.leaf.certificate.decodedPublicKey)
        #expect(key.algorithm == "EC")
        #expect(key.bits == 256)
        #expect(pki.weakRSALeaf.certificate.decodedPublicKey?.bits == 1024)
        let spki = key.subjectPublicKeyInfoDER
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki) == key)
        #expect(key == pki.leaf.key.publicKey)
        #expect(key != pki.intermediate.certificate.decodedPublicKey)
        #expect(throws: TLSError.self) { try PublicKey(subjectPublicKeyInfoDER: spki + [0]) }
        #expect(key.pinnedPublicKeyHash == "sha256//" + Base64.encode(key.sha256OfSubjectPublicKeyInfo))
    }

    // The pin matches what `openssl pkey -pubout | openssl dgst -sha256 -binary | base64` prints (curl's recipe).
    @Test func pinMatchesOpenSSLCommandLine() throws {
        let minter = PKI.Minter(directory: pki.directory)
        let spkiPath = minter.path("leaf.spki.der")
        try minter.openssl(["pkey", "-in", pki.leaf.keyPath, "-pubout", "-outform", "DER", "-out", spkiPath])
        let digest = try minter.openssl(["dgst", "-sha256", "-binary", spkiPath])
        #expect(pki.leaf.certificate.decodedPublicKey?.pinnedPublicKeyHash == "sha256//" + Base64.encode(Array(digest)))
        #expect(try PublicKey.load(file: spkiPath) == pki.leaf.certificate.decodedPublicKey)
        let pemPath = minter.path("leaf.spki.pem")
        try minter.openssl(["pkey", "-in", pki.leaf.keyPath, "-pubout", "-out", pemPath])
        #expect(try PublicKey.load(file: pemPath) == pki.leaf.certificate.decodedPublicKey)
    }

    @Test(arguments: ["", "sha256//", "sha1//AAAA", "sha256//AAAA", "sha256//!!!!", "sha256//" + String(repeating: "A", count: 44) + ";"])
    func malformedPinsAreRefused(_ text: String) {
        #expect(throws: TLSError.self) { try PublicKeyPins(curlSyntax: text) }
    }

    @Test func loadsFilesAndDirectories() throws {
        let minter = PKI.Minter(directory: pki.directory)
        let folder = minter.path("anchors")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A bundle of two PEM certificates, one DER file, and a file with an ignored extension.
        let bundle = try String(contentsOfFile: pki.root.certificatePath, encoding: .utf8) + String(contentsOfFile: pki.intermediate.certificatePath, encoding: .utf8)
        try bundle.write(toFile: folder + "/bundle.pem", atomically: true, encoding: .utf8)
        try Data(pki.leaf.certificate.derBytes).write(to: URL(fileURLWithPath: folder + "/leaf.DER"))
        try bundle.write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)

        #expect(try Certificate.load(pemFile: folder + "/bundle.pem") == [pki.root.certificate, pki.intermediate.certificate])
        #expect(try Certificate.load(derFile: folder + "/leaf.DER") == pki.leaf.certificate)
        #expect(try Certificate.load(file: folder + "/leaf.DER") == [pki.leaf.certificate])
        #expect(try Certificate.load(directory: folder) == [pki.root.certificate, pki.intermediate.certificate, pki.leaf.certificate])

        let missing = #expect(throws: TLSError.self) { try Certificate.load(file: folder + "/absent.pem") }
        #expect(missing?.kind == .fileAccess)
        #expect(throws: TLSError.self) { try Certificate.load(directory: folder + "/absent") }
        #expect(throws: TLSError.self) { try Certificate.load(pemFile: pki.leaf.keyPath) }
    }

    @Test func privateKeysLoad() throws {
        let key = try PrivateKey.load(file: pki.leaf.keyPath)
        #expect(key.publicKey == pki.leaf.certificate.decodedPublicKey)
        let der = try PKI.Minter(directory: pki.directory).openssl(["pkey", "-in", pki.leaf.keyPath, "-outform", "DER"])
        #expect(try PrivateKey(derBytes: Array(der)).publicKey == pki.leaf.certificate.decodedPublicKey)
        #expect(try PrivateKey.load(file: pki.encryptedKeyPath, password: PKI.keyPassword).publicKey == pki.client.certificate.decodedPublicKey)
    }
}
