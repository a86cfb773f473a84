// HostResolver: which overrides apply to which (host, port), and what is refused. Plus one
// end-to-end check over plain HTTP that an override changes the address only, not the Host header.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client
@testable import Transport

@Suite("HostResolver")
struct HostResolverTests {
    /// The overrides every lookup row runs against.
    static func resolver() throws -> HostResolver {
        var resolver = try HostResolver(overrides: ["api.example.test": ["192.0.2.1", "[2001:db8::1]"], "[::1]": ["127.0.0.1"]])
        try resolver.override(host: "API.example.test", port: 8443, addresses: ["192.0.2.9"])
        try resolver.override(host: "gone.example.test", addresses: ["192.0.2.3"])
        try resolver.override(host: "gone.example.test", addresses: [])
        return resolver
    }

    /// (host, port, expected addresses or nil for normal resolution).
    static let lookups: [(String, Int, [String]?)] = [
        ("api.example.test", 443, ["192.0.2.1", "2001:db8::1"]),  // any-port entry, IPv6 brackets dropped
        ("API.Example.TEST", 80, ["192.0.2.1", "2001:db8::1"]),   // case-insensitive
        ("api.example.test.", 443, ["192.0.2.1", "2001:db8::1"]), // trailing dot
        ("api.example.test", 8443, ["192.0.2.9"]),                // port-specific wins
        ("other.example.test", 443, nil),                         // not overridden
        ("gone.example.test", 443, nil),                          // empty list removed it
        ("::1", 443, ["127.0.0.1"]),                              // an IP literal can be redirected too
        ("[::1]", 443, ["127.0.0.1"]),
    ]

    @Test("lookups", arguments: 0..<8)
    func lookup(index: Int) throws {
        let (host, port, expected) = HostResolverTests.lookups[index]
        #expect(try HostResolverTests.resolver().overriddenAddresses(host: host, port: port) == expected)
    }

    @Test("non-IP addresses are refused with the offending text", arguments: ["localhost", "192.0.2", "1.2.3.4:80", "", "[::1"])
    func invalid(address: String) {
        let error = #expect(throws: HostResolver.InvalidAddress.self) {
            _ = try HostResolver(overrides: ["x.test": ["127.0.0.1", address]])
        }
        #expect(error?.address == address)
        #expect(error?.host == "x.test")
    }

    @Test("system has no overrides; description is curl's spelling")
    func descriptions() throws {
        #expect(HostResolver.system.isEmpty)
        #expect(HostResolver.system.description == "system")
        var resolver = HostResolver()
        try resolver.override(host: "a.test", port: 443, addresses: ["127.0.0.1", "::1"])
        #expect(resolver.description == "a.test:443:127.0.0.1,[::1]")
    }

    @Test("Session(resolver:) connects to the override and still sends the URL's Host")
    func sessionUsesOverride() async throws {
        let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
        defer { server.stop() }
        let session = Session(resolver: try HostResolver(overrides: ["service.lariat.test": ["127.0.0.1"]]))
        #expect(session.resolver.overriddenAddresses(host: "service.lariat.test", port: server.port) == ["127.0.0.1"])
        let response = await session.request("http://service.lariat.test:\(server.port)/x").serializingString().response
        #expect(response.value == "ok", "\(response.result)")
        let request = String(decoding: server.requests.first ?? [], as: UTF8.self)
        #expect(request.hasPrefix("GET /x HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: service.lariat.test:\(server.port)\r\n"), "\(request)")
        #expect(server.failures.isEmpty, "\(server.failures)")
    }

    /// Reroutes every row runs against (curl's `--connect-to`), in order: first match wins.
    static func rerouted() -> HostResolver {
        var resolver = HostResolver()
        resolver.reroute(host: "a.test", port: 80, toHost: "backend.test", port: 8080)
        resolver.reroute(host: "A.TEST", port: nil, toHost: nil, port: 9443)          // any port, keeps the host
        resolver.reroute(host: nil, port: 81, toHost: nil, port: nil)                 // changes nothing: passed over
        resolver.reroute(host: "[::1]", port: nil, toHost: "127.0.0.1", port: nil)    // IPv6 pattern in brackets
        resolver.reroute(host: nil, port: 81, toHost: "any81.test", port: nil)        // any host on one port
        return resolver
    }

    /// (URL host, URL port, expected connection target).
    static let reroutes: [(String, Int, String, Int)] = [
        ("a.test", 80, "backend.test", 8080),   // exact pattern
        ("a.test", 443, "a.test", 9443),        // second entry: any port, URL host kept
        ("A.Test.", 80, "backend.test", 8080),  // case and trailing dot ignored
        ("b.test", 81, "any81.test", 81),       // the do-nothing entry is skipped, the next applies
        ("b.test", 80, "b.test", 80),           // no match: the URL's own
        ("::1", 8000, "127.0.0.1", 8000),
        ("[::1]", 8000, "127.0.0.1", 8000),
    ]

    @Test("reroutes: first matching entry that names a host or port", arguments: 0..<7)
    func reroute(index: Int) {
        let (host, port, targetHost, targetPort) = HostResolverTests.reroutes[index]
        let target = HostResolverTests.rerouted().connectionTarget(host: host, port: port)
        #expect(target.host == targetHost && target.port == targetPort, "\(target)")
    }

    @Test("a reroute's target is resolved with the address overrides; Host and metrics follow")
    func rerouteThenOverride() async throws {
        let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
        defer { server.stop() }
        var resolver = try HostResolver(overrides: ["backend.lariat.test": ["127.0.0.1"]])
        resolver.reroute(host: "front.lariat.test", port: 80, toHost: "backend.lariat.test", port: server.port)
        #expect(!resolver.isEmpty)
        #expect(resolver.description.hasSuffix("front.lariat.test:80->backend.lariat.test:\(server.port)"), "\(resolver)")
        let session = Session(resolver: resolver)
        let response = await session.request("http://front.lariat.test/y").serializingString().response
        #expect(response.value == "ok", "\(response.result)")
        let request = String(decoding: server.requests.first ?? [], as: UTF8.self)
        #expect(request.contains("\r\nHost: front.lariat.test\r\n"), "\(request)")
        #expect(response.metrics?.transactionMetrics.last?.remotePort == server.port)
        #expect(server.failures.isEmpty, "\(server.failures)")
    }
}
