// Cookies through a Session over real sockets: the scripted server (a Set-Cookie on a 302 sent
// with the next request, a Secure cookie over http refused, another site's domain refused) and
// httpbin (`/cookies/set`, `/cookies`, `/cookies/delete`).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

/// The httpbin base URL from the environment, or nil when those tests are skipped.
private let cookieHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// The `Cookie` field of a raw request, or nil.
private func cookieField(_ raw: [UInt8]) -> String? {
    let text = String(decoding: raw, as: UTF8.self)
    for line in text.split(separator: "\r\n") where line.lowercased().hasPrefix("cookie:") {
        return String(line.dropFirst("cookie:".count).drop { $0 == " " })
    }
    return nil
}

/// httpbin's `/cookies` answer.
private struct CookieEcho: Decodable {
    var cookies: [String: String]
}

extension ClientIntegrationTests {
    @Suite("Cookies through a Session")
    struct CookieSessionTests {
        /// A session with its own cookie storage.
        private func session() -> (Session, HTTPCookieStorage) {
            let configuration = URLSessionConfiguration.ephemeral
            return (Session(configuration: configuration), configuration.httpCookieStorage!)
        }

        @Test("a Set-Cookie on a 302 not followed is stored and sent with the next request to that host")
        func setCookieOnRedirectResponse() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest,
                cannedResponse("", status: "302 Found", extra: "Location: /home\r\nSet-Cookie: sid=abc; Path=/; HttpOnly\r\nSet-Cookie: theme=dark\r\n"),
                .expectRequest, cannedResponse(),
            ])
            defer { server.stop() }
            let (session, storage) = session()
            let base = "http://127.0.0.1:\(server.port)"
            let first = await session.request(base + "/login").redirect(using: Redirector.doNotFollow).serializingData().response
            #expect(first.response?.statusCode == 302)
            #expect(storage.cookies?.map(\.name).sorted() == ["sid", "theme"])
            _ = await session.request(base + "/home").serializingData().response
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(cookieField(requests[0]) == nil)
            // `theme` has /login's default path `/`; `sid` names `/`: same path, creation order.
            #expect(requests.count == 2 && cookieField(requests[1]) == "sid=abc; theme=dark")
        }

        @Test("one request: a 302 with Set-Cookie, and the followed hop carries the cookie")
        func setCookieOnFollowedRedirect() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest,
                cannedResponse("", status: "302 Found", extra: "Location: /home\r\nSet-Cookie: sid=abc; Path=/\r\n"),
                .expectRequest, cannedResponse("home"),
            ])
            defer { server.stop() }
            let (session, _) = session()
            let response = await session.request("http://127.0.0.1:\(server.port)/login").serializingString().response
            #expect(response.value == "home")
            let requests = server.requests
            #expect(requests.count == 2 && cookieField(requests[0]) == nil && cookieField(requests[1]) == "sid=abc")
        }

        @Test("refused: a Secure cookie over http, another site's Domain, a public suffix; a request opting out sends none")
        func refusals() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest,
                cannedResponse("", extra: "Set-Cookie: s=1; Secure\r\nSet-Cookie: o=1; Domain=example.com\r\nSet-Cookie: p=1; Domain=com\r\nSet-Cookie: ok=1\r\n"),
                .expectRequest, cannedResponse(),
                .expectRequest, cannedResponse(),
            ])
            defer { server.stop() }
            let (session, storage) = session()
            let base = "http://127.0.0.1:\(server.port)"
            _ = await session.request(base + "/").serializingData().response
            #expect(storage.cookies?.map(\.name) == ["ok"])
            _ = await session.request(base + "/").serializingData().response
            var optOut = URLRequest(url: URL(string: base + "/")!)
            optOut.httpShouldHandleCookies = false
            _ = await session.request(optOut).serializingData().response
            let requests = server.requests
            #expect(requests.count == 3 && cookieField(requests[1]) == "ok=1" && cookieField(requests[2]) == nil)
        }

        @Test("httpbin: /cookies/set stores, /cookies echoes, /cookies/delete removes",
              .enabled(if: cookieHTTPBin != nil, "LARIAT_HTTPBIN is not set"))
        func httpbinCookies() async throws {
            let base = try #require(cookieHTTPBin)
            let (session, storage) = session()
            _ = await session.request(base + "/cookies/set?a=1&b=two").serializingData().response
            #expect(storage.cookies?.map(\.name).sorted() == ["a", "b"])
            let echoed = try #require(await session.request(base + "/cookies").serializingData().response.value)
            #expect(try JSONDecoder().decode(CookieEcho.self, from: echoed).cookies == ["a": "1", "b": "two"])
            _ = await session.request(base + "/cookies/delete?a").serializingData().response
            #expect(storage.cookies?.map(\.name) == ["b"])
            let after = try #require(await session.request(base + "/cookies").serializingData().response.value)
            #expect(try JSONDecoder().decode(CookieEcho.self, from: after).cookies == ["b": "two"])
        }
    }
}
