// The certificate cases of the HTTPS lab (issue 4): an intermediate CA under the lab root, and
// server certificates for `lariat.test` that are valid, expired, not yet valid, self-signed, from
// an untrusted root, wildcard, partial-wildcard, IP-only, RSA 1024, SHA-1 signed, CN-only; and a
// client CA with a client certificate as PEM and PKCS#12. Issued with `openssl ca`, which (unlike
// `openssl x509` in OpenSSL 3.0) takes explicit start and end dates.
#if FullFoundation
import Foundation

extension HTTPSLab {
    /// The name the case certificates are for; sessions map it (and its siblings) to 127.0.0.1.
    package static let hostName = "lariat.test"
    /// Every name a case connects to, all resolved to 127.0.0.1 by ``resolver``.
    package static let caseHosts = [
        "lariat.test", "other.lariat.test", "a.wild.lariat.test", "wild.lariat.test", "a.b.wild.lariat.test", "api1.lariat.test",
    ]
    /// Password of `client.p12` and `client.enc.key`.
    package static let clientPassword = "lariat-client"

    private static let serverExtensions = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"

    package func mintCases() throws {
        for ca in ["ca", "rogue"] { try makeDatabase(ca) }
        try makeKey("inter")
        try request("inter", subject: "/CN=Lariat Test Intermediate")
        try issue("inter", by: "ca", extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n")
        try makeDatabase("inter")

        let hour = 3600
        let cases: [(name: String, by: String, sans: String?, subject: String, validity: (Int, Int), rsaBits: Int?, digest: String)] = [
            ("good", "inter", "DNS:lariat.test", "/CN=lariat.test", (-hour, 20 * hour), nil, "sha256"),
            ("expired", "inter", "DNS:lariat.test", "/CN=lariat.test", (-48 * hour, -24 * hour), nil, "sha256"),
            ("future", "inter", "DNS:lariat.test", "/CN=lariat.test", (24 * hour, 48 * hour), nil, "sha256"),
            ("untrusted", "rogue", "DNS:lariat.test", "/CN=lariat.test", (-hour, 20 * hour), nil, "sha256"),
            ("wildcard", "inter", "DNS:*.wild.lariat.test", "/CN=wild", (-hour, 20 * hour), nil, "sha256"),
            ("partial", "inter", "DNS:api*.lariat.test", "/CN=partial", (-hour, 20 * hour), nil, "sha256"),
            ("ip", "inter", "IP:127.0.0.1", "/CN=ip", (-hour, 20 * hour), nil, "sha256"),
            ("weakrsa", "inter", "DNS:lariat.test", "/CN=lariat.test", (-hour, 20 * hour), 1024, "sha256"),
            ("sha1", "inter", "DNS:lariat.test", "/CN=lariat.test", (-hour, 20 * hour), nil, "sha1"),
            ("cnonly", "inter", nil, "/CN=lariat.test", (-hour, 20 * hour), nil, "sha256"),
        ]
        for leaf in cases {
            try makeKey(leaf.name, rsaBits: leaf.rsaBits)
            try request(leaf.name, subject: leaf.subject)
            let extensions = HTTPSLab.serverExtensions + (leaf.sans.map { "subjectAltName=\($0)\n" } ?? "")
            try issue(leaf.name, by: leaf.by, extensions: extensions, validity: leaf.validity, digest: leaf.digest)
        }
        // Leaf and intermediate in one file, for servers that take a single chain file.
        let chain = try String(contentsOfFile: path("good.pem"), encoding: .utf8) + String(contentsOfFile: path("inter.pem"), encoding: .utf8)
        try chain.write(toFile: path("good-chain.pem"), atomically: true, encoding: .utf8)
        // CRLs of the root and the intermediate in one file (curl --crlfile checks the whole chain).
        for ca in ["ca", "inter"] {
            try openssl(["ca", "-gencrl", "-config", path(ca + ".cnf"), "-crldays", "1", "-out", path(ca + ".crl.pem")])
        }
        let crls = try String(contentsOfFile: path("ca.crl.pem"), encoding: .utf8) + String(contentsOfFile: path("inter.crl.pem"), encoding: .utf8)
        try crls.write(toFile: path("crls.pem"), atomically: true, encoding: .utf8)
        // Self-signed leaf for the right name.
        try makeKey("selfsigned")
        try openssl([
            "req", "-x509", "-new", "-key", path("selfsigned.key"), "-subj", "/CN=lariat.test", "-days", "1",
            "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "subjectAltName=DNS:lariat.test", "-out", path("selfsigned.pem"),
        ])
        // Mutual TLS: a client CA, a client certificate (PEM, encrypted PEM key, PKCS#12), and a
        // client certificate from the rogue root that the server must refuse.
        try makeKey("clientca")
        try openssl([
            "req", "-x509", "-new", "-key", path("clientca.key"), "-subj", "/CN=Lariat Client CA", "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", path("clientca.pem"),
        ])
        try makeDatabase("clientca")
        let clientExtensions = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n"
        for (name, ca) in [("client", "clientca"), ("strangerclient", "rogue")] {
            try makeKey(name)
            try request(name, subject: "/CN=\(name)")
            try issue(name, by: ca, extensions: clientExtensions)
        }
        try openssl([
            "pkcs12", "-export", "-in", path("client.pem"), "-inkey", path("client.key"), "-certfile", path("clientca.pem"),
            "-passout", "pass:\(HTTPSLab.clientPassword)", "-out", path("client.p12"),
        ])
        try openssl(["pkey", "-in", path("client.key"), "-aes256", "-passout", "pass:\(HTTPSLab.clientPassword)", "-out", path("client.enc.key")])
    }

    private func makeKey(_ name: String, rsaBits: Int? = nil) throws {
        if let rsaBits {
            try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(rsaBits)", "-out", path(name + ".key")])
        } else {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name + ".key")])
        }
    }

    private func request(_ name: String, subject: String) throws {
        try openssl(["req", "-new", "-key", path(name + ".key"), "-subj", subject, "-out", path(name + ".csr")])
    }

    /// An `openssl ca` database and configuration for the lab CA `name` (`NAME.pem`, `NAME.key`).
    private func makeDatabase(_ name: String) throws {
        let database = path(name + "-db")
        try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: true)
        try "".write(toFile: database + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: database + "/serial", atomically: true, encoding: .utf8)
        // RFC 5280 section 5.2.3: a CRL carries cRLNumber (a CRL without it is refused).
        try "1000\n".write(toFile: database + "/crlnumber", atomically: true, encoding: .utf8)
        let configuration = """
            [ ca ]
            default_ca = lab
            [ lab ]
            database = \(database)/index.txt
            new_certs_dir = \(database)
            serial = \(database)/serial
            crlnumber = \(database)/crlnumber
            certificate = \(path(name + ".pem"))
            private_key = \(path(name + ".key"))
            default_md = sha256
            policy = anything
            unique_subject = no
            copy_extensions = none
            [ anything ]
            commonName = optional
            """
        try configuration.write(toFile: path(name + ".cnf"), atomically: true, encoding: .utf8)
    }

    /// Signs `NAME.csr` with the lab CA `ca` into `NAME.pem`, valid from now+`validity.0` to now+`validity.1` seconds.
    private func issue(_ name: String, by ca: String, extensions: String, validity: (Int, Int) = (-3600, 20 * 3600), digest: String = "sha256") throws {
        try "[ext]\n\(extensions)".write(toFile: path(name + ".ext"), atomically: true, encoding: .utf8)
        try openssl([
            "ca", "-batch", "-notext", "-config", path(ca + ".cnf"), "-in", path(name + ".csr"), "-out", path(name + ".pem"),
            "-md", digest, "-startdate", HTTPSLab.stamp(validity.0), "-enddate", HTTPSLab.stamp(validity.1),
            "-extfile", path(name + ".ext"), "-extensions", "ext",
        ])
    }

    /// `YYYYMMDDHHMMSSZ`, `offset` seconds from now.
    private static func stamp(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: Date().addingTimeInterval(TimeInterval(offset)))
    }
}
#endif
