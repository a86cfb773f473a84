import Testing
@testable import TLS

@Suite struct RevocationTests {
    let pki = PKI.shared

    func handshake(
        _ identity: PKI.Identity, stapling response: [UInt8]?, policy: OCSPStaplingPolicy,
        evaluator: TrustEvaluator? = nil
    ) throws -> (Pump, Pump.Outcome) {
        let context = try Fixture.clientContext { $0.ocspStapling = policy }
        let server = try Fixture.serverContext(identity) { $0.stapledOCSPResponse = response }
        let pump = try Fixture.pump(client: context, server: server, evaluator: evaluator)
        return (pump, pump.handshake().client)
    }

    @Test(arguments: [OCSPStaplingPolicy.ifPresent, .require])
    func stapledGoodIsAccepted(_ policy: OCSPStaplingPolicy) throws {
        let (pump, outcome) = try handshake(pki.leaf, stapling: pki.ocspGood, policy: policy)
        #expect(outcome.isComplete, "\(String(describing: outcome.error))")
        #expect(pump.client.stapledOCSPResponse == pki.ocspGood)
    }

    @Test(arguments: [OCSPStaplingPolicy.ifPresent, .require])
    func stapledRevokedIsRefused(_ policy: OCSPStaplingPolicy) throws {
        let (_, outcome) = try handshake(pki.revokedLeaf, stapling: pki.ocspRevoked, policy: policy)
        #expect(outcome.error?.trustFailure?.reason == .revoked, "\(String(describing: outcome.error))")
        #expect(outcome.error?.trustFailure?.origin == .stapledOCSP)
    }

    @Test func revokedIsIgnoredWhenStaplingIsIgnored() throws {
        let (_, outcome) = try handshake(pki.revokedLeaf, stapling: pki.ocspRevoked, policy: .ignore)
        #expect(outcome.isComplete)
    }

    // curl --cert-status: no staple means failure.
    @Test func requiredButMissingIsRevocationUnknown() throws {
        let (_, outcome) = try handshake(pki.leaf, stapling: nil, policy: .require)
        #expect(outcome.error?.trustFailure?.reason == .revocationUnknown)
        #expect(outcome.error?.trustFailure?.origin == .stapledOCSP)
        let (_, lenient) = try handshake(pki.leaf, stapling: nil, policy: .ifPresent)
        #expect(lenient.isComplete)
    }

    // A response signed by a stranger does not verify: fatal only when required.
    @Test func badlySignedResponse() throws {
        let (_, required) = try handshake(pki.leaf, stapling: pki.ocspGoodSignedByStranger, policy: .require)
        #expect(required.error?.trustFailure?.reason == .revocationUnknown)
        #expect(required.error?.trustFailure?.origin == .stapledOCSP)
        let (_, lenient) = try handshake(pki.leaf, stapling: pki.ocspGoodSignedByStranger, policy: .ifPresent)
        #expect(lenient.isComplete)
    }

    // A response for another certificate does not cover this one.
    @Test func responseForAnotherCertificate() throws {
        let (_, outcome) = try handshake(pki.leaf, stapling: pki.ocspRevoked, policy: .require)
        #expect(outcome.error?.trustFailure?.reason == .revocationUnknown)
    }

    @Test func garbageResponseIsUnusable() {
        let store = TrustStore(anchors: [pki.root.certificate])
        let chain = [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate]
        let result = store.checkOCSPResponse([0x30, 0x03, 0x0A, 0x01, 0x00], chain: chain)
        #expect(result.status == nil)
        #expect(result.problem?.reason == .revocationUnknown)
        #expect(store.checkOCSPResponse(pki.ocspGood, chain: chain).status == .good)
        let revoked = store.checkOCSPResponse(pki.ocspRevoked, chain: [pki.revokedLeaf.certificate] + chain.dropFirst())
        #expect(revoked.status == .revoked)
        #expect(revoked.revocationTime != nil)
        #expect(revoked.nextUpdate != nil)
    }

    // The evaluator sees the stapled response and can apply its own revocation policy.
    @Test func evaluatorSeesStapledResponse() throws {
        var seen: OCSPCertificateStatus?
        let (_, outcome) = try handshake(pki.revokedLeaf, stapling: pki.ocspRevoked, policy: .ignore) { trust in
            seen = trust.stapledOCSPResult?.status
            let result = trust.evaluateRevocation(crlCheck: .none, ocsp: .require)
            if let failure = result.failure { throw failure }
        }
        #expect(seen == .revoked)
        #expect((outcome.error?.evaluatorError as? TrustFailure)?.reason == .revoked)
    }

    // MARK: CRLs

    func crlContext(_ check: CRLCheck, files: [String]) throws -> TLSClientContext {
        try Fixture.clientContext {
            $0.crlFiles = files
            $0.crlCheck = check
        }
    }

    @Test(arguments: [CRLCheck.leaf, .fullChain])
    func crlRevokedIsRefused(_ check: CRLCheck) throws {
        let context = try crlContext(check, files: [pki.intermediateCRLPath, pki.rootCRLPath])
        let outcome = try Fixture.pump(client: context, server: Fixture.serverContext(pki.revokedLeaf)).handshake()
        #expect(outcome.client.error?.trustFailure?.reason == .revoked, "\(String(describing: outcome.client.error))")
        // Revoked by a CRL, not by a stapled response: curl reports 60 here even with --cert-status.
        #expect(outcome.client.error?.trustFailure?.origin == .chain)
    }

    @Test(arguments: [CRLCheck.leaf, .fullChain])
    func crlGoodIsAccepted(_ check: CRLCheck) throws {
        let context = try crlContext(check, files: [pki.intermediateCRLPath, pki.rootCRLPath])
        let outcome = try Fixture.pump(client: context, server: Fixture.serverContext(pki.leaf)).handshake()
        #expect(outcome.client.isComplete, "\(String(describing: outcome.client.error))")
    }

    // Checking the whole chain needs the root's CRL too; without it the status is unknown.
    @Test func crlMissingForIntermediate() throws {
        let context = try crlContext(.fullChain, files: [pki.intermediateCRLPath])
        let outcome = try Fixture.pump(client: context, server: Fixture.serverContext(pki.leaf)).handshake()
        #expect(outcome.client.error?.trustFailure?.reason == .revocationUnknown)
    }

    @Test func crlLoading() throws {
        let crls = try CertificateRevocationList.load(file: pki.intermediateCRLPath)
        #expect(crls.count == 1)
        #expect(crls[0].issuer == "CN=Lariat Test Intermediate")
        #expect(crls[0].nextUpdate.map { $0 > crls[0].lastUpdate } == true)
        #expect(throws: TLSError.self) { try CertificateRevocationList.load(file: pki.leaf.certificatePath) }
    }
}
