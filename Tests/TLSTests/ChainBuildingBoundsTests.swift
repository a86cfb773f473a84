import Testing
@testable import TLS

/// Chain building on hostile input: cycles and thousands of candidate issuers end quickly
/// with a verdict, whatever the order.
@Suite struct ChainBuildingBoundsTests {
    /// Copies of `certificate` whose serial number's last two octets are altered: same subject,
    /// issuer, key and key identifiers, so each is a candidate issuer, but a signature that no
    /// longer verifies.
    static func forgedCopies(of certificate: Certificate, count: Int) throws -> [Certificate] {
        let der = certificate.derBytes
        func header(_ index: Int) -> (content: Int, length: Int) {
            let first = Int(der[index + 1])
            guard first & 0x80 != 0 else { return (index + 2, first) }
            let octets = first & 0x7f
            let length = (0..<octets).reduce(0) { $0 << 8 | Int(der[index + 2 + $1]) }
            return (index + 2 + octets, length)
        }
        // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version, serialNumber INTEGER, ... } ... }
        var cursor = header(header(0).content).content
        if der[cursor] == 0xA0 { cursor = header(cursor).content + header(cursor).length }
        #expect(der[cursor] == 0x02)
        let serial = header(cursor)
        let last = serial.content + serial.length - 1
        #expect(serial.length >= 2)
        return try (1...count).map { index in
            var copy = der
            copy[last] ^= UInt8(index & 0xff)
            copy[last - 1] ^= UInt8((index >> 8) & 0x3f)
            return try Certificate(derBytes: copy)
        }
    }

    static func time(_ body: () -> TrustResult) -> (TrustResult, Duration) {
        let clock = ContinuousClock()
        var result: TrustResult?
        let elapsed = clock.measure { result = body() }
        return (result!, elapsed)
    }

    /// Look-alikes of the intermediate ahead of the genuine one: OpenSSL's first path fails on
    /// a forgery's signature, and the path search (``TrustStore/candidatePaths(leaf:pool:maximumLength:)``)
    /// finds the genuine issuer while its budget of 100 signature checks lasts (each forgery
    /// costs two: the leaf's signature under its key, its own under the root's). Nine forgeries
    /// were refused before the search (only ``TrustStore/issuerRetryBudget`` retries); 45 pass now.
    @Test(arguments: [1, 5, TrustStore.issuerRetryBudget, TrustStore.issuerRetryBudget + 1, 45])
    func genuineIssuerAfterForgeries(_ forgeries: Int) throws {
        let pki = StrictPKI.shared
        var policy = TrustPolicy(host: "strict.test")
        policy.maximumPresentedCertificates = 100
        let chain = [pki["valid"]] + (try ChainBuildingBoundsTests.forgedCopies(of: pki["ca"], count: forgeries)) + [pki["ca"]]
        let result = TrustStore(anchors: [pki["root"]]).evaluate(chain: chain, policy: policy)
        #expect(result.isTrusted, "\(result)")
    }

    /// Past the search's signature budget the genuine issuer is not reached: OpenSSL's verdict stands.
    @Test func genuineIssuerBeyondTheSignatureBudget() throws {
        let pki = StrictPKI.shared
        var policy = TrustPolicy(host: "strict.test")
        policy.maximumPresentedCertificates = 100
        let forgeries = TrustStore.pathSearchSignatureBudget / 2 + 1
        let chain = [pki["valid"]] + (try ChainBuildingBoundsTests.forgedCopies(of: pki["ca"], count: forgeries)) + [pki["ca"]]
        #expect(TrustStore(anchors: [pki["root"]]).evaluate(chain: chain, policy: policy).failure?.code == 7)
    }

    @Test func cycleOfCrossCertifiedCAsEnds() {
        let pki = StrictPKI.shared
        let store = TrustStore(anchors: [pki["root"]])
        // loopA is issued by loopB and loopB by loopA: a path-builder that follows issuers forever never returns.
        let chain = [pki["leafOfLoop"]] + Array(repeating: [pki["loopA"], pki["loopB"]], count: 10).flatMap { $0 }
        for profile in [TrustProfile.webPKI, .rfc5280] {
            let (result, elapsed) = ChainBuildingBoundsTests.time {
                store.evaluate(chain: chain, policy: TrustPolicy(host: "strict.test", profile: profile))
            }
            #expect(!result.isTrusted)
            #expect(elapsed < .seconds(1), "\(elapsed)")
        }
    }

    @Test func thousandsOfCandidateIssuersAreRefusedUpFront() throws {
        let pki = StrictPKI.shared
        let chain = [pki["valid"]] + (try ChainBuildingBoundsTests.forgedCopies(of: pki["ca"], count: 2000)) + [pki["ca"]]
        let (result, elapsed) = ChainBuildingBoundsTests.time {
            TrustStore(anchors: [pki["root"]]).evaluate(chain: chain, policy: TrustPolicy(host: "strict.test"))
        }
        #expect(result.failure?.reason == .chainTooLong)
        #expect(elapsed < .milliseconds(100), "\(elapsed)")
    }

    /// With the limit lifted, building stays bounded: OpenSSL takes the first candidate that
    /// names the issuer and is within its validity, and we set aside a candidate whose signature
    /// fails at most ``TrustStore/issuerRetryBudget`` times, then search other paths within 100
    /// signature checks, as Go and webpki do. So the genuine issuer sent before the forgeries
    /// wins, and sent after 2,000 of them loses (a signature failure).
    @Test func thousandsOfCandidateIssuersWithTheLimitLifted() throws {
        let pki = StrictPKI.shared
        let store = TrustStore(anchors: [pki["root"]])
        let forged = try ChainBuildingBoundsTests.forgedCopies(of: pki["ca"], count: 2000)
        var policy = TrustPolicy(host: "strict.test")
        policy.maximumPresentedCertificates = 10_000
        let (first, firstElapsed) = ChainBuildingBoundsTests.time { store.evaluate(chain: [pki["valid"], pki["ca"]] + forged, policy: policy) }
        #expect(first.isTrusted, "\(first)")
        #expect(firstElapsed < .seconds(2), "\(firstElapsed)")
        let (last, lastElapsed) = ChainBuildingBoundsTests.time { store.evaluate(chain: [pki["valid"]] + forged + [pki["ca"]], policy: policy) }
        #expect(!last.isTrusted)
        #expect(lastElapsed < .seconds(2), "\(lastElapsed)")
    }
}
