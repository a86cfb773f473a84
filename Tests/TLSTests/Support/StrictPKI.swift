import Foundation
import TLS

/// Chains for the strict-profile table: one certificate per rule, each minted with exactly the
/// defect its row names, next to valid chains that must pass. Minted with `openssl x509 -req`
/// (extensions written out in full, explicit serials) in the shared PKI's directory.
///
/// Layout: `root` (P-256, trusted by the rows) → `ca` (P-256) → leaves for `strict.test`;
/// `ca384` (P-384) for the digest/curve pairing; `newRoot`, self-signed and cross-signed by
/// `root`, for cross-signing; `loopA`/`loopB`, issued by each other, for cycles.
final class StrictPKI: Sendable {
    /// A minted certificate and its files.
    struct Minted: Sendable {
        let certificate: Certificate
        let certificatePath: String
        let keyPath: String
        /// The certificate with its key, for handshake rows.
        func identity() throws -> PKI.Identity {
            PKI.Identity(certificate: certificate, key: try PrivateKey.load(file: keyPath), certificatePath: certificatePath, keyPath: keyPath)
        }
    }

    static let shared: StrictPKI = {
        do { return try StrictPKI(minter: PKI.Minter(directory: PKI.shared.directory + "/strict")) } catch {
            fatalError("cannot mint the strict PKI: \(error)")
        }
    }()

    /// Every certificate by name.
    let certificates: [String: Minted]

    subscript(_ name: String) -> Certificate {
        guard let minted = certificates[name] else { preconditionFailure("no certificate named \(name)") }
        return minted.certificate
    }

    /// Extensions of a valid CA certificate.
    static let caExtensions = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"

    /// Extensions of a valid server leaf for `names`, with `extra` lines appended or replacing.
    static func leaf(_ sans: String = "DNS:strict.test", eku: String? = "serverAuth", basic: String = "critical,CA:FALSE", extra: String = "") -> String {
        var text = "basicConstraints=\(basic)\nkeyUsage=critical,digitalSignature\n"
        if let eku { text += "extendedKeyUsage=\(eku)\n" }
        if !sans.isEmpty { text += "subjectAltName=\(sans)\n" }
        return text + extra
    }

    private init(minter: PKI.Minter) throws {
        try FileManager.default.createDirectory(atPath: minter.directory, withIntermediateDirectories: true)
        var minted: [String: Minted] = [:]
        func mint(
            _ name: String, _ subject: String = "/CN=strict.test", by issuer: String?, _ extensions: String,
            key: PKI.Minter.KeyType = .ec, serial: String? = nil, digest: String? = "sha256", keyFrom: String? = nil
        ) throws {
            let signer = issuer.flatMap { minted[$0] }.map { (certificate: $0.certificatePath, key: $0.keyPath) }
            minted[name] = try minter.mint(
                name, subject: subject, issuer: signer, extensions: extensions, key: key, serial: serial ?? "\(0x1000 + minted.count)",
                digest: digest, keyPath: keyFrom.flatMap { minted[$0]?.keyPath })
        }
        let ca = StrictPKI.caExtensions
        // Anchors and intermediates.
        try mint("root", "/CN=Strict Root", by: nil, ca)
        try mint("ca", "/CN=Strict CA", by: "root", ca)
        try mint("ca384", "/CN=Strict CA 384", by: "root", ca, key: .ecCurve("P-384"))
        try mint("caRSA", "/CN=Strict CA RSA", by: "root", ca, key: .rsa(2048))
        try mint("caEd25519", "/CN=Strict CA Ed25519", by: "root", ca, key: .ed25519)
        try mint("caBasicNotCritical", "/CN=Strict CA BC", by: "root", "basicConstraints=CA:TRUE\nkeyUsage=critical,keyCertSign\n")
        try mint("caNoSKI", "/CN=Strict CA SKI", by: "root", ca + "subjectKeyIdentifier=none\n")
        try mint("caAKICritical", "/CN=Strict CA AKI", by: "root", ca + "authorityKeyIdentifier=critical,keyid\n")
        try mint("caNotCA", "/CN=Strict CA notCA", by: "root", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,keyCertSign\n")
        try mint("caNoCertSign", "/CN=Strict CA KU", by: "root", "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,cRLSign\n")
        try mint("caPathZero", "/CN=Strict CA path0", by: "root", "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign\n")
        try mint("caBelowPathZero", "/CN=Strict CA below", by: "caPathZero", ca)
        try mint("caDNSConstrained", "/CN=Strict CA NC DNS", by: "root", ca + "nameConstraints=critical,permitted;DNS:allowed.test\n")
        try mint("caIPConstrained", "/CN=Strict CA NC IP", by: "root", ca + "nameConstraints=critical,permitted;IP:10.0.0.0/255.0.0.0\n")
        try mint("caEmailConstrained", "/CN=Strict CA NC email", by: "root", ca + "nameConstraints=critical,excluded;email:.bad.test\n")
        try mint("caDirConstrained", "/CN=Strict CA NC dir", by: "root",
                 ca + "nameConstraints=critical,permitted;dirName:dir_sect\n[dir_sect]\nO=Allowed\n")
        try mint("caLong1", "/CN=Strict CA long 1", by: "root", ca)
        try mint("caLong2", "/CN=Strict CA long 2", by: "caLong1", ca)
        try mint("caLong3", "/CN=Strict CA long 3", by: "caLong2", ca)
        // A root like Go Daddy Class 2: basicConstraints not critical, no keyUsage, no authorityKeyIdentifier.
        try mint("legacyRoot", "/CN=Strict Legacy Root", by: nil, "basicConstraints=CA:TRUE\nauthorityKeyIdentifier=none\n")
        try mint("caUnderLegacy", "/CN=Strict CA legacy", by: "legacyRoot", ca)
        // A root like Go Daddy and Starfield Class 2 or QuoVadis Root CA 2: its AKI adds its own name and serial.
        try mint("legacyAKIRoot", "/CN=Strict Legacy AKI Root", by: nil, "basicConstraints=CA:TRUE\nauthorityKeyIdentifier=keyid:always,issuer:always\n")
        try mint("caUnderLegacyAKI", "/CN=Strict CA legacy AKI", by: "legacyAKIRoot", ca)
        // Cross-signing: newRoot exists self-signed and cross-signed by root, with one key.
        try mint("newRoot", "/CN=Strict New Root", by: nil, ca)
        try mint("newRootCross", "/CN=Strict New Root", by: "root", ca, keyFrom: "newRoot")
        try mint("caUnderNewRoot", "/CN=Strict CA new", by: "newRoot", ca)
        // A cycle: loopA issued by loopB and loopB by loopA (seeded by self-signed twins).
        try mint("loopSeedA", "/CN=Strict Loop A", by: nil, ca)
        try mint("loopSeedB", "/CN=Strict Loop B", by: nil, ca)
        try mint("loopA", "/CN=Strict Loop A", by: "loopSeedB", ca, keyFrom: "loopSeedA")
        try mint("loopB", "/CN=Strict Loop B", by: "loopSeedA", ca, keyFrom: "loopSeedB")

        // Valid leaves.
        try mint("valid", by: "ca", StrictPKI.leaf())
        try mint("validRSA", by: "caRSA", StrictPKI.leaf(), key: .rsa(2048))
        try mint("validPSS", by: "caRSA", StrictPKI.leaf(), digest: "sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:-1")
        try mint("valid384", by: "ca384", StrictPKI.leaf(), digest: "sha384")
        try mint("validWildcard", "/CN=*.strict.test", by: "ca", StrictPKI.leaf("DNS:*.strict.test"))
        try mint("validEmptySubject", "/", by: "ca", StrictPKI.leaf("critical,DNS:strict.test"))
        try mint("validIP", "/CN=127.0.0.1", by: "ca", StrictPKI.leaf("IP:127.0.0.1"))
        try mint("validClient", "/CN=Strict Client", by: "ca", StrictPKI.leaf("", eku: "clientAuth"))
        try mint("validSerial20", by: "ca", StrictPKI.leaf(), serial: "0x7f" + String(repeating: "ab", count: 19))
        try mint("validLong", by: "caLong3", StrictPKI.leaf())
        try mint("validUnderNewRoot", by: "caUnderNewRoot", StrictPKI.leaf())
        try mint("validDNSConstrained", "/CN=www.allowed.test", by: "caDNSConstrained", StrictPKI.leaf("DNS:www.allowed.test"), keyFrom: "valid")
        try mint("validUnderLegacy", by: "caUnderLegacy", StrictPKI.leaf())
        try mint("validUnderLegacyAKI", by: "caUnderLegacyAKI", StrictPKI.leaf())
        try mint("leafOfLoop", by: "loopA", StrictPKI.leaf())

        // One defect each.
        try mint("noEKU", by: "ca", StrictPKI.leaf(eku: nil))
        try mint("anyEKU", by: "ca", StrictPKI.leaf(eku: "anyExtendedKeyUsage"))
        try mint("serverAndAnyEKU", by: "ca", StrictPKI.leaf(eku: "serverAuth,anyExtendedKeyUsage"))
        try mint("clientEKU", by: "ca", StrictPKI.leaf(eku: "clientAuth"))
        try mint("caLeaf", by: "ca", StrictPKI.leaf(basic: "critical,CA:TRUE"))
        try mint("underBasicNotCritical", by: "caBasicNotCritical", StrictPKI.leaf())
        try mint("underNoSKI", by: "caNoSKI", StrictPKI.leaf())
        try mint("underAKICritical", by: "caAKICritical", StrictPKI.leaf())
        try mint("underNotCA", by: "caNotCA", StrictPKI.leaf())
        try mint("underNoCertSign", by: "caNoCertSign", StrictPKI.leaf())
        try mint("noAKI", by: "ca", StrictPKI.leaf(extra: "authorityKeyIdentifier=none\n"))
        try mint("noSAN", by: "ca", StrictPKI.leaf(""))
        try mint("emptySubjectSANNotCritical", "/", by: "ca", StrictPKI.leaf())
        try mint("underscore", by: "ca", StrictPKI.leaf("DNS:strict.test,DNS:under_score.strict.test"))
        try mint("partialWildcard", by: "ca", StrictPKI.leaf("DNS:strict.test,DNS:w*.strict.test"))
        try mint("cnNotInSAN", "/CN=other.test", by: "ca", StrictPKI.leaf())
        try mint("wildcardCom", "/CN=*.com", by: "ca", StrictPKI.leaf("DNS:*.com"))
        try mint("wildcardCoUK", "/CN=*.co.uk", by: "ca", StrictPKI.leaf("DNS:*.co.uk"))
        try mint("negativeSerial", by: "ca", StrictPKI.leaf(), serial: "-5")
        try mint("zeroSerial", by: "ca", StrictPKI.leaf(), serial: "0")
        try mint("longSerial", by: "ca", StrictPKI.leaf(), serial: "0x" + String(repeating: "ab", count: 20))
        try mint("dsa", by: "ca", StrictPKI.leaf(), key: .dsa(1024))
        try mint("rsa2052", by: "ca", StrictPKI.leaf(), key: .rsa(2052))
        try mint("rsa1024", by: "ca", StrictPKI.leaf(), key: .rsa(1024))
        try mint("secp256k1", by: "ca", StrictPKI.leaf(), key: .ecCurve("secp256k1"))
        try mint("ed25519Key", by: "ca", StrictPKI.leaf(), key: .ed25519)
        try mint("sha256By384", by: "ca384", StrictPKI.leaf(), digest: "sha256")
        try mint("signedByEd25519", by: "caEd25519", StrictPKI.leaf(), digest: nil)
        try mint("underPathZero", by: "caBelowPathZero", StrictPKI.leaf())
        try mint("outsideDNSConstraint", by: "caDNSConstrained", StrictPKI.leaf())
        try mint("outsideIPConstraint", by: "caIPConstrained", StrictPKI.leaf("DNS:strict.test,IP:127.0.0.1"))
        try mint("insideExcludedEmail", by: "caEmailConstrained", StrictPKI.leaf("DNS:strict.test,email:x@mail.bad.test"))
        try mint("outsideDirConstraint", "/O=Other/CN=strict.test", by: "caDirConstrained", StrictPKI.leaf())
        certificates = minted
    }
}

extension PKI.Minter {
    /// Mints one certificate with `openssl x509 -req`: a new key (or the one at `keyPath`), a CSR for
    /// `subject`, signed by `issuer` (or self-signed when `nil`) with exactly `extensions` plus
    /// OpenSSL's default key identifiers (suppress them with `...KeyIdentifier=none`).
    ///
    /// - Parameter digest: `-<digest>` and any further arguments, space-separated; `nil` for none (Ed25519).
    func mint(
        _ name: String, subject: String, issuer: (certificate: String, key: String)?, extensions: String, key: KeyType, serial: String,
        digest: String?, keyPath existingKey: String?
    ) throws -> StrictPKI.Minted {
        let keyPath = existingKey ?? path(name + ".key")
        if existingKey == nil { try makeKey(name, key) }
        try openssl(["req", "-new", "-key", keyPath, "-subj", subject, "-out", path(name + ".csr")])
        try "[ext]\n\(extensions)".write(toFile: path(name + ".ext"), atomically: true, encoding: .utf8)
        var arguments = ["x509", "-req", "-in", path(name + ".csr"), "-out", path(name + ".pem"), "-days", "1",
                         "-set_serial", serial, "-extfile", path(name + ".ext"), "-extensions", "ext"]
        if let issuer {
            arguments += ["-CA", issuer.certificate, "-CAkey", issuer.key]
        } else {
            arguments += ["-signkey", keyPath]
        }
        if let digest {
            let parts = digest.split(separator: " ").map(String.init)
            arguments += ["-" + parts[0]] + parts.dropFirst()
        }
        try openssl(arguments)
        let certificate = try Certificate.load(pemFile: path(name + ".pem"))[0]
        return StrictPKI.Minted(certificate: certificate, certificatePath: path(name + ".pem"), keyPath: keyPath)
    }
}
