// Requests over Unix domain sockets: the `http+unix://` URL form (async-http-client's) and a
// ``HostResolver`` route from a host name to a socket (curl's `--unix-socket`), against a
// responder on a real socket (UnixSocketServer).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Glibc
import Testing
import EventLoop
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Unix domain sockets")
    struct UnixSocketTests {
        static func path(_ name: String) -> String { "/tmp/lariat-\(name)-\(getpid()).sock" }

        @Test("http+unix:// with the socket's path as the percent-encoded host")
        func httpUnixURL() async throws {
            let server = try UnixSocketServer(name: Self.path("url"))
            defer { server.stop() }
            let encoded = server.name.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
            let response = await retained(Session()).request("http+unix://\(encoded)/v1.43/info?all=1").serializingString().response
            #expect(response.value == "unix", "\(response.result)")
            let head = server.requestHeads.first ?? ""
            #expect(head.hasPrefix("GET /v1.43/info?all=1 HTTP/1.1\r\nHost: localhost\r\n"), "\(head)")
        }

        @Test("a HostResolver route sends one host's requests to a socket; the URL's Host stays")
        func resolverRoute() async throws {
            let server = try UnixSocketServer(name: Self.path("route"))
            defer { server.stop() }
            var resolver = HostResolver()
            try resolver.overrideUnixSocket(host: "docker", path: server.name)
            let response = await retained(Session(resolver: resolver)).request("http://docker/version").serializingString().response
            #expect(response.value == "unix", "\(response.result)")
            #expect(server.requestHeads.first?.contains("\r\nHost: docker\r\n") == true, "\(server.requestHeads)")
        }

        @Test("an abstract socket, routed for every host")
        func abstractSocket() async throws {
            let server = try UnixSocketServer(name: "lariat-abstract-\(getpid())", abstract: true)
            defer { server.stop() }
            var resolver = HostResolver()
            try resolver.overrideAbstractUnixSocket(host: "*", name: server.name)
            let response = await retained(Session(resolver: resolver)).request("http://anything.test:8080/x").serializingString().response
            #expect(response.value == "unix", "\(response.result)")
        }

        @Test("a socket nobody listens on -> cannotConnectToHost; a path too long -> invalidURL")
        func failures() async throws {
            let missing = await retained(Session()).request("http+unix://%2Ftmp%2Flariat-missing.sock/").serializingString().response
            #expect(sessionTaskURLError(missing.result)?.code == .cannotConnectToHost, "\(missing.result)")
            let long = "%2F" + String(repeating: "a", count: 120)
            let tooLong = await retained(Session()).request("http+unix://\(long)/").serializingString().response
            guard case .failure(.invalidURL) = tooLong.result else {
                Issue.record("expected invalidURL, got \(tooLong.result)")
                return
            }
        }

        @Test("SocketAddress for Unix sockets: description, limits, port ignored")
        func socketAddress() throws {
            let path = try SocketAddress(unixPath: "/var/run/docker.sock")
            #expect(path.family == .unix)
            #expect(path.description == "unix:/var/run/docker.sock")
            #expect(path.withPort(80) == path)
            #expect(try SocketAddress(abstractUnixName: "name").description == "unix:@name")
            #expect(throws: SocketError.self) { try SocketAddress(unixPath: "") }
            #expect(throws: SocketError.self) { try SocketAddress(unixPath: String(repeating: "a", count: 108)) }
            #expect(throws: SocketError.self) { try SocketAddress(unixPath: "a\u{0}b") }
        }
    }
}
