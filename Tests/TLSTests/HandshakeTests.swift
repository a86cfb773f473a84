import Testing
@testable import TLS

@Suite struct HandshakeTests {
    let pki = PKI.shared

    @Test func succeedsWithTrustedCAAndNegotiatesALPN() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf))
        let outcome = pump.handshake()
        #expect(outcome.client.isComplete, "\(String(describing: outcome.client.error))")
        #expect(outcome.server.isComplete)
        #expect(pump.client.negotiatedApplicationProtocol == "http/1.1")
        #expect(pump.server.negotiatedApplicationProtocol == "http/1.1")
        #expect(pump.client.negotiatedVersion == .v1_3)
        #expect(pump.client.negotiatedCipher?.hasPrefix("TLS_") == true)
        #expect(pump.client.peerCertificates.first == pki.leaf.certificate)
        #expect(pump.client.defaultTrustResult?.isTrusted == true)
        #expect(pump.client.defaultTrustResult?.verifiedChain.last == pki.root.certificate)
    }

    @Test func tls12WithForwardSecretAEAD() throws {
        let context = try Fixture.clientContext { $0.maximumVersion = .v1_2 }
        let pump = try Fixture.pump(client: context, server: Fixture.serverContext(pki.rsaLeaf))
        #expect(pump.handshake().client.isComplete)
        #expect(pump.client.negotiatedVersion == .v1_2)
        let cipher = try #require(pump.client.negotiatedCipher)
        #expect(cipher.hasPrefix("ECDHE-") && (cipher.contains("GCM") || cipher.contains("CHACHA20")), "\(cipher)")
    }

    // The default TLS 1.2 list has no RSA key exchange and no CBC: a server offering only those fails.
    @Test func refusesNonForwardSecretSuites() throws {
        let context = try Fixture.clientContext { $0.maximumVersion = .v1_2 }
        let server = try Fixture.serverContext(pki.rsaLeaf) { $0.maximumVersion = .v1_2; $0.cipherList = "AES128-SHA:AES256-GCM-SHA384" }
        let pump = try Fixture.pump(client: context, server: server)
        #expect(pump.handshake().client.error?.kind == .handshake)
    }

    // SNI for names (without the trailing dot), never for IP literals (RFC 6066 section 3).
    @Test(arguments: [("localhost", "localhost"), ("EXAMPLE.test.", "example.test"), ("127.0.0.1", nil), ("::1", nil), ("[::1]", nil)])
    func sniOnlyForHostNames(_ host: String, _ expected: String?) throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf), host: host)
        #expect(pump.handshake().client.isComplete, "\(host)")
        #expect(pump.server.requestedServerName == expected)
    }

    @Test func dataFlowsBothWaysAndCloseNotifyIsSeen() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf))
        #expect(pump.handshake().client.isComplete)
        let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        guard case .written(let count) = pump.client.write(request) else { Issue.record("write failed"); return }
        #expect(count == request.count)
        pump.shuttle()
        #expect(pump.serverRead().bytes == request)

        // 200 KiB body: larger than the BIO pair, so writes are partial and need shuttling.
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var offset = 0
        var received: [UInt8] = []
        while offset < body.count {
            switch pump.server.write(Array(body[offset...])) {
            case .written(let count): offset += count
            case .incomplete: break
            case .failed(let error): Issue.record("server write: \(error)"); return
            }
            pump.shuttle()
            received += pump.clientRead().bytes
        }
        pump.shuttle()
        received += pump.clientRead().bytes
        #expect(received == body)

        #expect(!pump.client.receivedCloseNotify)
        guard case .closeNotifySent = pump.server.shutdown() else { Issue.record("server shutdown"); return }
        pump.shuttle()
        guard case .closed(clean: true) = pump.clientRead().result else { Issue.record("expected a clean close"); return }
        #expect(pump.client.receivedCloseNotify)
        guard case .complete = pump.client.shutdown() else { Issue.record("client shutdown should complete"); return }
        pump.shuttle()
        guard case .closed(clean: true) = pump.serverRead().result else { Issue.record("server expected a clean close"); return }
        #expect(pump.server.receivedCloseNotify)
    }

    // A close-delimited body that ends with TCP EOF but no close_notify is a truncation.
    @Test func truncationIsDetected() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf))
        #expect(pump.handshake().client.isComplete)
        _ = pump.server.write(Array("partial body".utf8))
        pump.shuttle()
        #expect(pump.clientRead().bytes == Array("partial body".utf8))
        pump.client.receiveEndOfStream()
        guard case .closed(clean: false) = pump.clientRead().result else { Issue.record("expected an unclean close"); return }
        #expect(!pump.client.receivedCloseNotify)
    }

    @Test func eofDuringHandshakeIsClosedError() throws {
        let client = try TLSClientConnection(context: Fixture.clientContext(), serverName: "localhost")
        guard case .incomplete(.read) = client.handshake() else { Issue.record("expected want read"); return }
        #expect(client.pendingCiphertextCount > 0)  // the ClientHello
        client.receiveEndOfStream()
        guard case .failed(let error) = client.handshake() else { Issue.record("expected failure"); return }
        #expect(error.kind == .closed)
    }

    @Test func garbageFromServerIsHandshakeError() throws {
        let client = try TLSClientConnection(context: Fixture.clientContext(), serverName: "localhost")
        _ = client.handshake()
        _ = client.receiveCiphertext(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        guard case .failed(let error) = client.handshake() else { Issue.record("expected failure"); return }
        #expect(error.kind == .handshake || error.kind == .protocolVersion)
        #expect(!error.openSSLErrors.isEmpty)
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func sessionIsResumedOnSecondConnection(_ version: TLSVersion) throws {
        let cache = TLSSessionCache()
        let context = try Fixture.clientContext(cache: cache) { $0.maximumVersion = version }
        let server = try Fixture.serverContext(pki.leaf)
        var evaluations: [Bool] = []
        for round in 0..<2 {
            let pump = try Fixture.pump(client: context, server: server, evaluator: { trust in
                evaluations.append(trust.isResumedSession)
                guard trust.defaultResult.isTrusted else { throw trust.defaultResult.failure! }
            })
            #expect(pump.handshake().client.isComplete)
            // Application data makes the client process TLS 1.3 NewSessionTicket messages.
            _ = pump.server.write(Array("hi".utf8))
            pump.shuttle()
            #expect(pump.clientRead().bytes == Array("hi".utf8))
            #expect(pump.client.isSessionReused == (round == 1), "round \(round)")
            #expect(pump.server.isSessionReused == (round == 1))
            #expect(cache.count == 1)
            #expect(pump.client.peerCertificates.first == pki.leaf.certificate)
        }
        // The evaluator ran for both, and knew the second was a resumption.
        #expect(evaluations == [false, true])
    }

    @Test func sessionsAreNotSharedAcrossContextsOrPorts() throws {
        let cache = TLSSessionCache()
        let server = try Fixture.serverContext(pki.leaf)
        let first = try Fixture.clientContext(cache: cache)
        let second = try Fixture.clientContext(cache: cache)
        func connect(_ context: TLSClientContext, port: Int) throws -> Bool {
            let pump = try Fixture.pump(client: context, server: server, port: port)
            #expect(pump.handshake().client.isComplete)
            _ = pump.server.write([1])
            pump.shuttle()
            _ = pump.clientRead()
            return pump.client.isSessionReused
        }
        #expect(try !connect(first, port: 443))
        #expect(try !connect(second, port: 443))
        #expect(try !connect(first, port: 8443))
        #expect(try connect(first, port: 443))
        #expect(cache.count == 3)
        cache.removeSessions(host: "localhost", port: 443)
        #expect(cache.count == 1)
    }

    // A rejected resumed session must not be reused again.
    @Test func rejectedResumptionEvictsTheSession() throws {
        let cache = TLSSessionCache()
        let context = try Fixture.clientContext(cache: cache)
        let server = try Fixture.serverContext(pki.leaf)
        let first = try Fixture.pump(client: context, server: server)
        #expect(first.handshake().client.isComplete)
        _ = first.server.write([1])
        first.shuttle()
        _ = first.clientRead()
        #expect(cache.count == 1)
        struct Refused: Error {}
        let second = try Fixture.pump(client: context, server: server, evaluator: { _ in throw Refused() })
        let outcome = second.handshake()
        #expect(outcome.client.error?.kind == .evaluatorRejected)
        #expect(outcome.client.error?.evaluatorError is Refused)
        #expect(second.client.isSessionReused)
        // Refused inside the resumed handshake (status callback), so the server got an alert.
        #expect(outcome.server.error != nil)
        #expect(cache.count == 0)
    }
}
