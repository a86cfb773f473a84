// No cache shared across users (issue 25, item 4): two Sessions made from the default
// configuration, each with its own cookie storage (u=alice, u=bob), GET the same URL answered
// with `Cache-Control: max-age=100`: Bob must get his own response, never Alice's. And within
// one session, a response to a request that carried Cookie or Authorization is reused only when
// it says `public`, `s-maxage` or `must-revalidate` (RFC 9111 §3.5's rule for shared caches).
// ScriptedServer, and httpbin's /cache/100 when LARIAT_HTTPBIN is set.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

private let httpbinForIsolation: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// A session from the default configuration whose cookie storage holds `u=user` for 127.0.0.1.
private func userSession(_ user: String) -> Session {
    let configuration = URLSessionConfiguration.af.default
    let cookies = HTTPCookieStorage()
    cookies.setCookie(HTTPCookie(properties: [.name: "u", .value: user, .domain: "127.0.0.1", .path: "/"])!)
    configuration.httpCookieStorage = cookies
    return Session(configuration: configuration)
}

private func body(_ text: String, _ cacheControl: String) -> ScriptedServer.Step {
    .send("HTTP/1.1 200 OK\r\nCache-Control: \(cacheControl)\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
}

extension ClientIntegrationTests {
    @Suite("Cache isolation")
    struct CacheIsolationTests {
        @Test("two default-configuration sessions with their own cookies: Bob never gets Alice's body")
        func twoUsers() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, body("for alice", "max-age=100")], [.expectRequest, body("for bob", "max-age=100")],
            ]))
            defer { server.stop() }
            let url = loopbackURL(server, "/me?\(UUID().uuidString)")
            let alice = await retained(userSession("alice")).request(url).serializingString().response
            let bob = await retained(userSession("bob")).request(url).serializingString().response
            #expect(alice.value == "for alice")
            #expect(bob.value == "for bob", "Bob got Alice's cached body")
            #expect(server.requests.count == 2)
            #expect(server.requests.last.map { String(decoding: $0, as: UTF8.self).contains("Cookie: u=bob\r\n") } == true)
        }

        static let reuse: [(String, String, [String: String], Bool)] = [
            // scenario, Cache-Control, request headers, reused from the cache by a second request
            ("a cookie, max-age only: not reused", "max-age=100", [:], false),
            ("a cookie, public: reused", "public, max-age=100", [:], true),
            ("a cookie, s-maxage: reused", "max-age=100, s-maxage=100", [:], true),
            ("a cookie, must-revalidate: reused", "max-age=100, must-revalidate", [:], true),
            ("Authorization, max-age only: not reused", "max-age=100", ["Authorization": "Bearer t"], false),
            ("a Cookie field set by the caller, max-age only: not reused", "max-age=100", ["Cookie": "c=1"], false),
        ]

        @Test("a response to a request with Cookie or Authorization is reused only when public, s-maxage or must-revalidate",
              arguments: reuse)
        func credentialedReuse(scenario: String, cacheControl: String, headers: [String: String], reused: Bool) async throws {
            let server = try ScriptedServer(script: [.expectRequest, body("one", cacheControl), .expectRequest, body("two", cacheControl)])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0)
            configuration.httpCookieStorage = HTTPCookieStorage()
            if headers.isEmpty {
                configuration.httpCookieStorage?.setCookie(HTTPCookie(properties: [.name: "u", .value: "a", .domain: "127.0.0.1", .path: "/"])!)
            }
            let session = Session(configuration: configuration)
            let url = loopbackURL(server, "/r")
            _ = await session.request(url, headers: HTTPHeaders(headers)).serializingString().response
            let second = await session.request(url, headers: HTTPHeaders(headers)).serializingString().response
            #expect(second.value == (reused ? "one" : "two"), "\(scenario)")
            #expect(server.requests.count == (reused ? 1 : 2), "\(scenario)")
        }

        @Test("without Cookie or Authorization, max-age is still reused")
        func plainReuse() async throws {
            let server = try ScriptedServer(script: [.expectRequest, body("one", "max-age=100"), .expectRequest, body("two", "max-age=100")])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            let session = Session(configuration: configuration)
            _ = await session.request(loopbackURL(server, "/p")).serializingString().response
            #expect(await session.request(loopbackURL(server, "/p")).serializingString().response.value == "one")
        }

        @Test("httpbin /cache/100: two users' sessions each get their own echo", .enabled(if: httpbinForIsolation != nil, "needs LARIAT_HTTPBIN"))
        func httpbin() async throws {
            let base = try #require(httpbinForIsolation)
            let url = "\(base)/cache/100?run=\(UUID().uuidString)"
            let alice = await retained(userSession("alice")).request(url).serializingString().response
            let bob = await retained(userSession("bob")).request(url).serializingString().response
            #expect(alice.value?.contains("u=alice") == true, "\(alice.result)")
            #expect(bob.value?.contains("u=bob") == true, "Bob got: \(bob.result)")
        }
    }
}
