// Proxy authentication beyond Basic and the preproxy, through Client on loopback: a Digest proxy
// (TestProxyServer checks the answer) forwarding plain http and opening a CONNECT tunnel, the
// credential going to the proxy only; a SOCKS5 preproxy in front of an HTTP proxy.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Proxy authentication and preproxy")
    struct ProxyAuthenticationTests {
        static func session(_ proxy: ProxyServer, tunnelsHTTP: Bool = false, preproxy: ProxyServer? = nil) -> Session {
            let configuration = URLSessionConfiguration.default
            var proxies = ProxyConfiguration(all: proxy, tunnelsHTTP: tunnelsHTTP)
            proxies.preproxy = preproxy
            configuration.proxy = proxies
            configuration.timeoutIntervalForConnect = 10
            return Session(configuration: configuration)
        }

        static func digestProxy(_ port: Int, methods: ProxyServer.AuthenticationMethods) -> ProxyServer {
            var server = ProxyServer(host: "127.0.0.1", port: port, username: "user", password: "pw")
            server.authenticationMethods = methods
            return server
        }

        @Test("forwarded: nothing sent until the 407, then its Digest challenge answered", arguments: [
            ProxyServer.AuthenticationMethods.digest, .any,
        ])
        func forwardedDigest(methods: ProxyServer.AuthenticationMethods) async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("via digest")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "pw"), authScheme: .digest)
            defer { proxy.stop() }
            let session = Self.session(Self.digestProxy(proxy.port, methods: methods))
            let response = await session.request("http://127.0.0.1:\(origin.port)/get?x=1").serializingString().response
            #expect(response.value == "via digest", "\(response.result)")
            let heads = proxy.received.map(\.head)
            #expect(heads.count == 2, "\(heads)")
            #expect(heads.first.map { !$0.contains("Proxy-Authorization") } == true, "\(heads)")
            #expect(heads.last?.contains("Proxy-Authorization: Digest username=\"user\", realm=\"test\", nonce=\"n0nce\", uri=\"/get?x=1\"") == true,
                    "\(heads)")
        }

        @Test("tunnelled: the CONNECT answered on the same connection; the origin never sees the credential")
        func tunnelledDigest() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("tunnelled")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "pw"), authScheme: .digest)
            defer { proxy.stop() }
            let session = Self.session(Self.digestProxy(proxy.port, methods: .digest), tunnelsHTTP: true)
            let response = await session.request("http://origin.invalid:\(origin.port)/t").serializingString().response
            #expect(response.value == "tunnelled", "\(response.result)")
            let heads = proxy.received.map(\.head)
            #expect(heads.count == 2 && heads.allSatisfy { $0.hasPrefix("CONNECT origin.invalid:\(origin.port) HTTP/1.1\r\n") }, "\(heads)")
            #expect(heads.last?.contains("uri=\"origin.invalid:\(origin.port)\"") == true, "\(heads)")
            let sent = String(decoding: origin.requests.first ?? [], as: UTF8.self)
            #expect(sent.hasPrefix("GET /t HTTP/1.1\r\n") && !sent.lowercased().contains("authorization"), "\(sent)")
        }

        @Test("a wrong password: the forwarded 407 is delivered, the tunnel's is userAuthenticationRequired")
        func wrongPassword() async throws {
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "other"), authScheme: .digest)
            defer { proxy.stop() }
            let forwarding = Self.session(Self.digestProxy(proxy.port, methods: .digest))
            let forwarded = await forwarding.request("http://127.0.0.1:1/x").serializingString().response
            #expect(forwarded.response?.statusCode == 407 && forwarded.value == "denied\n", "\(forwarded.result)")
            let tunnelling = Self.session(Self.digestProxy(proxy.port, methods: .digest), tunnelsHTTP: true)
            let tunnelled = await tunnelling.request("http://origin.invalid:1/").serializingData().response
            #expect(sessionTaskURLError(tunnelled.result)?.code == .userAuthenticationRequired, "\(tunnelled.result)")
            #expect(proxy.received.count == 4, "one answer each: \(proxy.received.map(\.head))")
        }

        @Test("a SOCKS5 preproxy carries the connection to the HTTP proxy", arguments: [false, true])
        func preproxy(tunnelsHTTP: Bool) async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("behind two")])
            defer { origin.stop() }
            let http = try TestProxyServer(kind: .http)
            defer { http.stop() }
            let socks = try TestProxyServer(kind: .socks5, credentials: ("s", "k"))
            defer { socks.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: http.port), tunnelsHTTP: tunnelsHTTP,
                                       preproxy: ProxyServer(kind: .socks5h, host: "127.0.0.1", port: socks.port, username: "s", password: "k"))
            let response = await session.request("http://127.0.0.1:\(origin.port)/p").serializingString().response
            #expect(response.value == "behind two", "\(response.result)")
            #expect(socks.received.map(\.destination) == ["127.0.0.1:\(http.port)"])
            #expect(socks.received.first?.socksUser == "s")
            let head = http.received.first?.head ?? ""
            #expect(head.hasPrefix(tunnelsHTTP ? "CONNECT 127.0.0.1:\(origin.port) " : "GET http://127.0.0.1:\(origin.port)/p "), "\(head)")
        }
    }
}
