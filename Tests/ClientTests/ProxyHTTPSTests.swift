// https through a CONNECT tunnel to the in-repo TLS server: SNI and the certificate check are
// for the origin's name, never the proxy's; a proxy that answers the tunnel with a certificate of
// its own (valid for the proxy's address, 127.0.0.1) is refused.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Proxy HTTPS")
    struct ProxyHTTPSTests {
        static func session(proxyPort: Int, lab: HTTPSLab) -> Session {
            let configuration = URLSessionConfiguration.default
            configuration.proxy = ProxyConfiguration(all: ProxyServer(url: "http://u:pw@127.0.0.1:\(proxyPort)")!)
            configuration.timeoutIntervalForConnect = 10
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            // No resolver override: `lariat.test` only "resolves" at the proxy.
            return Session(configuration: configuration, tlsConfiguration: tls)
        }

        @Test("https via CONNECT: the origin's certificate and SNI, credentials only in CONNECT")
        func tunnel() async throws {
            let lab = try HTTPSLab.shared.get()
            let server = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { server.stop() }
            let proxy = try TestProxyServer(kind: .http, credentials: ("u", "pw"))
            defer { proxy.stop() }
            let session = Self.session(proxyPort: proxy.port, lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):\(server.port)/secure").serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let head = proxy.received.first?.head ?? ""
            #expect(head.hasPrefix("CONNECT \(HTTPSLab.hostName):\(server.port) HTTP/1.1\r\n"), "\(head)")
            #expect(head.contains("\r\nProxy-Authorization: Basic dTpwdw=="), "\(head)")
            let seen = server.observation
            #expect(seen.serverNames == [HTTPSLab.hostName], "SNI names the origin")
            let text = String(decoding: seen.plaintext, as: UTF8.self)
            #expect(text.hasPrefix("GET /secure HTTP/1.1\r\n"), "\(text)")
            #expect(!text.lowercased().contains("proxy-authorization"), "\(text)")
        }

        @Test("a tunnel answered with the proxy's own certificate fails the trust check")
        func proxyCertificateRefused() async throws {
            let lab = try HTTPSLab.shared.get()
            // Valid under the trusted root, for IP 127.0.0.1: the proxy's address, not the origin's name.
            // Served with its intermediate, so the chain verifies and only the name can fail.
            let chain = try String(contentsOfFile: lab.path("ip.pem"), encoding: .utf8) + String(contentsOfFile: lab.path("inter.pem"), encoding: .utf8)
            try chain.write(toFile: lab.path("ip-chain-proxy.pem"), atomically: true, encoding: .utf8)
            let impostor = try LoopbackTLSServer(certificateFile: lab.path("ip-chain-proxy.pem"), keyFile: lab.path("ip.key"))
            defer { impostor.stop() }
            let proxy = try TestProxyServer(kind: .http, tunnelPort: impostor.port)
            defer { proxy.stop() }
            let session = Self.session(proxyPort: proxy.port, lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            #expect(response.response == nil)
            guard case .failure(let error) = response.result else { Issue.record("must fail"); return }
            let isTrustFailure: Bool
            switch error {
            case .serverTrustEvaluationFailed: isTrustFailure = true
            case .sessionTaskFailed(let underlying):
                let code = (underlying as? URLError)?.code
                isTrustFailure = code == .serverCertificateUntrusted
            default: isTrustFailure = false
            }
            #expect(isTrustFailure, "a host name mismatch: \(error)")
            #expect(impostor.observation.plaintext.isEmpty, "no request byte reaches the impostor")
        }
    }
}
#endif
