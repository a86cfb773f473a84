import Foundation
import Synchronization
import TLS

/// The PKI directory to delete when the test process exits (the shared PKI is never deinitialized).
private let pkiDirectoryToRemove = Mutex<String?>(nil)

/// A throw-away PKI minted with the `openssl` CLI at test time (nothing is committed, every
/// certificate is valid for a day at most). Built once per test process and shared.
///
/// Layout: `root` (self-signed CA) → `intermediate` (CA) → leaves. A second, untrusted
/// `otherRoot` issues `untrustedLeaf`. The intermediate's `openssl ca` database records
/// `revokedLeaf` as revoked, which feeds both the CRLs and the OCSP responses.
final class PKI: Sendable {
    /// One certificate with its key, as objects and as files.
    struct Identity: Sendable {
        let certificate: Certificate
        let key: PrivateKey
        let certificatePath: String
        let keyPath: String
    }

    static let shared: PKI = {
        do { return try PKI() } catch { fatalError("cannot mint the test PKI: \(error)") }
    }()

    let directory: String
    let root: Identity
    let intermediate: Identity
    let otherRoot: Identity
    let clientCA: Identity

    let leaf: Identity  // DNS:localhost, DNS:example.test, IP:127.0.0.1, IP:::1
    let wildcardLeaf: Identity  // DNS:*.wild.test
    let expiredLeaf: Identity
    let notYetValidLeaf: Identity
    let noSANLeaf: Identity  // CN=localhost, no subjectAltName
    let selfSignedLeaf: Identity
    let untrustedLeaf: Identity  // issued by otherRoot
    let weakRSALeaf: Identity  // RSA 1024
    let sha1Leaf: Identity  // signed with SHA-1
    let rsaLeaf: Identity  // RSA 2048, for TLS 1.0 servers and the RSA key exchange
    let revokedLeaf: Identity
    let client: Identity  // clientAuth, issued by clientCA

    let intermediateCRLPath: String
    let rootCRLPath: String
    let ocspGood: [UInt8]
    let ocspRevoked: [UInt8]
    let ocspGoodSignedByStranger: [UInt8]
    let clientPKCS12Path: String
    static let pkcs12Password = "lariat-p12"
    static let keyPassword = "lariat-key"
    let encryptedKeyPath: String

    private init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        directory = base
        pkiDirectoryToRemove.withLock { $0 = base }
        atexit {
            if let path = pkiDirectoryToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        let minter = Minter(directory: base)

        root = try minter.selfSigned("root", subject: "/CN=Lariat Test Root", isCA: true)
        try minter.makeDatabase(for: "root")
        intermediate = try minter.issue("intermediate", subject: "/CN=Lariat Test Intermediate", by: "root", kind: .ca)
        try minter.makeDatabase(for: "intermediate")
        otherRoot = try minter.selfSigned("otherRoot", subject: "/CN=Untrusted Root", isCA: true)
        try minter.makeDatabase(for: "otherRoot")
        clientCA = try minter.selfSigned("clientCA", subject: "/CN=Lariat Client CA", isCA: true)
        try minter.makeDatabase(for: "clientCA")

        let hour = 3600
        leaf = try minter.issue("leaf", subject: "/CN=localhost", by: "intermediate",
                                kind: .server(sans: "DNS:localhost,DNS:example.test,IP:127.0.0.1,IP:::1"))
        wildcardLeaf = try minter.issue("wildcard", subject: "/CN=*.wild.test", by: "intermediate", kind: .server(sans: "DNS:*.wild.test"))
        expiredLeaf = try minter.issue("expired", subject: "/CN=localhost", by: "intermediate",
                                       kind: .server(sans: "DNS:localhost"), validity: (-48 * hour, -24 * hour))
        notYetValidLeaf = try minter.issue("future", subject: "/CN=localhost", by: "intermediate",
                                           kind: .server(sans: "DNS:localhost"), validity: (24 * hour, 48 * hour))
        noSANLeaf = try minter.issue("nosan", subject: "/CN=localhost", by: "intermediate", kind: .server(sans: nil))
        selfSignedLeaf = try minter.selfSigned("selfsigned", subject: "/CN=localhost", isCA: false, sans: "DNS:localhost")
        untrustedLeaf = try minter.issue("untrusted", subject: "/CN=localhost", by: "otherRoot", kind: .server(sans: "DNS:localhost"))
        weakRSALeaf = try minter.issue("weakrsa", subject: "/CN=localhost", by: "intermediate",
                                       kind: .server(sans: "DNS:localhost"), key: .rsa(1024))
        sha1Leaf = try minter.issue("sha1", subject: "/CN=localhost", by: "intermediate",
                                    kind: .server(sans: "DNS:localhost"), digest: "sha1")
        rsaLeaf = try minter.issue("rsa", subject: "/CN=localhost", by: "intermediate",
                                   kind: .server(sans: "DNS:localhost"), key: .rsa(2048))
        revokedLeaf = try minter.issue("revoked", subject: "/CN=localhost", by: "intermediate", kind: .server(sans: "DNS:localhost"))
        client = try minter.issue("client", subject: "/CN=Lariat Client", by: "clientCA", kind: .client)

        try minter.revoke("revoked", by: "intermediate")
        intermediateCRLPath = try minter.crl(by: "intermediate")
        rootCRLPath = try minter.crl(by: "root")
        ocspGood = try minter.ocspResponse(for: "leaf", by: "intermediate")
        ocspRevoked = try minter.ocspResponse(for: "revoked", by: "intermediate")
        ocspGoodSignedByStranger = try minter.ocspResponse(for: "leaf", by: "intermediate", signer: "otherRoot")
        clientPKCS12Path = try minter.pkcs12("client", chain: "clientCA", password: PKI.pkcs12Password)
        encryptedKeyPath = try minter.encryptedKey("client", password: PKI.keyPassword)
    }

    /// Mints keys and certificates with the openssl CLI.
    struct Minter {
        enum Kind { case ca, server(sans: String?), client }
        enum KeyType { case ec, ecCurve(String), rsa(Int), dsa(Int), ed25519 }
        let directory: String

        func path(_ name: String) -> String { directory + "/" + name }

        @discardableResult
        func openssl(_ arguments: [String]) throws -> Data {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw MintError(message: "openssl \(arguments.joined(separator: " ")) failed: \(errorText)")
            }
            return data
        }

        func makeKey(_ name: String, _ type: KeyType) throws {
            switch type {
            case .ec: try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name + ".key")])
            case .rsa(let bits): try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", path(name + ".key")])
            case .ecCurve(let curve):
                try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", path(name + ".key")])
            case .ed25519: try openssl(["genpkey", "-algorithm", "ED25519", "-out", path(name + ".key")])
            case .dsa(let bits):
                try openssl(["genpkey", "-genparam", "-algorithm", "DSA", "-pkeyopt", "dsa_paramgen_bits:\(bits)", "-out", path(name + ".param")])
                try openssl(["genpkey", "-paramfile", path(name + ".param"), "-out", path(name + ".key")])
            }
        }

        func identity(_ name: String) throws -> Identity {
            let certificate = try Certificate.load(pemFile: path(name + ".pem"))[0]
            let key = try PrivateKey.load(file: path(name + ".key"))
            return Identity(certificate: certificate, key: key, certificatePath: path(name + ".pem"), keyPath: path(name + ".key"))
        }

        func selfSigned(_ name: String, subject: String, isCA: Bool, sans: String? = nil) throws -> Identity {
            try makeKey(name, .ec)
            var arguments = ["req", "-x509", "-new", "-key", path(name + ".key"), "-subj", subject, "-days", "1", "-out", path(name + ".pem")]
            if isCA {
                arguments += ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
            } else {
                arguments += ["-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth"]
            }
            if let sans { arguments += ["-addext", "subjectAltName=\(sans)"] }
            try openssl(arguments)
            return try identity(name)
        }

        func makeDatabase(for ca: String) throws {
            let database = path(ca + "-db")
            try FileManager.default.createDirectory(atPath: database + "/new", withIntermediateDirectories: true)
            try "".write(toFile: database + "/index.txt", atomically: true, encoding: .utf8)
            try "1000\n".write(toFile: database + "/serial", atomically: true, encoding: .utf8)
            try "1000\n".write(toFile: database + "/crlnumber", atomically: true, encoding: .utf8)
            let config = """
                [ ca ]
                default_ca = CA_default
                [ CA_default ]
                dir = \(database)
                database = $dir/index.txt
                new_certs_dir = $dir/new
                serial = $dir/serial
                crlnumber = $dir/crlnumber
                default_md = sha256
                policy = policy_any
                unique_subject = no
                default_days = 1
                default_crl_days = 1
                [ policy_any ]
                commonName = supplied
                """
            try config.write(toFile: path(ca + ".cnf"), atomically: true, encoding: .utf8)
        }

        static func stamp(_ offset: Int) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss'Z'"
            return formatter.string(from: Date().addingTimeInterval(TimeInterval(offset)))
        }

        func caArguments(_ ca: String) -> [String] {
            ["ca", "-batch", "-config", path(ca + ".cnf"), "-cert", path(ca + ".pem"), "-keyfile", path(ca + ".key")]
        }

        func issue(
            _ name: String, subject: String, by ca: String, kind: Kind,
            validity: (Int, Int) = (-3600, 20 * 3600), key: KeyType = .ec, digest: String = "sha256"
        ) throws -> Identity {
            try makeKey(name, key)
            try openssl(["req", "-new", "-key", path(name + ".key"), "-subj", subject, "-out", path(name + ".csr")])
            var extensions = "[ext]\n"
            switch kind {
            case .ca:
                extensions += "basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n"
            case .server(let sans):
                extensions += "basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature,keyEncipherment\n"
                extensions += "extendedKeyUsage = serverAuth\n"
                if let sans { extensions += "subjectAltName = \(sans)\n" }
            case .client:
                extensions += "basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\nextendedKeyUsage = clientAuth\n"
            }
            try extensions.write(toFile: path(name + ".ext"), atomically: true, encoding: .utf8)
            try openssl(caArguments(ca) + [
                "-in", path(name + ".csr"), "-out", path(name + ".pem"), "-notext", "-md", digest,
                "-startdate", Minter.stamp(validity.0), "-enddate", Minter.stamp(validity.1),
                "-extfile", path(name + ".ext"), "-extensions", "ext",
            ])
            return try identity(name)
        }

        func revoke(_ name: String, by ca: String) throws {
            try openssl(caArguments(ca) + ["-revoke", path(name + ".pem"), "-crl_reason", "keyCompromise"])
        }

        func crl(by ca: String) throws -> String {
            try openssl(caArguments(ca) + ["-gencrl", "-crldays", "1", "-out", path(ca + ".crl.pem")])
            return path(ca + ".crl.pem")
        }

        func ocspResponse(for name: String, by ca: String, signer: String? = nil) throws -> [UInt8] {
            let responder = signer ?? ca
            let output = path("\(name)-\(responder).ocsp.der")
            try openssl([
                "ocsp", "-index", path(ca + "-db/index.txt"), "-rsigner", path(responder + ".pem"), "-rkey", path(responder + ".key"),
                "-CA", path(ca + ".pem"), "-issuer", path(ca + ".pem"), "-cert", path(name + ".pem"),
                "-respout", output, "-ndays", "1",
            ])
            return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        }

        /// - Parameter options: More `openssl pkcs12 -export` options (`-iter N`, `-nomaciter`), and
        ///   the file's name suffix with them.
        func pkcs12(_ name: String, chain: String, password: String, options: [String] = []) throws -> String {
            let output = path(name + options.joined() + ".p12")
            try openssl([
                "pkcs12", "-export", "-in", path(name + ".pem"), "-inkey", path(name + ".key"),
                "-certfile", path(chain + ".pem"), "-passout", "pass:\(password)", "-out", output,
            ] + options)
            return output
        }

        func encryptedKey(_ name: String, password: String) throws -> String {
            let output = path(name + ".enc.key")
            try openssl(["pkey", "-in", path(name + ".key"), "-aes256", "-passout", "pass:\(password)", "-out", output])
            return output
        }
    }

    struct MintError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
