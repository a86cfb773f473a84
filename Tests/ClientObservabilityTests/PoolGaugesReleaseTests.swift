// What a released Session leaves behind (issue 20): its idle connections must be closed on the
// wire and the idle gauge must fall to 0. Against the scripted server, which tells when the
// client closed its end, so a gauge that falls while the socket stays open (or the reverse)
// cannot pass.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import MetricsTestKit
import Client
import ClientObservability
import LariatTestSupport

@Suite("MetricsEventMonitor pool gauges after the Session is released")
struct PoolGaugesReleaseTests {
    private static let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    /// How long the server waits for each request. Not the default 5 s: in a full parallel
    /// `swift test` on 2 cores the next request of a sequential caller came more than 5 s later,
    /// the server gave up on the kept-alive connection and the retry met a connection with no
    /// script. Nothing here is about timing.
    private static let stepTimeout: Duration = .seconds(60)

    private func idle(_ metrics: TestMetrics, port: Int) -> Double? {
        let origin = [("scheme", "http"), ("host", "127.0.0.1"), ("port", String(port))]
        return try? metrics.expectGauge(MetricsEventMonitor.Label.poolConnections, origin + [("state", "idle")]).lastValue
    }

    @Test("released right after the response: the kept-alive connection is closed, idle reads 0",
          arguments: [1, 3])
    func releasedSessionClosesIdleConnections(requests: Int) async throws {
        let server = try ScriptedServer(
            script: Array(repeating: [ScriptedServer.Step.expectRequest, .send(Self.response)], count: requests).flatMap { $0 }
                + [.waitForClientClose],
            stepTimeout: Self.stepTimeout)
        defer { server.stop() }
        let metrics = TestMetrics()
        var session: Session? = Session(eventMonitors: [MetricsEventMonitor(factory: metrics)])
        for _ in 0..<requests {
            let response = await session!.request("http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(response.response?.statusCode == 200)
        }
        // Released at once, as a caller dropping its last reference after the await does.
        session = nil
        #expect(await eventually { server.clientClosed(connection: 0) }, "the idle connection stayed open")
        // Issue 20: the shutdown's transition stored the counts from before it (idle 1) while
        // `observe` was non-mutating and called as `state.observe(keys, state.resolve(...))`, and
        // the close that followed found the pool gone (the connection holds it weakly), so the
        // gauge kept 1. Stored after the shutdown, it reads 0 (ConnectionPool+Observer.swift).
        #expect(await eventually { idle(metrics, port: server.port) == 0 },
                "idle gauge \(String(describing: idle(metrics, port: server.port)))")
        #expect(server.connectionCount == 1)
        #expect(server.failures.isEmpty, Comment(rawValue: server.failures.joined(separator: "; ")))
    }

    @Test("released after four requests at a limit of two (two waited for a connection): every connection closed, idle reads 0")
    func releasedAfterConcurrentRequests() async throws {
        let server = try ScriptedServer(
            script: [.expectRequest, .sleep(.milliseconds(200)), .send(Self.response),
                     .expectRequest, .sleep(.milliseconds(200)), .send(Self.response), .waitForClientClose],
            forEveryConnection: true, stepTimeout: Self.stepTimeout)
        defer { server.stop() }
        let metrics = TestMetrics()
        let configuration = URLSessionConfiguration.af.default
        configuration.httpMaximumConnectionsPerHost = 2
        var session: Session? = Session(configuration: configuration, eventMonitors: [MetricsEventMonitor(factory: metrics)])
        weak let released = session
        let requests = (0..<4).map { _ in session!.request("http://127.0.0.1:\(server.port)/") }
        let tasks = requests.map { request in Task { await request.serializingData().response } }
        for task in tasks { #expect(await task.value.response?.statusCode == 200) }
        session = nil
        #expect(released == nil, "the Session outlived its last reference")
        #expect(await eventually { (0..<server.connectionCount).allSatisfy { server.clientClosed(connection: $0) } },
                Comment(rawValue: "open connections: \(Array((0..<server.connectionCount).filter { !server.clientClosed(connection: $0) }))"))
        #expect(await eventually { idle(metrics, port: server.port) == 0 },
                "idle gauge \(String(describing: idle(metrics, port: server.port)))")
        #expect(server.failures.isEmpty, Comment(rawValue: server.failures.joined(separator: "; ")))
        withExtendedLifetime(requests) {}
    }
}
