import Testing
@testable import TLS

@Suite struct MutualTLSTests {
    let pki = PKI.shared

    func serverRequiringClientCertificate() throws -> TLSServerContext {
        try Fixture.serverContext(pki.leaf) { $0.clientCertificateAnchors = [PKI.shared.clientCA.certificate] }
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func pemFilesAccepted(_ version: TLSVersion) throws {
        let context = try Fixture.clientContext {
            $0.maximumVersion = version
            $0.clientIdentity = .pemFiles(certificateChain: PKI.shared.client.certificatePath, privateKey: PKI.shared.client.keyPath)
        }
        let pump = try Fixture.pump(client: context, server: serverRequiringClientCertificate())
        let outcome = pump.handshake()
        #expect(outcome.client.isComplete)
        #expect(outcome.server.isComplete, "\(String(describing: outcome.server.error))")
        // In TLS 1.3 the server verifies the client's Finished flight after the client completes.
        _ = pump.client.write(Array("ping".utf8))
        pump.shuttle()
        #expect(pump.serverRead().bytes == Array("ping".utf8))
        #expect(pump.server.clientCertificate == pki.client.certificate)
    }

    @Test func pkcs12Accepted() throws {
        let context = try Fixture.clientContext {
            $0.clientIdentity = .pkcs12(file: PKI.shared.clientPKCS12Path, password: PKI.pkcs12Password)
        }
        let pump = try Fixture.pump(client: context, server: serverRequiringClientCertificate())
        #expect(pump.handshake().server.isComplete)
        #expect(pump.server.clientCertificate == pki.client.certificate)
    }

    @Test func encryptedKeyWithPassword() throws {
        let context = try Fixture.clientContext {
            $0.clientIdentity = .pemFiles(
                certificateChain: PKI.shared.client.certificatePath, privateKey: PKI.shared.encryptedKeyPath, password: PKI.keyPassword)
        }
        let pump = try Fixture.pump(client: context, server: serverRequiringClientCertificate())
        #expect(pump.handshake().server.isComplete)
    }

    @Test func wrongPasswordsAreDecodingErrors() {
        #expect(throws: TLSError.self) { try PKCS12Bundle.load(file: PKI.shared.clientPKCS12Path, password: "wrong") }
        #expect(throws: TLSError.self) { try PrivateKey.load(file: PKI.shared.encryptedKeyPath, password: "wrong") }
        // No password for an encrypted key: refused, never a terminal prompt.
        #expect(throws: TLSError.self) { try PrivateKey.load(file: PKI.shared.encryptedKeyPath) }
    }

    @Test func mismatchedKeyIsConfigurationError() {
        let error = #expect(throws: TLSError.self) {
            try Fixture.clientContext {
                $0.clientIdentity = .pemFiles(certificateChain: PKI.shared.client.certificatePath, privateKey: PKI.shared.leaf.keyPath)
            }
        }
        #expect(error?.kind == .configuration)
    }

    @Test func missingClientCertificateIsRefusedByServer() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext { $0.maximumVersion = .v1_2 }, server: serverRequiringClientCertificate())
        let outcome = pump.handshake()
        #expect(outcome.server.error != nil)
        #expect(outcome.client.error?.kind == .handshake)
    }

    /// `validated()`: (identity, expected error kind or nil when valid).
    static let validations: [(String, @Sendable () -> ClientIdentity, TLSError.Kind?)] = [
        ("PEM pair", { .pemFiles(certificateChain: PKI.shared.client.certificatePath, privateKey: PKI.shared.client.keyPath) }, nil),
        ("PKCS#12", { .pkcs12(file: PKI.shared.clientPKCS12Path, password: PKI.pkcs12Password) }, nil),
        ("missing file", { .pemFiles(certificateChain: "/nonexistent/client.pem", privateKey: PKI.shared.client.keyPath) }, .fileAccess),
        ("wrong PKCS#12 password", { .pkcs12(file: PKI.shared.clientPKCS12Path, password: "wrong") }, .decoding),
        ("key of another certificate", { .pemFiles(certificateChain: PKI.shared.client.certificatePath, privateKey: PKI.shared.leaf.keyPath) }, .configuration),
        ("empty in-memory chain", { .certificates([], key: PKI.shared.client.key) }, .configuration),
    ]

    @Test(arguments: 0..<6)
    func validated(index: Int) throws {
        let (name, make, expected) = MutualTLSTests.validations[index]
        switch Result(catching: { () throws(TLSError) in try make().validated() }) {
        case .success(let loaded):
            #expect(expected == nil, "\(name): expected \(String(describing: expected))")
            // The loaded identity works without the files.
            let context = try Fixture.clientContext { $0.clientIdentity = loaded }
            #expect(try Fixture.pump(client: context, server: serverRequiringClientCertificate()).handshake().server.isComplete, "\(name)")
        case .failure(let error):
            #expect(error.kind == expected, "\(name): \(error)")
        }
    }

    @Test func pkcs12Contents() throws {
        let bundle = try PKCS12Bundle.load(file: PKI.shared.clientPKCS12Path, password: PKI.pkcs12Password)
        #expect(bundle.certificate == pki.client.certificate)
        #expect(bundle.caCertificates == [pki.clientCA.certificate])
        #expect(bundle.privateKey.publicKey == pki.client.certificate.decodedPublicKey)
    }
}
