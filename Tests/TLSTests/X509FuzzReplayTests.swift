import COpenSSL
import Foundation
import Testing
@testable import TLS

// Replays the X.509 fuzz targets' files (Fuzz/corpus/<target>/ and Fuzz/FailCases/<target>-*)
// with the targets' oracles (Fuzz/Sources/<target>/main.swift), so a crasher found by a campaign
// stays fixed without a fuzzer. The fixed PKI is the corpus's test-root/-intermediate/-leaf.

/// The directory of the fuzz package.
private let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz")

/// The files of one fuzz target, as (name, bytes), corpus first.
private func fuzzInputs(_ target: String) -> [(name: String, bytes: [UInt8])] {
    var files: [(String, [UInt8])] = []
    let corpus = fuzzDirectory.appendingPathComponent("corpus/\(target)")
    for name in ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted() where !name.hasPrefix(".") {
        if let data = FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path) { files.append(("corpus/\(target)/\(name)", [UInt8](data))) }
    }
    let failCases = fuzzDirectory.appendingPathComponent("FailCases")
    for name in ((try? FileManager.default.contentsOfDirectory(atPath: failCases.path)) ?? []).sorted() where name.hasPrefix("\(target)-") {
        if let data = FileManager.default.contents(atPath: failCases.appendingPathComponent(name).path) { files.append(("FailCases/\(name)", [UInt8](data))) }
    }
    return files
}

private func fixture(_ name: String) throws -> [UInt8] {
    let path = fuzzDirectory.appendingPathComponent(name).path
    return try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) }, "missing \(path)")
}

/// The fixed PKI of the targets (Fuzz/Sources/X509FuzzHarness/Anchors.swift), from the corpus.
private struct FixedPKI {
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let store: TrustStore
    /// 2026-06-01T00:00:00Z, as `Anchors.verificationTime`.
    static let time: Int64 = 1_780_272_000

    init() throws {
        root = try Certificate(derBytes: try fixture("corpus/certificate/test-root.der"))
        intermediate = try Certificate(derBytes: try fixture("corpus/certificate/test-intermediate.der"))
        leaf = try Certificate(derBytes: try fixture("corpus/certificate/test-leaf.der"))
        store = TrustStore(anchors: [root])
    }

    func policy(_ host: String?, _ profile: TrustProfile, depth: Int = 6, presented: Int = 32) -> TrustPolicy {
        TrustPolicy(host: host, verificationTime: FixedPKI.time, profile: profile, maximumChainDepth: depth, maximumPresentedCertificates: presented)
    }

    /// Both profiles; a trusted verdict needs a SAN the RFC 6125 matcher accepts.
    func evaluate(_ chain: [Certificate], host: String?, store: TrustStore? = nil, partial: Bool = false, _ name: String) -> [Bool] {
        [TrustProfile.rfc5280, .webPKI].map { profile in
            var policy = policy(host, profile)
            policy.allowPartialChain = partial
            let result = (store ?? self.store).evaluate(chain: chain, policy: policy)
            if result.isTrusted, let host, let leaf = chain.first {
                #expect(HostnameMatcher.matches(host: host, subjectAlternativeNames: leaf.subjectAlternativeNames), "\(name): trusted for \(host) without a SAN for it")
            }
            return result.isTrusted
        }
    }
}

/// The leading complete DER values of `bytes` (the `chain` target's cut).
private func derElements(_ bytes: [UInt8], limit: Int) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var offset = 0
    while offset + 2 <= bytes.count, result.count < limit, bytes[offset] & 0x1F != 0x1F {
        var header = 2
        var length = Int(bytes[offset + 1])
        if length >= 0x80 {
            let count = length & 0x7F
            guard (1...3).contains(count), offset + 2 + count <= bytes.count else { break }
            length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
            header += count
        }
        guard length <= bytes.count - offset - header else { break }
        result.append(Array(bytes[offset..<offset + header + length]))
        offset += header + length
    }
    return result
}

@Suite("Fuzz input replay (X.509)")
struct X509FuzzReplayTests {
    @Test("certificate: reads, identity checks and both profiles; the seeds' test leaf is trusted")
    func certificate() throws {
        let pki = try FixedPKI()
        let inputs = fuzzInputs("certificate")
        #expect(inputs.count >= 50)
        for (name, bytes) in inputs {
            // Lariat leaves the thread's OpenSSL error queue as it found it, failures included:
            // errors left behind made the next PEM parse on that thread fail (StaleOpenSSLErrorsTests).
            ERR_clear_error()
            defer { #expect(ERR_peek_error() == 0, "\(name): errors left on the thread's OpenSSL queue") }
            guard let certificate = try? Certificate(derBytes: bytes) else { continue }
            #expect(try Certificate(derBytes: certificate.derBytes).derBytes == certificate.derBytes, "\(name)")
            _ = CertificateFacts(certificate)
            _ = certificate.decodedPublicKey?.pinnedPublicKeyHash
            let names = certificate.subjectAlternativeNames
            for host in ["localhost", "127.0.0.1", "::1", "www.example.com"] { _ = HostnameMatcher.matches(host: host, subjectAlternativeNames: names) }
            _ = pki.evaluate([certificate, pki.intermediate], host: "localhost", name)
            _ = pki.evaluate([certificate], host: nil, store: TrustStore(anchors: [certificate]), partial: true, name)
        }
        #expect(pki.evaluate([pki.leaf, pki.intermediate], host: "localhost", "test leaf") == [true, true])
    }

    @Test("chain: presented chains of up to 40 certificates end in a verdict; leaf+intermediate is trusted")
    func chain() throws {
        let pki = try FixedPKI()
        for (name, bytes) in fuzzInputs("chain") {
            let chain = derElements(bytes, limit: 40).compactMap { try? Certificate(derBytes: $0) }
            guard !chain.isEmpty else { continue }
            let verdict = pki.evaluate(chain, host: "localhost", name)
            if name.hasSuffix("/leaf-intermediate.der") { #expect(verdict == [true, true], "\(name)") }
            if name.hasSuffix("/issuer-loop.der") { #expect(verdict == [false, false], "\(name)") }
        }
    }

    @Test("crl: a CRL loads into a store and is consulted; one CRL never covers the whole chain")
    func crl() throws {
        let pki = try FixedPKI()
        for (name, bytes) in fuzzInputs("crl") {
            guard let crl = try? CertificateRevocationList(derBytes: bytes) else { continue }
            _ = (crl.issuer, crl.lastUpdate, crl.nextUpdate)
            guard let store = try? TrustStore(roots: .certificates([pki.root]), crls: [crl]) else { continue }
            var policy = pki.policy("localhost", .rfc5280)
            policy.crlCheck = .fullChain
            #expect(!store.evaluate(chain: [pki.leaf, pki.intermediate], policy: policy).isTrusted, "\(name)")
        }
    }

    @Test("ocsp: a status or a problem, never both; policies follow the status")
    func ocsp() throws {
        let pki = try FixedPKI()
        var statuses: [String: String] = [:]
        for (name, bytes) in fuzzInputs("ocsp") {
            let result = pki.store.checkOCSPResponse(bytes, chain: [pki.leaf, pki.intermediate])
            #expect((result.status == nil) != (result.problem == nil), "\(name)")
            #expect((result.failure(under: .require) == nil) == (result.status == .good), "\(name)")
            statuses[name] = result.description
        }
        #expect(statuses["corpus/ocsp/good.der"] == "good")
        #expect(statuses["corpus/ocsp/revoked.der"] == "revoked")
        #expect(statuses["corpus/ocsp/delegated.der"] == "good")
    }

    @Test("pkcs12: bundles load with the empty password or \"fuzz\" and validate as identities")
    func pkcs12() throws {
        var validated = 0
        for (name, bytes) in fuzzInputs("pkcs12") {
            for password in ["", "fuzz"] {
                guard let bundle = try? PKCS12Bundle(derBytes: bytes, password: password) else { continue }
                for certificate in [bundle.certificate] + bundle.caCertificates {
                    #expect(try Certificate(derBytes: certificate.derBytes).derBytes == certificate.derBytes, "\(name)")
                }
                if (try? ClientIdentity.certificates([bundle.certificate] + bundle.caCertificates, key: bundle.privateKey).validated()) != nil { validated += 1 }
            }
        }
        #expect(validated >= 3, "the seed bundles (password, no password, no MAC) validate")
    }

    /// A PKCS#12 file whose key bag holds an EC private key with a public point OpenSSL cannot
    /// encode (`ossl_ec_GFp_simple_point2oct: invalid form`): `PKCS12_parse` accepts it, and
    /// `PrivateKey.publicKey` trapped (`preconditionFailure`) reading it back. Found by the
    /// `pkcs12` target after 1.8 million executions.
    @Test("a PKCS#12 EC key whose public point cannot be encoded: loading throws, nothing traps")
    func unencodableECPublicKey() throws {
        let bytes = try fixture("FailCases/pkcs12-unencodable-ec-public-key")
        #expect(throws: TLSError.self) { try PKCS12Bundle(derBytes: bytes, password: "") }
    }

    /// A certificate whose SubjectPublicKeyInfo names prime256v1 with a point OpenSSL cannot
    /// decode loads (OpenSSL 3 defers the key), and `publicKey` trapped on it: found by the
    /// `certificate` target in its first 100 executions.
    @Test("an undecodable public key: the identity check throws, nothing traps")
    func undecodablePublicKey() throws {
        let certificate = try Certificate(derBytes: try fixture("FailCases/certificate-undecodable-public-key"))
        let key = try PrivateKey(pemBytes: try fixture("corpus/pem/key.pem"))
        #expect(throws: TLSError.self) { try ClientIdentity.certificates([certificate], key: key).validated() }
    }
}
