import Testing
@testable import TLS

/// A few rows of the strict-profile table again, through a real handshake, so the handshake's
/// evaluation cannot drift from ``TrustStore/evaluate(chain:policy:)``; and which profile a
/// configuration picks when none is set.
@Suite struct StrictProfileHandshakeTests {
    static let rows: [(leaf: String, expected: TrustFailure.Reason?)] = [
        ("valid", nil),
        ("noEKU", .extendedKeyUsage),
        ("cnNotInSAN", .commonNameNotInSAN),
        ("underscore", .invalidDNSName),
        ("noAKI", .keyIdentifiers),
        ("negativeSerial", .invalidSerialNumber),
    ]

    static func handshake(_ leaf: String, profile: TrustProfile?) throws -> TLSError? {
        let pki = StrictPKI.shared
        let client = try Fixture.clientContext(trusting: [pki["root"]]) { $0.trustProfile = profile }
        let server = try Fixture.serverContext(try pki.certificates[leaf]!.identity(), chain: [pki["ca"]])
        let outcome = try Fixture.pump(client: client, server: server, host: "strict.test").handshake()
        #expect(outcome.client.isComplete == (outcome.client.error == nil))
        return outcome.client.error
    }

    @Test(arguments: rows)
    func webPKIInTheHandshake(_ leaf: String, _ expected: TrustFailure.Reason?) throws {
        let error = try StrictProfileHandshakeTests.handshake(leaf, profile: .webPKI)
        #expect(error?.trustFailure?.reason == expected, "\(String(describing: error))")
        if expected != nil { #expect(error?.kind == .trust) }
    }

    /// The rows RFC 5280 itself forbids, refused under rfc5280 too.
    static let refusedUnderRFC5280: [String: TrustFailure.Reason] = ["noAKI": .keyIdentifiers, "negativeSerial": .invalidSerialNumber]

    /// Custom anchors get rfc5280 unless told otherwise: the Baseline Requirements do not bind a
    /// private CA, RFC 5280 does.
    @Test(arguments: rows)
    func customAnchorsDefaultToRFC5280(_ leaf: String, _ expectedUnderWebPKI: TrustFailure.Reason?) throws {
        let error = try StrictProfileHandshakeTests.handshake(leaf, profile: nil)
        #expect(error?.trustFailure?.reason == StrictProfileHandshakeTests.refusedUnderRFC5280[leaf], "\(String(describing: error))")
    }

    @Test func automaticProfileFollowsTheAnchors() {
        #expect(TrustProfile.automatic(for: .system) == .webPKI)
        #expect(TrustProfile.automatic(for: .combining([.file("/tmp/ca.pem"), .system])) == .webPKI)
        #expect(TrustProfile.automatic(for: .file("/tmp/ca.pem")) == .rfc5280)
        #expect(TrustProfile.automatic(for: .directory("/tmp/certs")) == .rfc5280)
        #expect(TrustProfile.automatic(for: .certificates([])) == .rfc5280)
        var configuration = TLSConfiguration()
        #expect(configuration.trustPolicy(host: "a.test").profile == .webPKI)
        configuration.trustRoots = .file("/tmp/ca.pem")
        #expect(configuration.trustPolicy(host: "a.test").profile == .rfc5280)
        configuration.trustProfile = .webPKI
        #expect(configuration.trustPolicy(host: "a.test").profile == .webPKI)
        configuration.requiredUsage = .clientAuth
        configuration.maximumChainDepth = 2
        #expect(configuration.trustPolicy(host: nil).requiredUsage == .clientAuth)
        #expect(configuration.trustPolicy(host: nil).maximumChainDepth == 2)
    }
}
