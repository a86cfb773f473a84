// TLS metrics against the in-repo TLS server: handshake dates inside the connect phase, the
// negotiated version and cipher suite as Apple's tls_protocol_version_t / tls_ciphersuite_t.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Metrics over HTTPS")
    struct MetricsHTTPSTests {
        @Test("TLS dates, version and cipher suite", arguments: [TLSVersion.v1_2, .v1_3])
        func tlsMetrics(version: TLSVersion) async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { server.stop() }
            let session = try HTTPSTransportTests.session(maximumVersion: version)
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/").serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let transaction = try #require(response.metrics?.transactionMetrics.first)
            let connectStart = try #require(transaction.connectStartDate)
            let tlsStart = try #require(transaction.secureConnectionStartDate)
            let tlsEnd = try #require(transaction.secureConnectionEndDate)
            let connectEnd = try #require(transaction.connectEndDate)
            let requestStart = try #require(transaction.requestStartDate)
            #expect(connectStart <= tlsStart && tlsStart <= tlsEnd && tlsEnd <= connectEnd && connectEnd <= requestStart)
            let suite = try #require(transaction.negotiatedTLSCipherSuite)
            if version == .v1_3 {
                #expect(transaction.negotiatedTLSProtocolVersion == .TLSv13)
                #expect((0x1301...0x1303).contains(suite.rawValue))
                #expect(transaction.negotiatedTLSCipherSuiteName?.hasPrefix("TLS_") == true)
            } else {
                #expect(transaction.negotiatedTLSProtocolVersion == .TLSv12)
                #expect(suite.rawValue >= 0xC000, "an ECDHE suite")
            }
            #expect(transaction.negotiatedTLSProtocolVersion?.description == (version == .v1_3 ? "TLSv1.3" : "TLSv1.2"))
        }
    }
}
#endif
