// Requests through proxies on loopback (TestProxyServer records what each proxy received): plain
// http forwarded in absolute-form, http tunnelled (`tunnelsHTTP`), CONNECT failures as typed
// errors, SOCKS5 with and without authentication, socks5h sending the name, socks5 resolving it
// here, error replies, a stalled proxy bounded by the connect timeout.
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
    @Suite("Proxy transport")
    struct ProxyTransportTests {
        /// A session whose every request goes through `proxy`.
        static func session(_ proxy: ProxyServer, tunnelsHTTP: Bool = false, resolver: HostResolver = HostResolver(), connectTimeout: Double = 10) -> Session {
            let configuration = URLSessionConfiguration.default
            configuration.proxy = ProxyConfiguration(all: proxy, tunnelsHTTP: tunnelsHTTP)
            configuration.timeoutIntervalForConnect = connectTimeout
            return Session(configuration: configuration, resolver: resolver)
        }

        /// The ProxyError under a failed result.
        static func proxyError<Value>(_ result: Result<Value, AFError>) -> ProxyError? {
            transportError(sessionTaskURLError(result))?.underlying as? ProxyError
        }

        @Test("plain http through an HTTP proxy: absolute-form, Proxy-Authorization to the proxy")
        func forwarded() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("via proxy")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "p@ss"))
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(url: "http://user:p%40ss@127.0.0.1:\(proxy.port)")!)
            let response = await session.request("http://127.0.0.1:\(origin.port)/get?x=1").serializingString().response
            #expect(response.value == "via proxy", "\(response.result)")
            let head = proxy.received.first?.head ?? ""
            #expect(head.hasPrefix("GET http://127.0.0.1:\(origin.port)/get?x=1 HTTP/1.1\r\n"), "\(head)")
            #expect(head.contains("\r\nProxy-Authorization: Basic dXNlcjpwQHNz"), "\(head)")
            #expect(head.contains("\r\nHost: 127.0.0.1:\(origin.port)"), "\(head)")
        }

        @Test("http through a CONNECT tunnel: the origin never sees Proxy-Authorization")
        func tunnelledHTTP() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("tunnelled")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "pw"))
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(url: "http://user:pw@127.0.0.1:\(proxy.port)")!, tunnelsHTTP: true)
            let response = await session.request("http://origin.invalid:\(origin.port)/t").serializingString().response
            #expect(response.value == "tunnelled", "\(response.result)")
            let head = proxy.received.first?.head ?? ""
            #expect(head.hasPrefix("CONNECT origin.invalid:\(origin.port) HTTP/1.1\r\nHost: origin.invalid:\(origin.port)\r\n"), "\(head)")
            #expect(head.contains("\r\nProxy-Authorization: Basic dXNlcjpwdw=="), "\(head)")
            let sent = String(decoding: origin.requests.first ?? [], as: UTF8.self)
            #expect(sent.hasPrefix("GET /t HTTP/1.1\r\n"), "\(sent)")
            #expect(!sent.lowercased().contains("authorization"), "\(sent)")
        }

        @Test("407 to CONNECT is URLError.userAuthenticationRequired with the proxy's status")
        func authenticationRequired() async throws {
            let proxy = try TestProxyServer(kind: .http, credentials: ("user", "pw"))
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: proxy.port), tunnelsHTTP: true)
            let response = await session.request("http://origin.invalid:1/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .userAuthenticationRequired, "\(response.result)")
            let error = Self.proxyError(response.result)
            #expect(error?.code == .authenticationRequired && error?.status == 407, "\(String(describing: error))")
        }

        @Test("a refused CONNECT is URLError.cannotConnectToHost with the proxy's status")
        func tunnelRefused() async throws {
            let proxy = try TestProxyServer(kind: .http, behavior: .refuse(403))
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: proxy.port), tunnelsHTTP: true)
            let response = await session.request("http://origin.invalid:1/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .cannotConnectToHost, "\(response.result)")
            let error = Self.proxyError(response.result)
            #expect(error?.code == .tunnelRefused && error?.status == 403, "\(String(describing: error))")
        }

        @Test("a proxy that is not listening: proxyUnreachable, never a direct connection")
        func proxyDown() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { origin.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: refusedPort()))
            let response = await session.request("http://127.0.0.1:\(origin.port)/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .cannotConnectToHost, "\(response.result)")
            #expect(Self.proxyError(response.result)?.code == .proxyUnreachable)
            #expect(origin.connectionCount == 0)
        }

        @Test("a proxy that accepts and never answers is bounded by the connect timeout")
        func stalledProxy() async throws {
            let stalled = try ScriptedServer(script: [.receive(atLeast: 1), .sleep(.seconds(3))])
            defer { stalled.stop() }
            let session = Self.session(ProxyServer(kind: .socks5h, host: "127.0.0.1", port: stalled.port), connectTimeout: 0.3)
            let start = ContinuousClock.now
            let response = await session.request("http://origin.invalid/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(ContinuousClock.now - start < .seconds(2))
        }

        @Test("an unknown proxy host is URLError.cannotFindHost with proxyNotFound")
        func proxyNotFound() async throws {
            let session = Self.session(ProxyServer(host: "proxy.invalid", port: 3128))
            let response = await session.request("http://127.0.0.1:1/").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .cannotFindHost, "\(response.result)")
            #expect(Self.proxyError(response.result)?.code == .proxyNotFound)
        }

        @Test("connections are pooled per route: one proxy connection per origin, reused")
        func pooledPerRoute() async throws {
            let first = try ScriptedServer(script: [.expectRequest, cannedResponse("1"), .expectRequest, cannedResponse("2")])
            defer { first.stop() }
            let second = try ScriptedServer(script: [.expectRequest, cannedResponse("3")])
            defer { second.stop() }
            let proxy = try TestProxyServer(kind: .http)
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: proxy.port))
            let a = await session.request("http://127.0.0.1:\(first.port)/a").serializingString().response
            let b = await session.request("http://127.0.0.1:\(first.port)/b").serializingString().response
            let c = await session.request("http://127.0.0.1:\(second.port)/c").serializingString().response
            #expect([a.value, b.value, c.value] == ["1", "2", "3"], "\(a.result) \(b.result) \(c.result)")
            #expect(b.metrics?.transactionMetrics.first?.isReusedConnection == true)
            #expect(c.metrics?.transactionMetrics.first?.isReusedConnection == false, "another origin, another connection")
            // The proxy records the first request of each connection: two connections.
            #expect(proxy.received.map(\.destination) == ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"])
        }

        @Test("one connect timeout covers the proxy's TCP connect, CONNECT and the TLS handshake")
        func connectTimeoutCoversTunnelAndTLS() async throws {
            // The origin accepts and never answers the ClientHello; the proxy answers CONNECT
            // after 1 s; the connect limit is 1.5 s. Restarting the limit for the handshake
            // would end at 2.5 s.
            let silent = try ScriptedServer(script: [.receive(atLeast: 1), .sleep(.seconds(4))])
            defer { silent.stop() }
            let proxy = try TestProxyServer(kind: .http, behavior: .delayTunnel(milliseconds: 1000), tunnelPort: silent.port)
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(host: "127.0.0.1", port: proxy.port), connectTimeout: 1.5)
            let start = ContinuousClock.now
            let response = await session.request("https://origin.invalid/").serializingData().response
            let elapsed = ContinuousClock.now - start
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(elapsed >= .milliseconds(1400) && elapsed < .milliseconds(2200), "\(elapsed)")
        }

        @Test("SOCKS5 (socks5h) without authentication sends the host name")
        func socks5hName() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("socks")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .socks5)
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(url: "socks5h://127.0.0.1:\(proxy.port)")!)
            // `.invalid` never resolves: success proves the proxy did the resolving.
            let response = await session.request("http://origin.invalid:\(origin.port)/s").serializingString().response
            #expect(response.value == "socks", "\(response.result)")
            #expect(proxy.received.first?.socksAddressType == 3)
            #expect(proxy.received.first?.destination == "origin.invalid:\(origin.port)")
            let sent = String(decoding: origin.requests.first ?? [], as: UTF8.self)
            #expect(sent.hasPrefix("GET /s HTTP/1.1\r\nHost: origin.invalid:\(origin.port)\r\n"), "\(sent)")
        }

        @Test("SOCKS5 with username/password (RFC 1929)")
        func socks5Authenticated() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("authed")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .socks5, credentials: ("alice", "secret"))
            defer { proxy.stop() }
            let good = Self.session(ProxyServer(url: "socks5h://alice:secret@127.0.0.1:\(proxy.port)")!)
            let response = await good.request("http://origin.invalid:\(origin.port)/").serializingString().response
            #expect(response.value == "authed", "\(response.result)")
            #expect(proxy.received.first?.socksUser == "alice")

            let bad = Self.session(ProxyServer(url: "socks5h://alice:wrong@127.0.0.1:\(proxy.port)")!)
            let refused = await bad.request("http://origin.invalid:1/").serializingData().response
            #expect(Self.proxyError(refused.result)?.code == .socksAuthenticationFailed, "\(refused.result)")
            let none = Self.session(ProxyServer(url: "socks5h://127.0.0.1:\(proxy.port)")!)
            let noMethod = await none.request("http://origin.invalid:1/").serializingData().response
            #expect(Self.proxyError(noMethod.result)?.code == .socksNoAcceptableMethod, "\(noMethod.result)")
        }

        @Test("socks5:// resolves the name here (with the session's resolver) and sends the address")
        func socks5LocalResolution() async throws {
            let origin = try ScriptedServer(script: [.expectRequest, cannedResponse("local")])
            defer { origin.stop() }
            let proxy = try TestProxyServer(kind: .socks5)
            defer { proxy.stop() }
            let resolver = try HostResolver(overrides: ["origin.test": ["127.0.0.1"]])
            let session = Self.session(ProxyServer(url: "socks5://127.0.0.1:\(proxy.port)")!, resolver: resolver)
            let response = await session.request("http://origin.test:\(origin.port)/").serializingString().response
            #expect(response.value == "local", "\(response.result)")
            #expect(proxy.received.first?.socksAddressType == 1)
            #expect(proxy.received.first?.destination == "127.0.0.1:\(origin.port)")

            let unknown = await session.request("http://origin.invalid:\(origin.port)/").serializingData().response
            #expect(sessionTaskURLError(unknown.result)?.code == .cannotFindHost, "\(unknown.result)")
        }

        @Test("a SOCKS5 error reply is a typed error with the reply code")
        func socksReply() async throws {
            let proxy = try TestProxyServer(kind: .socks5, behavior: .refuse(5))
            defer { proxy.stop() }
            let session = Self.session(ProxyServer(kind: .socks5h, host: "127.0.0.1", port: proxy.port))
            let response = await session.request("http://origin.invalid:1/").serializingData().response
            let error = Self.proxyError(response.result)
            #expect(error?.code == .socksRequestFailed && error?.socksReply == 5, "\(response.result)")
        }
    }
}
