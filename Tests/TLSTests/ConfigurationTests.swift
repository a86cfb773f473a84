import Foundation
import Testing
@testable import TLS

@Suite struct ConfigurationTests {
    struct Invalid: CustomTestStringConvertible, Sendable {
        let name: String
        let adjust: @Sendable (inout TLSConfiguration) -> Void
        var testDescription: String { name }
    }

    @Test(arguments: [
        Invalid(name: "TLS 1.1 floor") { $0.minimumVersion = .v1_1 },
        Invalid(name: "max below min") { $0.minimumVersion = .v1_3; $0.maximumVersion = .v1_2 },
        Invalid(name: "security level 1") { $0.securityLevel = 1 },
        Invalid(name: "cipher list selects nothing") { $0.cipherList = "NOT-A-CIPHER" },
        Invalid(name: "bad TLS 1.3 suite") { $0.cipherSuites = "TLS_NOPE" },
        Invalid(name: "empty ALPN name") { $0.applicationProtocols = [""] },
        Invalid(name: "long ALPN name") { $0.applicationProtocols = [String(repeating: "h", count: 256)] },
    ])
    func refusedAsConfiguration(_ row: Invalid) {
        let error = #expect(throws: TLSError.self) { try Fixture.clientContext(row.adjust) }
        #expect(error?.kind == .configuration)
    }

    @Test func missingFilesAreFileAccessErrors() {
        for adjust: (inout TLSConfiguration) -> Void in [
            { $0.trustRoots = .file("/nonexistent/ca.pem") },
            { $0.trustRoots = .directory("/nonexistent") },
            { $0.crlFiles = ["/nonexistent/crl.pem"] },
            { $0.clientIdentity = .pkcs12(file: "/nonexistent/id.p12", password: "") },
        ] {
            var configuration = TLSConfiguration()
            adjust(&configuration)
            let error = #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
            #expect(error?.kind == .fileAccess)
        }
    }

    @Test func defaultsAreStrict() {
        let configuration = TLSConfiguration()
        #expect(configuration.minimumVersion == .v1_2)
        #expect(configuration.securityLevel == 2)
        #expect(configuration.verification == .full)
        #expect(configuration.applicationProtocols == ["http/1.1"])
        #expect(configuration.ocspStapling == .ifPresent)
        #expect(!configuration.cipherList.contains("CBC") && !configuration.cipherList.contains(":AES"))
        #expect(configuration.cipherList.split(separator: ":").allSatisfy { $0.hasPrefix("ECDHE-") })
    }

    // The system store loads (Debian bundle or OpenSSL defaults) and builds a working context.
    @Test func systemTrustStoreLoads() throws {
        _ = try TLSClientContext()
        let store = try TrustStore(roots: .system)
        // A test root is never in the system store.
        let result = store.evaluate(chain: [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate], policy: TrustPolicy(host: "localhost"))
        #expect(result.failure?.reason == .incompleteChain)
    }

    @Test func trustRootsFromFileAndDirectory() throws {
        let minter = PKI.Minter(directory: PKI.shared.directory)
        let hashed = minter.path("hashed")
        try FileManager.default.createDirectory(atPath: hashed, withIntermediateDirectories: true)
        let hash = String(decoding: try minter.openssl(["x509", "-in", PKI.shared.root.certificatePath, "-noout", "-subject_hash"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.copyItem(atPath: PKI.shared.root.certificatePath, toPath: hashed + "/\(hash).0")
        let chain = [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate]
        for roots in [TrustRoots.file(PKI.shared.root.certificatePath), .directory(hashed), .combining([.certificates([]), .file(PKI.shared.root.certificatePath)])] {
            let store = try TrustStore(roots: roots)
            #expect(store.evaluate(chain: chain, policy: TrustPolicy(host: "localhost")).isTrusted, "\(roots)")
        }
    }

    // SSL_CERT_FILE replaces the system bundle, as with curl and OpenSSL.
    @Test func systemHonoursSSLCertFile() throws {
        setenv("SSL_CERT_FILE", PKI.shared.root.certificatePath, 1)
        defer { unsetenv("SSL_CERT_FILE") }
        let store = try TrustStore(roots: .system)
        #expect(store.evaluate(chain: [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate], policy: TrustPolicy(host: "localhost")).isTrusted)
        setenv("SSL_CERT_FILE", "/nonexistent/bundle.pem", 1)
        #expect(throws: TLSError.self) { try TrustStore(roots: .system) }
    }

    @Test func alpnCanBeDisabled() throws {
        let context = try Fixture.clientContext { $0.applicationProtocols = [] }
        let pump = try Fixture.pump(client: context, server: Fixture.serverContext(PKI.shared.leaf))
        #expect(pump.handshake().client.isComplete)
        #expect(pump.client.negotiatedApplicationProtocol == nil)
    }

    @Test func errorDescriptionsCarryReasons() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.expiredLeaf))
        let error = try #require(pump.handshake().client.error)
        #expect(error.description.contains("expired"))
        #expect(error.trustFailure?.code == 10)
        #expect(error.trustFailure?.depth == 0)
        #expect(error.openSSLErrors.contains { $0.message.contains("certificate verify failed") })
    }
}
