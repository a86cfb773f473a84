import Foundation
import Testing
@testable import TLS

/// The key loaders refuse input before OpenSSL builds a decoder for it (`KeyInputPrefilter`).
/// These tests hold them to one promise: the loaders' verdict is OpenSSL's, on real key files of
/// every kind, on their PEM label line bent in the ways OpenSSL's reader cares about, and on
/// single-byte edits of each.
@Suite struct KeyInputPrefilterTests {
    private static let pki = PKI.shared

    /// Key files of every shape the loaders take, and shapes they must refuse, minted once.
    private static let files: [String: [UInt8]] = {
        let minter = PKI.Minter(directory: pki.directory)
        func run(_ arguments: [String]) -> [UInt8] {
            do { return Array(try minter.openssl(arguments)) } catch { fatalError("\(error)") }
        }
        let ec = pki.leaf.keyPath, rsa = pki.rsaLeaf.keyPath
        var files: [String: [UInt8]] = [
            "PKCS#8 EC": run(["pkey", "-in", ec]),
            "PKCS#8 RSA": run(["pkey", "-in", rsa]),
            "EC PRIVATE KEY": run(["ec", "-in", ec]),
            "RSA PRIVATE KEY": run(["rsa", "-in", rsa, "-traditional"]),
            "ENCRYPTED PRIVATE KEY": Array((try? Data(contentsOf: URL(fileURLWithPath: pki.encryptedKeyPath))) ?? Data()),
            "PUBLIC KEY": run(["pkey", "-in", ec, "-pubout"]),
            "RSA PUBLIC KEY": run(["rsa", "-in", rsa, "-RSAPublicKey_out"]),
            "EC PARAMETERS": run(["ecparam", "-name", "prime256v1"]),
            "certificate": Array((try? Data(contentsOf: URL(fileURLWithPath: pki.leaf.certificatePath))) ?? Data()),
        ]
        files["identity (certificate, then key)"] = files["certificate"]! + files["PKCS#8 EC"]!
        files["identity (certificate, then public key)"] = files["certificate"]! + files["PUBLIC KEY"]!
        files["DER PKCS#8"] = run(["pkey", "-in", ec, "-outform", "DER"])
        files["DER RSAPrivateKey"] = run(["rsa", "-in", rsa, "-traditional", "-outform", "DER"])
        files["DER ECPrivateKey"] = run(["ec", "-in", ec, "-outform", "DER"])
        return files
    }()

    /// OpenSSL's verdict without the prefilter, and the loaders' verdict, for one input.
    private static func verdicts(_ bytes: [UInt8], password: String? = nil) -> [String: (openSSL: Bool, loader: Bool)] {
        [
            "private PEM": (
                (try? PrivateKey(takingOwnershipOf: PrivateKey.decodePEM(bytes, password: password))) != nil,
                (try? PrivateKey(pemBytes: bytes, password: password)) != nil
            ),
            "private DER": (
                (try? PrivateKey(takingOwnershipOf: PrivateKey.decodeDER(bytes))) != nil,
                (try? PrivateKey(derBytes: bytes)) != nil
            ),
            "public PEM": (
                (try? PublicKey(takingOwnershipOf: PublicKey.decodePEM(bytes))) != nil,
                (try? PublicKey(pemBytes: bytes)) != nil
            ),
        ]
    }

    @Test(arguments: [
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "PRIVATE KEY", true),
        ("-----BEGIN ENCRYPTED PRIVATE KEY-----\n", "PRIVATE KEY", true),
        ("junk -----BEGIN RSA PRIVATE KEY----- junk", "PRIVATE KEY", true),  // looser than OpenSSL: a superset
        ("-----BEGIN PRIVATE\nKEY-----", "PRIVATE KEY", false),  // the label crosses a line
        ("-----BEGIN PRIVATE KEY----", "PRIVATE KEY", false),  // four dashes
        ("-----BEGIN PRIVATE KEY", "PRIVATE KEY", false),  // input ends first
        ("----BEGIN PRIVATE KEY-----", "PRIVATE KEY", false),
        ("-----begin private key-----", "PRIVATE KEY", false),
        ("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\nPRIVATE KEY-----", "PRIVATE KEY", false),
        ("-----BEGIN PUBLIC KEY-----", "PRIVATE KEY", false),
        ("-----BEGIN PUBLIC KEY-----", "PUBLIC KEY", true),
        ("-----BEGIN -----BEGIN RSA PUBLIC KEY-----", "PUBLIC KEY", true),
        ("-----BEGIN PRIVATE KEY-----", "PUBLIC KEY", false),
        ("", "PUBLIC KEY", false),
    ])
    func labelScan(text: String, suffix: String, expected: Bool) {
        #expect(KeyInputPrefilter.mayHoldPEMBlock(Array(text.utf8), labelSuffix: suffix) == expected)
    }

    /// A hostile line of 1 MiB that repeats `-----BEGIN ` is one pass, not one scan to the line's
    /// end per BEGIN (the first version did that: at 2 MiB it had not finished after 5 minutes).
    @Test(.timeLimit(.minutes(1))) func repeatedBeginsAreLinear() {
        let line = Array(Array(repeating: Array("-----BEGIN ".utf8), count: 95_000).joined())
        #expect(!KeyInputPrefilter.mayHoldPEMBlock(line, labelSuffix: "PRIVATE KEY"))
        #expect(KeyInputPrefilter.mayHoldPEMBlock(line + Array("PRIVATE KEY-----".utf8), labelSuffix: "PRIVATE KEY"))
        #expect(!KeyInputPrefilter.mayHoldPEMBlock(line + Array("\nPRIVATE KEY-----".utf8), labelSuffix: "PRIVATE KEY"))
    }

    @Test func derSequenceCheck() {
        #expect(KeyInputPrefilter.mayBeDERSequence([0x30, 0x00]))
        #expect(!KeyInputPrefilter.mayBeDERSequence([]))
        #expect(!KeyInputPrefilter.mayBeDERSequence([0x31, 0x00]))
        #expect(!KeyInputPrefilter.mayBeDERSequence(Array("-----BEGIN".utf8)))
    }

    /// Each key file loads as before: the loaders agree with OpenSSL, and the files that hold a key
    /// of a kind do load as that kind (so the agreement is not two refusals).
    @Test func keyFilesGetOpenSSLsVerdict() throws {
        let loads: [String: Set<String>] = [
            "PKCS#8 EC": ["private PEM"], "PKCS#8 RSA": ["private PEM"], "EC PRIVATE KEY": ["private PEM"],
            "RSA PRIVATE KEY": ["private PEM"], "PUBLIC KEY": ["public PEM"], "RSA PUBLIC KEY": ["public PEM"],
            "identity (certificate, then key)": ["private PEM"], "identity (certificate, then public key)": ["public PEM"],
            "DER PKCS#8": ["private DER"], "DER RSAPrivateKey": ["private DER"], "DER ECPrivateKey": ["private DER"],
            "EC PARAMETERS": [], "certificate": [], "ENCRYPTED PRIVATE KEY": [],
        ]
        #expect(Set(loads.keys) == Set(Self.files.keys))
        for (name, bytes) in Self.files.sorted(by: { $0.key < $1.key }) {
            for (loader, verdict) in Self.verdicts(bytes) {
                #expect(verdict.loader == verdict.openSSL, "\(name), \(loader): OpenSSL \(verdict.openSSL), loader \(verdict.loader)")
                #expect(verdict.loader == loads[name]?.contains(loader), "\(name), \(loader)")
            }
        }
        let encrypted = try #require(Self.files["ENCRYPTED PRIVATE KEY"])
        let withPassword = try #require(Self.verdicts(encrypted, password: PKI.keyPassword)["private PEM"])
        #expect(withPassword.openSSL && withPassword.loader)
    }

    /// The BEGIN line bent as OpenSSL's PEM reader sees it: it takes trailing whitespace, CRLF and
    /// a missing final newline, and refuses a leading space, four dashes, a doubled space, a tab
    /// and lowercase. The loaders must agree on every one.
    @Test(arguments: [
        ("", "-----BEGIN PRIVATE KEY-----\n"), ("  ", "-----BEGIN PRIVATE KEY-----\n"),
        ("", "-----BEGIN PRIVATE KEY-----   \n"), ("", "-----BEGIN PRIVATE KEY----\n"),
        ("", "-----BEGIN PRIVATE KEY-----x\n"), ("", "-----BEGIN  PRIVATE KEY-----\n"),
        ("", "-----BEGIN \tPRIVATE KEY-----\n"), ("", "-----begin private key-----\n"),
        ("", "-----BEGIN PRIVATE KEY-----\r\n"), ("junk\n", "-----BEGIN PRIVATE KEY-----\n"),
    ])
    func labelLineVariants(prefix: String, beginLine: String) throws {
        let pkcs8 = String(decoding: try #require(Self.files["PKCS#8 EC"]), as: UTF8.self)
        let body = pkcs8.split(separator: "\n").dropFirst()
        let bytes = Array((prefix + beginLine + body.joined(separator: "\n")).utf8)
        for (loader, verdict) in Self.verdicts(bytes) {
            #expect(verdict.loader == verdict.openSSL, "\(loader): OpenSSL \(verdict.openSSL), loader \(verdict.loader)")
        }
    }

    /// Every single-byte edit of the first 32 bytes of each file (the BEGIN line, or the DER
    /// header; set to 0x30, '-', '\n' or ' ', or deleted): the loaders agree with OpenSSL on all.
    @Test func singleByteEditsGetOpenSSLsVerdict() {
        var disagreements: [String] = []
        for (name, bytes) in Self.files.sorted(by: { $0.key < $1.key }) {
            for index in 0..<min(32, bytes.count) {
                var edits: [[UInt8]] = ([0x30, 0x2D, 0x0A, 0x20] as [UInt8]).map { byte in
                    var edited = bytes
                    edited[index] = byte
                    return edited
                }
                var deleted = bytes
                deleted.remove(at: index)
                edits.append(deleted)
                for edited in edits {
                    for (loader, verdict) in Self.verdicts(edited) where verdict.loader != verdict.openSSL {
                        disagreements.append("\(name) at \(index), \(loader): OpenSSL \(verdict.openSSL)")
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }
}
