// Descriptor hygiene: many sequential requests, successful and refused, must leave the process's
// open descriptor count where it was once the session is gone.
//
// Runs inside the `.serialized` integration parent (see FaultTests.swift), so no other socket
// test runs meanwhile; the count is still polled for up to 2 s, because connections close on
// their event loop shortly after the Session deinitializes.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import EventLoop
import LariatTestSupport
@testable import Client

/// Requests per scenario (the 10,000: both scenarios together take about 10 s in debug).
private let requestCount = 10_000

/// Room in the process-wide count for descriptors of tests in OTHER test targets, which a plain
/// `swift test` runs in parallel with this suite. A per-request leak shows up as thousands; the
/// exact per-port audit in the keep-alive test has no slack at all.
private let parallelSlack = 8

/// Polls the open descriptor count for up to 2 s until it is back to `baseline` or below;
/// returns the last count.
private func settledDescriptorCount(baseline: Int) async -> Int {
    let deadline = ContinuousClock.now + .seconds(2)
    var count = openFileDescriptorCount()
    while count > baseline, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(20))
        count = openFileDescriptorCount()
    }
    return count
}

/// Warms up the shared event loops (their epoll/eventfd/timerfd descriptors are created once) so
/// they are part of the baseline.
private func warmUp() async {
    _ = await retained(Session()).request("http://127.0.0.1:\(refusedPort())/").serializingData().response
}

extension ClientIntegrationTests {
    @Suite("Descriptors", .serialized)
    struct DescriptorTests {
        @Test("sequential keep-alive requests leave no descriptor behind")
        func keepAliveRequests() async throws {
            let script = Array(repeating: [ScriptedServer.Step.expectRequest, cannedResponse("ok")], count: requestCount).flatMap { $0 }
            let server = try ScriptedServer(script: script + [.waitForClientClose], forEveryConnection: true)
            defer { server.stop() }
            await warmUp()
            let baseline = openFileDescriptorCount()
            var failures = 0
            var reused = 0
            do {
                let session = Session()
                let url = "http://127.0.0.1:\(server.port)/n"
                for _ in 0..<requestCount {
                    let response = await session.request(url).serializingString().response
                    if response.value != "ok" { failures += 1 }
                    if response.metrics?.transactionMetrics.first?.isReusedConnection == true { reused += 1 }
                }
                // listener + accepted socket (server) + the client's idle keep-alive connection
                #expect(openSocketDescriptors(touchingPort: server.port).count == 3)
            }
            #expect(failures == 0)
            #expect(reused == requestCount - 1)
            #expect(server.connectionCount == 1)
            let settled = await settledDescriptorCount(baseline: baseline)
            #expect(settled <= baseline + parallelSlack, "baseline \(baseline), after \(settled)")
            #expect(server.waitForConnections(1, finished: true, timeout: .seconds(2)), "the client closed its connection")
            #expect(server.failures.isEmpty)
            server.stop()
            #expect(openSocketDescriptors(touchingPort: server.port).isEmpty)
        }

        @Test("sequential refused requests leave no descriptor behind")
        func refusedRequests() async throws {
            await warmUp()
            let baseline = openFileDescriptorCount()
            var wrongErrors = 0
            do {
                let session = Session()
                let url = "http://127.0.0.1:\(refusedPort())/"
                for _ in 0..<requestCount {
                    let response = await session.request(url).serializingData().response
                    if sessionTaskURLError(response.result)?.code != .cannotConnectToHost { wrongErrors += 1 }
                }
            }
            #expect(wrongErrors == 0)
            let settled = await settledDescriptorCount(baseline: baseline)
            #expect(settled <= baseline + parallelSlack, "baseline \(baseline), after \(settled)")
        }
    }
}
