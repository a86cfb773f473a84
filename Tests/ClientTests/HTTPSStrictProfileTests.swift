// The strict certificate profile through Session, on the HTTPS lab: the lab's anchor is the
// user's own (`.file`), so the default profile is rfc5280 and the lab's cases pass as before;
// with `trustProfile = .webPKI` the same certificates meet the Baseline Requirements rules, so
// the handshake path cannot drift from TrustStore's table (Tests/TLSTests/StrictProfileTests).
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS strict profile")
    struct HTTPSStrictProfileTests {
        typealias Case = HTTPSLabTests.Case

        static let cases: [(profile: TrustProfile?, testCase: Case)] = [
            (.webPKI, Case(name: "webPKI: valid chain", certificate: "good", chain: "inter.pem", expected: .success)),
            // The lab's wildcard and IP certificates carry a CN ("wild", "ip") that is not in their SAN.
            (.webPKI, Case(name: "webPKI: CN outside the SAN", certificate: "wildcard", chain: "inter.pem", host: "a.wild.lariat.test",
                           expected: .certificate(.serverCertificateUntrusted, .commonNameNotInSAN))),
            (.webPKI, Case(name: "webPKI: CN outside the SAN, IP", certificate: "ip", chain: "inter.pem", host: "127.0.0.1",
                           expected: .certificate(.serverCertificateUntrusted, .commonNameNotInSAN))),
            (.webPKI, Case(name: "webPKI: self-signed leaf without EKU", certificate: "selfsigned",
                           expected: .certificate(.serverCertificateUntrusted, .extendedKeyUsage))),
            (nil, Case(name: "custom anchor, default profile: CN outside the SAN accepted", certificate: "wildcard", chain: "inter.pem",
                       host: "a.wild.lariat.test", expected: .success)),
        ]

        @Test("profile through Session", arguments: 0..<5)
        func profile(index: Int) async throws {
            let (profile, testCase) = HTTPSStrictProfileTests.cases[index]
            let lab = try HTTPSLab.shared.get()
            let server = try HTTPSServer(lab: lab, certificate: testCase.certificate, chain: testCase.chain, arguments: testCase.serverArguments)
            defer { server.stop() }
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            tls.trustProfile = profile
            let overrides = Dictionary(uniqueKeysWithValues: HTTPSLab.caseHosts.map { ($0, ["127.0.0.1"]) })
            let session = Session(tlsConfiguration: tls, resolver: try HostResolver(overrides: overrides))
            let response = await session.request("https://\(testCase.host):\(server.port)/").serializingData().response
            HTTPSLabTests.check(response.result, statusCode: response.response?.statusCode, expected: testCase.expected)
        }
    }
}
#endif
