// Requests through a real HTTPS proxy on loopback: Python's ssl module (scripts/tls-front.py)
// terminating TLS with the lab's 127.0.0.1 certificate in front of TestProxyServer, which records
// what it received. The origin is the in-repo TLS server (https, `lariat.test`, its own chain) or
// a scripted plain server (http). The proxy's trust settings (ProxyTLSOptions) are kept apart
// from the origin's: the origin's TLS configuration trusts the lab root, the proxy's is set per row.
#if FullFoundation
import Foundation
import Testing
import TLS
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("HTTPS proxy")
    struct HTTPSProxyTests {
        /// A TestProxyServer requiring `u:pw` behind a TLS front.
        final class Proxy {
            let plain: TestProxyServer
            let front: TLSFront
            init(lab: HTTPSLab, tunnelPort: Int? = nil) throws {
                plain = try TestProxyServer(kind: .http, credentials: ("u", "pw"), tunnelPort: tunnelPort)
                do {
                    front = try TLSFront(certificateFile: lab.path("server.pem"), keyFile: lab.path("server.key"), targetPort: plain.port)
                } catch {
                    plain.stop()
                    throw error
                }
            }
            func stop() {
                front.stop()
                plain.stop()
            }
        }

        /// The proxy's options trusting `root` (the lab's CA by default).
        static func trusting(_ root: String) -> ProxyTLSOptions {
            var tls = TLSConfiguration()
            tls.trustRoots = .file(root)
            return ProxyTLSOptions(configuration: tls)
        }

        static func session(proxy: Proxy, options: ProxyTLSOptions?, lab: HTTPSLab, user: String = "u") -> Session {
            let configuration = URLSessionConfiguration.default
            let server = ProxyServer(kind: .https, host: "127.0.0.1", port: proxy.front.port, username: user, password: "pw", tlsOptions: options)
            configuration.proxy = ProxyConfiguration(all: server)
            configuration.timeoutIntervalForConnect = 10
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            return Session(configuration: configuration, tlsConfiguration: tls)
        }

        /// The proxy failure under `error`, if any.
        static func proxyError(_ error: AFError?) -> (ProxyError, URLError.Code)? {
            guard case .sessionTaskFailed(let underlying)? = error, let urlError = underlying as? URLError,
                  let transport = urlError.underlyingError as? TransportError, transport.kind == .proxy,
                  let proxy = transport.underlying as? ProxyError else { return nil }
            return (proxy, urlError.code)
        }

        @Test("https origin: CONNECT inside TLS to the proxy, the origin's TLS inside that, credentials only to the proxy")
        func httpsOrigin() async throws {
            let lab = try HTTPSLab.shared.get()
            let origin = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { origin.stop() }
            let proxy = try Proxy(lab: lab, tunnelPort: origin.port)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("ca.pem")), lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):4433/secure").serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let head = proxy.plain.received.first?.head ?? ""
            #expect(head.hasPrefix("CONNECT \(HTTPSLab.hostName):4433 HTTP/1.1\r\n"), "\(head)")
            #expect(head.contains("\r\nProxy-Authorization: Basic dTpwdw=="), "\(head)")
            let seen = origin.observation
            #expect(seen.serverNames == [HTTPSLab.hostName], "SNI names the origin, not the proxy")
            let text = String(decoding: seen.plaintext, as: UTF8.self)
            #expect(text.hasPrefix("GET /secure HTTP/1.1\r\n"), "\(text)")
            #expect(!text.lowercased().contains("proxy-authorization"), "never inside the tunnel: \(text)")
        }

        @Test("a 4 MB body through TLS in TLS arrives whole (the relay's back-pressure both ways)")
        func largeBody() async throws {
            let lab = try HTTPSLab.shared.get()
            let body = String(repeating: "0123456789abcdef", count: 256 * 1024)
            let origin = try LoopbackTLSServer(
                certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                response: "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            defer { origin.stop() }
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("ca.pem")), lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):\(origin.port)/big").serializingData().response
            #expect(response.value?.count == body.utf8.count, "\(response.result)")
            #expect(response.value == Data(body.utf8))
        }

        @Test("http origin: absolute-form over the TLS session to the proxy, with Proxy-Authorization")
        func httpOrigin() async throws {
            let lab = try HTTPSLab.shared.get()
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("plain via https proxy")])
            defer { origin.stop() }
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("ca.pem")), lab: lab)
            let response = await session.request("http://127.0.0.1:\(origin.port)/path?q=1").serializingString().response
            #expect(response.value == "plain via https proxy", "\(response.result)")
            let head = proxy.plain.received.first?.head ?? ""
            #expect(head.hasPrefix("GET http://127.0.0.1:\(origin.port)/path?q=1 HTTP/1.1\r\n"), "\(head)")
            #expect(head.contains("\r\nProxy-Authorization: Basic dTpwdw=="), "\(head)")
        }

        @Test("a proxy certificate outside the proxy's trust roots is refused as the proxy's failure; nothing reaches it")
        func untrustedProxy() async throws {
            let lab = try HTTPSLab.shared.get()
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            // The origin's configuration trusts the lab root; the proxy's trusts only the rogue root.
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("rogue.pem")), lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            let found = Self.proxyError(response.error)
            #expect(found?.0.code == .tlsHandshakeFailed, "\(response.result)")
            #expect(found?.1 == .serverCertificateHasUnknownRoot, "\(response.result)")
            #expect((found?.0.underlying as? TLSError)?.trustFailure != nil, "the TLS error with its trust failure beneath")
            #expect(proxy.plain.received.isEmpty, "no CONNECT (and no credentials) sent to an untrusted proxy")
        }

        @Test("without options the proxy is verified against the system trust store (the lab root is not in it)")
        func systemTrustByDefault() async throws {
            let lab = try HTTPSLab.shared.get()
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: nil, lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            #expect(Self.proxyError(response.error)?.0.code == .tlsHandshakeFailed, "\(response.result)")
            #expect(proxy.plain.received.isEmpty)
        }

        @Test("verification off for the proxy only: the origin is still verified")
        func insecureProxy() async throws {
            let lab = try HTTPSLab.shared.get()
            let origin = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { origin.stop() }
            let proxy = try Proxy(lab: lab, tunnelPort: origin.port)
            defer { proxy.stop() }
            var tls = TLSConfiguration()
            tls.verification = .none
            let session = Self.session(proxy: proxy, options: ProxyTLSOptions(configuration: tls), lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):4433/").serializingString().response
            #expect(response.value == "ok", "\(response.result)")

            // The same insecure proxy, an origin the session does not trust: still refused, as the origin's failure.
            let rogueOrigin = try LoopbackTLSServer(certificateFile: lab.path("rogue.pem"), keyFile: lab.path("rogue.key"))
            defer { rogueOrigin.stop() }
            let proxy2 = try Proxy(lab: lab, tunnelPort: rogueOrigin.port)
            defer { proxy2.stop() }
            let session2 = Self.session(proxy: proxy2, options: ProxyTLSOptions(configuration: tls), lab: lab)
            let refused = await session2.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            #expect(refused.error != nil)
            #expect(Self.proxyError(refused.error) == nil, "the origin's failure is not the proxy's: \(refused.result)")
        }

        @Test("a proxy pin that does not match is refused before CONNECT; a matching one passes")
        func pinnedProxy() async throws {
            let lab = try HTTPSLab.shared.get()
            let origin = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"))
            defer { origin.stop() }
            let proxy = try Proxy(lab: lab, tunnelPort: origin.port)
            defer { proxy.stop() }
            let wrong = ProxyTLSOptions(trustEvaluator: PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("rogue.pem"))))
            let refusing = Self.session(proxy: proxy, options: wrong, lab: lab)
            let refused = await refusing.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            #expect(Self.proxyError(refused.error)?.0.code == .tlsHandshakeFailed, "\(refused.result)")
            if case .serverTrustEvaluationFailed? = refused.error { Issue.record("the proxy's pin is not the origin's trust failure") }
            #expect(proxy.plain.received.isEmpty)

            let right = ProxyTLSOptions(
                configuration: { var tls = TLSConfiguration(); tls.trustRoots = .file(lab.path("ca.pem")); return tls }(),
                trustEvaluator: PublicKeysTrustEvaluator(keys: try SecKey.publicKeys(inFile: lab.path("server.pem"))))
            let passing = Self.session(proxy: proxy, options: right, lab: lab)
            let passed = await passing.request("https://\(HTTPSLab.hostName):4433/").serializingString().response
            #expect(passed.value == "ok", "\(passed.result)")
        }

        @Test("wrong proxy credentials: the proxy's 407 to CONNECT, over TLS")
        func proxyAuthenticationRequired() async throws {
            let lab = try HTTPSLab.shared.get()
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("ca.pem")), lab: lab, user: "nobody")
            let response = await session.request("https://\(HTTPSLab.hostName):4433/").serializingData().response
            let found = Self.proxyError(response.error)
            #expect(found?.0.code == .authenticationRequired && found?.1 == .userAuthenticationRequired, "\(response.result)")
        }

        @Test("a redirect to another origin opens a second tunnel through the same proxy, credentials only in CONNECT")
        func redirectThroughProxy() async throws {
            let lab = try HTTPSLab.shared.get()
            let target = try LoopbackTLSServer(certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"), response: "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nlanded")
            defer { target.stop() }
            let redirecting = try LoopbackTLSServer(
                certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                response: "HTTP/1.1 302 Found\r\nLocation: https://\(HTTPSLab.hostName):\(target.port)/landed\r\nContent-Length: 0\r\n\r\n")
            defer { redirecting.stop() }
            // No fixed tunnel port: the proxy connects `lariat.test:P` to 127.0.0.1:P.
            let proxy = try Proxy(lab: lab)
            defer { proxy.stop() }
            let session = Self.session(proxy: proxy, options: Self.trusting(lab.path("ca.pem")), lab: lab)
            let response = await session.request("https://\(HTTPSLab.hostName):\(redirecting.port)/start").serializingString().response
            #expect(response.value == "landed", "\(response.result)")
            let heads = proxy.plain.received.map(\.head)
            #expect(heads.count == 2, "\(heads)")
            #expect(heads.first?.hasPrefix("CONNECT \(HTTPSLab.hostName):\(redirecting.port) ") == true, "\(heads)")
            #expect(heads.last?.hasPrefix("CONNECT \(HTTPSLab.hostName):\(target.port) ") == true, "\(heads)")
            for head in heads { #expect(head.contains("\r\nProxy-Authorization: Basic dTpwdw=="), "\(head)") }
            for seen in [redirecting.observation, target.observation] {
                let text = String(decoding: seen.plaintext, as: UTF8.self)
                #expect(!text.isEmpty && !text.lowercased().contains("proxy-authorization"), "\(text)")
            }
        }
    }
}
#endif
