import Testing
@testable import TLS

/// One handshake that the default policy must refuse, and the reason it must give.
struct FailureCase: CustomTestStringConvertible, Sendable {
    let name: String
    let reason: TrustFailure.Reason
    let host: String
    let server: @Sendable () throws -> TLSServerContext
    let trusting: @Sendable () -> [Certificate]
    var testDescription: String { "\(name) → \(reason)" }

    init(_ name: String, _ reason: TrustFailure.Reason, host: String = "localhost",
         trusting: @escaping @Sendable () -> [Certificate] = { [PKI.shared.root.certificate] },
         server: @escaping @Sendable () throws -> TLSServerContext) {
        self.name = name
        self.reason = reason
        self.host = host
        self.server = server
        self.trusting = trusting
    }
}

let failureTable: [FailureCase] = [
    FailureCase("expired leaf", .expired) { try Fixture.serverContext(PKI.shared.expiredLeaf) },
    FailureCase("leaf not yet valid", .notYetValid) { try Fixture.serverContext(PKI.shared.notYetValidLeaf) },
    FailureCase("wrong host", .hostnameMismatch, host: "other.test") { try Fixture.serverContext(PKI.shared.leaf) },
    FailureCase("wrong IP", .hostnameMismatch, host: "127.0.0.2") { try Fixture.serverContext(PKI.shared.leaf) },
    FailureCase("wildcard spans two labels", .hostnameMismatch, host: "a.b.wild.test") { try Fixture.serverContext(PKI.shared.wildcardLeaf) },
    FailureCase("wildcard needs a label", .hostnameMismatch, host: "wild.test") { try Fixture.serverContext(PKI.shared.wildcardLeaf) },
    FailureCase("CN only, no SAN", .hostnameMismatch) { try Fixture.serverContext(PKI.shared.noSANLeaf) },
    FailureCase("self-signed leaf", .selfSigned) { try Fixture.serverContext(PKI.shared.selfSignedLeaf, chain: []) },
    FailureCase("untrusted root sent", .untrustedRoot) {
        try Fixture.serverContext(PKI.shared.untrustedLeaf, chain: [PKI.shared.otherRoot.certificate])
    },
    FailureCase("missing intermediate", .incompleteChain) { try Fixture.serverContext(PKI.shared.leaf, chain: []) },
    FailureCase("RSA 1024 leaf", .weakKeyOrSignature) { try Fixture.serverContext(PKI.shared.weakRSALeaf) },
    FailureCase("SHA-1 signed leaf", .weakKeyOrSignature) { try Fixture.serverContext(PKI.shared.sha1Leaf) },
    FailureCase("empty trust store", .incompleteChain, trusting: { [] }) { try Fixture.serverContext(PKI.shared.leaf) },
]

@Suite struct TrustFailureTests {
    @Test(arguments: failureTable)
    func refusedWithReason(_ row: FailureCase) throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(trusting: row.trusting()), server: row.server(), host: row.host)
        let outcome = pump.handshake()
        let error = try #require(outcome.client.error, "\(row.name) was accepted")
        #expect(error.kind == .trust)
        #expect(error.trustFailure?.reason == row.reason, "\(error)")
        // Refused inside the handshake: the server never completes, it gets an alert instead.
        #expect(!outcome.server.isComplete)
    }

    @Test(arguments: [("www.wild.test", true), ("WWW.WILD.TEST.", true), ("xn--bcher-kva.wild.test", true)])
    func wildcardAccepted(_ host: String, _ expected: Bool) throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.wildcardLeaf), host: host)
        #expect(pump.handshake().client.isComplete == expected)
    }

    @Test func serverSendingTheIntermediateSucceeds() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.leaf, chain: [PKI.shared.intermediate.certificate]))
        #expect(pump.handshake().client.isComplete)
    }

    // Chain order as sent does not matter, and extra unrelated certificates are ignored.
    @Test func chainBuildingToleratesOrderAndExtras() throws {
        let chain = [PKI.shared.otherRoot.certificate, PKI.shared.intermediate.certificate]
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.leaf, chain: chain))
        #expect(pump.handshake().client.isComplete)
    }

    @Test func verificationNoneAcceptsAnything() throws {
        let context = try Fixture.clientContext(trusting: []) { $0.verification = .none }
        let pump = try Fixture.pump(client: context, server: Fixture.serverContext(PKI.shared.expiredLeaf), host: "wrong.test")
        #expect(pump.handshake().client.isComplete)
        #expect(pump.client.defaultTrustResult == nil)
    }

    // TLS 1.0/1.1-only servers are refused by the version floor, with a typed kind.
    @Test(arguments: [TLSVersion.v1_0, .v1_1])
    func oldProtocolServerRefused(_ version: TLSVersion) throws {
        let server = try Fixture.serverContext(PKI.shared.rsaLeaf) {
            $0.minimumVersion = version
            $0.maximumVersion = version
            $0.cipherList = "DEFAULT:@SECLEVEL=0"
        }
        let outcome = try Fixture.pump(client: Fixture.clientContext(), server: server).handshake()
        #expect(outcome.client.error?.kind == .protocolVersion, "\(String(describing: outcome.client.error))")
    }

    @Test func evaluationWithoutHostCheckIgnoresTheName() throws {
        let store = TrustStore(anchors: [PKI.shared.root.certificate])
        let chain = [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate]
        #expect(store.evaluate(chain: chain, policy: TrustPolicy(host: "nope.test")).failure?.reason == .hostnameMismatch)
        #expect(store.evaluate(chain: chain, policy: TrustPolicy(host: nil)).isTrusted)
        #expect(store.evaluate(chain: chain, policy: TrustPolicy(host: "example.test")).isTrusted)
    }

    // Under rfc5280, RSA 1024 passes at level 1 and SHA-1 (63 bits in OpenSSL 3) only at level 0;
    // level 2 refuses both.
    @Test(arguments: [(PKI.shared.weakRSALeaf.certificate, 1), (PKI.shared.sha1Leaf.certificate, 0)])
    func securityLevelDecidesWeakness(_ leaf: Certificate, _ passingLevel: Int) {
        let store = TrustStore(anchors: [PKI.shared.root.certificate])
        do {
            let chain = [leaf, PKI.shared.intermediate.certificate]
            let lowered = TrustPolicy(host: "localhost", securityLevel: passingLevel, profile: .rfc5280)
            #expect(store.evaluate(chain: chain, policy: lowered).isTrusted)
            // The strict profile's Baseline Requirements rules refuse both whatever the level.
            var strict = lowered
            strict.profile = .webPKI
            #expect(store.evaluate(chain: chain, policy: strict).failure?.reason == .weakKeyOrSignature)
            let failure = store.evaluate(chain: chain, policy: TrustPolicy(host: "localhost")).failure
            #expect(failure?.reason == .weakKeyOrSignature)
            #expect(failure?.code != 0)
        }
    }

    @Test func verificationTimeIsHonoured() {
        let store = TrustStore(anchors: [PKI.shared.root.certificate])
        let chain = [PKI.shared.expiredLeaf.certificate, PKI.shared.intermediate.certificate]
        let whenValid = PKI.shared.expiredLeaf.certificate.notBefore + 60
        // Before the root existed the root is "not yet valid": pick a time inside every window.
        let policy = TrustPolicy(host: "localhost", verificationTime: max(whenValid, PKI.shared.root.certificate.notBefore + 60))
        let result = store.evaluate(chain: chain, policy: policy)
        // The expired leaf ended a day ago and the root began an hour ago, so no instant fits both.
        #expect(result.failure?.reason == .expired || result.failure?.reason == .notYetValid)
        #expect(store.evaluate(chain: [PKI.shared.leaf.certificate, PKI.shared.intermediate.certificate],
                               policy: TrustPolicy(host: "localhost", verificationTime: PKI.shared.leaf.certificate.notAfter + 7200)).failure?.reason == .expired)
    }
}
