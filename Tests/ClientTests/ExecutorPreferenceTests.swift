// A request awaited inside `withTaskExecutorPreference(loop)` runs its whole exchange on that
// loop (issue 9, "Two thread hops per request"): the pool opens the connection on the caller's
// loop instead of the next one in round-robin order, and the awaiting code is resumed there.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
import EventLoop
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Executor preference")
    struct ExecutorPreferenceTests {
        @Test("a request awaited on a preferred loop gets its connection on that loop and never leaves it")
        func connectionOnPreferredLoop() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, cannedResponse("a"), .expectRequest, cannedResponse("b"),
                .expectRequest, cannedResponse("c"), .waitForClientClose,
            ])
            defer { server.stop() }
            // Three loops: round robin would put the connection on loops[1] (the pool's timer
            // took loops[0]), so only the preference puts it on loops[0].
            let group = EventLoopGroup(numberOfThreads: 3)
            defer { group.shutdown() }
            let preferred = group.loops[0]
            let session = Session(eventLoopGroup: group)
            let base = "http://127.0.0.1:\(server.port)"
            let observed = await withTaskExecutorPreference(preferred) { () async -> [String] in
                var lines: [String] = []
                for path in ["a", "b", "c"] {
                    let before = preferred.inEventLoop
                    let response = await session.request(base + "/" + path).serializingData().response
                    let after = preferred.inEventLoop
                    let body = response.value.map { String(decoding: $0, as: UTF8.self) } ?? "\(response.result)"
                    lines.append("\(path): \(body) before=\(before) after=\(after)")
                }
                return lines
            }
            #expect(observed == [
                "a: a before=true after=true", "b: b before=true after=true", "c: c before=true after=true",
            ])
            let loops = session.pool.state.withLock { state in state.connections.values.map(\.loop) }
            #expect(loops.count == 1, "one kept-alive connection")
            #expect(loops.allSatisfy { $0 === preferred }, "the connection lives on the preferred loop")
            #expect(server.connectionCount == 1)
            session.pool.closeIdleConnections()
        }

        @Test("a request from outside the group's loops still gets round-robin connections")
        func noPreferenceOffLoop() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("a"), .waitForClientClose])
            defer { server.stop() }
            let group = EventLoopGroup(numberOfThreads: 3)
            defer { group.shutdown() }
            let session = Session(eventLoopGroup: group)
            let response = await session.request("http://127.0.0.1:\(server.port)/a").serializingData().response
            #expect(response.value == Data("a".utf8), "\(response.result)")
            let loops = session.pool.state.withLock { state in state.connections.values.map(\.loop) }
            #expect(loops.count == 1 && loops[0] === group.loops[1], "round robin after the timer's loop")
            session.pool.closeIdleConnections()
        }
    }
}
