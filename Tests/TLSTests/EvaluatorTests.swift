import Testing
@testable import TLS

/// The caller-supplied trust decision: what it sees, what it can run, when it runs.
@Suite struct EvaluatorTests {
    let pki = PKI.shared
    struct Refused: Error {}

    @Test func seesChainHostAndDefaultResult() throws {
        var captured: TrustEvaluationContext?
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf), port: 8443) { captured = $0 }
        #expect(pump.handshake().client.isComplete)
        let trust = try #require(captured)
        #expect(trust.host == "localhost")
        #expect(trust.port == 8443)
        #expect(trust.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(trust.defaultResult.isTrusted)
        #expect(trust.defaultResult.openSSLCode == 0)
        #expect(!trust.isResumedSession)
    }

    // The default OpenSSL code is available to the evaluator, which decides (here: accepts).
    @Test func replacesDefaultDecision() throws {
        var code: Int32 = 0
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.expiredLeaf)) { trust in
            code = trust.defaultResult.openSSLCode
            #expect(trust.defaultResult.failure?.reason == .expired)
        }
        #expect(pump.handshake().client.isComplete)
        #expect(code == 10)  // X509_V_ERR_CERT_HAS_EXPIRED
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func rejectionIsTypedAndHappensBeforeFinished(_ version: TLSVersion) throws {
        let context = try Fixture.clientContext { $0.maximumVersion = version }
        let pump = try Fixture.pump(client: context, server: Fixture.serverContext(pki.leaf)) { _ in throw Refused() }
        let outcome = pump.handshake()
        #expect(outcome.client.error?.kind == .evaluatorRejected)
        #expect(outcome.client.error?.evaluatorError is Refused)
        // The server never saw our Finished: it failed with an alert instead of completing.
        #expect(outcome.server.error != nil)
    }

    // Alamofire's DefaultTrustEvaluator(validateHost: false).
    @Test func defaultWithoutHostValidation() throws {
        var withHost: TrustResult?
        var withoutHost: TrustResult?
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf), host: "other.test") { trust in
            withHost = trust.evaluateDefault(validateHost: true)
            withoutHost = trust.evaluateDefault(validateHost: false)
            guard withoutHost?.isTrusted == true else { throw Refused() }
        }
        #expect(pump.handshake().client.isComplete)
        #expect(withHost?.failure?.reason == .hostnameMismatch)
        #expect(withoutHost?.isTrusted == true)
    }

    // Alamofire's PinnedCertificatesTrustEvaluator(acceptSelfSignedCertificates: true).
    @Test func pinnedSelfSignedAnchor() throws {
        let pinned = pki.selfSignedLeaf.certificate
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.selfSignedLeaf, chain: [])) { trust in
            #expect(trust.defaultResult.failure?.reason == .selfSigned)
            let result = trust.evaluate(anchors: [pinned])
            guard result.isTrusted, trust.peerCertificates.contains(pinned) else { throw result.failure ?? TrustFailure(reason: .other, message: "not pinned") }
        }
        #expect(pump.handshake().client.isComplete)
    }

    // A pinned intermediate works as an anchor (partial chain), without trusting the root.
    @Test func pinnedIntermediateAnchor() throws {
        var result: TrustResult?
        let pump = try Fixture.pump(client: Fixture.clientContext(trusting: []), server: Fixture.serverContext(pki.leaf)) { trust in
            result = trust.evaluate(anchors: [PKI.shared.intermediate.certificate])
        }
        #expect(pump.handshake().client.isComplete)
        #expect(result?.isTrusted == true)
        #expect(result?.verifiedChain.count == 2)
    }

    @Test func customAnchorsStillCheckHostAndValidity() throws {
        var results: [TrustResult] = []
        let server = try Fixture.serverContext(pki.selfSignedLeaf, chain: [])
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: server, host: "other.test") { trust in
            results.append(trust.evaluate(anchors: [PKI.shared.selfSignedLeaf.certificate]))
            results.append(trust.evaluate(anchors: [PKI.shared.selfSignedLeaf.certificate], validateHost: false))
            results.append(trust.evaluate(anchors: [PKI.shared.root.certificate], includeDefaultAnchors: true, validateHost: false))
        }
        #expect(pump.handshake().client.isComplete)
        #expect(results[0].failure?.reason == .hostnameMismatch)
        #expect(results[1].isTrusted)
        #expect(results[2].failure?.reason == .selfSigned)
    }

    // Alamofire's PublicKeysTrustEvaluator, and curl's --pinnedpubkey.
    @Test func publicKeyPinning() throws {
        let leafKey = try #require(pki.leaf.certificate.decodedPublicKey)
        let pins = try PublicKeyPins(curlSyntax: "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=;" + leafKey.pinnedPublicKeyHash)
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf)) { trust in
            guard trust.peerCertificates.contains(where: { $0.decodedPublicKey.map(pins.matches) ?? false }) else { throw Refused() }
        }
        #expect(pump.handshake().client.isComplete)
        let other = PublicKeyPins(keys: [try #require(pki.intermediate.certificate.decodedPublicKey)])
        let refused = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(pki.leaf)) { trust in
            guard trust.peerCertificates.prefix(1).contains(where: { $0.decodedPublicKey.map(other.matches) ?? false }) else { throw Refused() }
        }
        #expect(refused.handshake().client.error?.kind == .evaluatorRejected)
    }
}
