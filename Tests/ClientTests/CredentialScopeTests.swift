// A request's own credential answers challenges from its first origin only (issue 25, item 1):
// a redirect to another port answering 401 never receives it, as Basic or Digest; a same-origin
// redirect still does; the session's credential storage still answers by protection space on
// the other origin. ScriptedServer on two loopback ports (two origins of one host), and an
// https origin (LoopbackTLSServer) redirecting to plain http.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
#if FullFoundation
import TLS
#endif
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Credential scope (scripted)")
    struct CredentialScopeTests {
        private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

        /// A 401 offering `challenge`, closing the connection.
        private static func unauthorized(_ challenge: String) -> ScriptedServer.Step {
            .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(challenge)\r\nContent-Length: 6\r\nConnection: close\r\n\r\ndenied")
        }

        static let digest = "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=MD5"
        static let basic = "Basic realm=\"r\""

        /// Every request the target received, as text.
        private func requests(_ server: ScriptedServer) -> [String] {
            (0..<server.connectionCount).flatMap { server.requests(onConnection: $0) }.map { text($0) }
        }

        @Test("a 302 to another port answering 401 gets no Authorization from the request's credential",
              arguments: [digest, basic, "\(basic), \(digest)"])
        func otherOrigin(challenge: String) async throws {
            let target = try ScriptedServer(script: [.expectRequest, Self.unauthorized(challenge), .close], forEveryConnection: true)
            defer { target.stop() }
            let origin = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(target.port)/t\r\nContent-Length: 0\r\n\r\n"),
            ])
            defer { origin.stop() }
            let session = Session(configuration: .ephemeral)
            let response = await session.request("http://127.0.0.1:\(origin.port)/start").authenticate(username: "u", password: "p")
                .serializingString().response
            #expect(response.response?.statusCode == 401)
            #expect(response.value == "denied")
            let seen = requests(target)
            #expect(seen.count == 1, "the 401 from another origin was answered: \(seen)")
            #expect(seen.allSatisfy { !$0.lowercased().contains("authorization") }, "\(seen)")
        }

        #if FullFoundation
        @Test("https to http: a 302 from the https origin to plain http answering 401 gets no Authorization")
        func downgrade() async throws {
            let target = try ScriptedServer(script: [.expectRequest, Self.unauthorized(Self.basic), .close], forEveryConnection: true)
            defer { target.stop() }
            let lab = try HTTPSLab.shared.get()
            let origin = try LoopbackTLSServer(
                certificateFile: lab.path("good-chain.pem"), keyFile: lab.path("good.key"),
                response: "HTTP/1.1 302 Found\r\nLocation: http://\(HTTPSLab.hostName):\(target.port)/t\r\nContent-Length: 0\r\n\r\n")
            defer { origin.stop() }
            var tls = TLSConfiguration()
            tls.trustRoots = .file(lab.path("ca.pem"))
            let session = Session(configuration: .ephemeral, tlsConfiguration: tls,
                                  resolver: try HostResolver(overrides: [HTTPSLab.hostName: ["127.0.0.1"]]))
            let response = await session.request("https://\(HTTPSLab.hostName):\(origin.port)/start")
                .authenticate(username: "u", password: "p").serializingString().response
            #expect(response.response?.statusCode == 401, "\(response.result)")
            let seen = requests(target)
            #expect(seen.count == 1 && seen.allSatisfy { !$0.lowercased().contains("authorization") }, "\(seen)")
        }
        #endif

        @Test("a same-origin redirect to a 401 is still answered")
        func sameOrigin() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: /t\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(Self.basic)\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("in"),
            ])
            defer { server.stop() }
            let response = await retained(Session(configuration: .ephemeral)).request("http://127.0.0.1:\(server.port)/start")
                .authenticate(username: "u", password: "p").serializingString().response
            #expect(response.value == "in")
            #expect(server.requests.count == 3)
            #expect(server.requests.last.map { text($0).contains("Authorization: Basic dTpw\r\n") } == true)
        }

        @Test("on another origin the session's credential storage answers by its protection space")
        func storageOnOtherOrigin() async throws {
            let target = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(Self.basic)\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("stored"),
            ])
            defer { target.stop() }
            let origin = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(target.port)/t\r\nContent-Length: 0\r\n\r\n"),
            ])
            defer { origin.stop() }
            let storage = URLCredentialStorage()
            storage.set(URLCredential(user: "s", password: "t", persistence: .forSession),
                        for: URLProtectionSpace(host: "127.0.0.1", port: target.port, protocol: "http", realm: nil))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCredentialStorage = storage
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(origin.port)/start")
                .authenticate(username: "u", password: "p").serializingString().response
            #expect(response.value == "stored")
            #expect(target.requests.last.map { text($0).contains("Authorization: Basic czp0\r\n") } == true, "the storage's, not the request's")
        }

        @Test("a challenge naming no realm is answered by the default credential stored for the server with a realm")
        func storageAnswersRealmlessChallenge() async throws {
            // `WWW-Authenticate: Basic` without a realm (what Vapor sends): failed before, the
            // stored space's realm "127.0.0.1" did not match the challenge's missing one.
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("stored"),
            ])
            defer { server.stop() }
            let storage = URLCredentialStorage()
            storage.setDefaultCredential(URLCredential(user: "s", password: "t", persistence: .forSession),
                                         for: URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "127.0.0.1",
                                                                 authenticationMethod: NSURLAuthenticationMethodHTTPBasic))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCredentialStorage = storage
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(response.value == "stored")
            #expect(server.requests.last.map { text($0).contains("Authorization: Basic czp0\r\n") } == true)
        }

        @Test("the storage's credential for one port does not answer another port")
        func storageScopedToItsSpace() async throws {
            let server = try ScriptedServer(script: [.expectRequest, Self.unauthorized(Self.basic), .close], forEveryConnection: true)
            defer { server.stop() }
            let storage = URLCredentialStorage()
            storage.set(URLCredential(user: "s", password: "t", persistence: .forSession),
                        for: URLProtectionSpace(host: "127.0.0.1", port: server.port + 1, protocol: "http", realm: nil))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCredentialStorage = storage
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(response.response?.statusCode == 401)
            #expect(requests(server).count == 1)
        }

        @Test("with Digest and Basic offered, a storage credential for Basic only answers Basic")
        func storageMethodChosen() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(Self.digest)\r\nWWW-Authenticate: \(Self.basic)\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("basic"),
            ])
            defer { server.stop() }
            let storage = URLCredentialStorage()
            storage.set(URLCredential(user: "s", password: "t", persistence: .forSession),
                        for: URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "r",
                                                authenticationMethod: NSURLAuthenticationMethodHTTPBasic))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCredentialStorage = storage
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(server.port)/").serializingString().response
            #expect(response.value == "basic")
            #expect(server.requests.last.map { text($0).contains("Authorization: Basic czp0\r\n") } == true)
        }
    }
}
