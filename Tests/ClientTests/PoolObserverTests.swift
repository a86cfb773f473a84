// The pool's observer hook (ConnectionPool+Observer.swift) against a loopback server: every
// transition stores the key's counts as they are after it (issue 20). While `observe` was
// non-mutating, an entry point written `state.observe(key, state.resolve(state.machine.event()))`
// (shutdown, close, cancel and deadline were, until an allocation fix) counted a copy of `state`
// taken before the event: a released Session's shutdown stored "idle 1", and the gauge kept it.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
import EventLoop
import LariatTestSupport
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Connection pool observer")
    struct PoolObserverTests {
        /// Every `store` in order, and the number of `publish` calls.
        final class Recorder: ConnectionPoolObserver {
            let log = Mutex<(stored: [ConnectionPoolCounts], published: Int)>(([], 0))
            func store(_ counts: ConnectionPoolCounts, for key: ConnectionKey) { log.withLock { $0.stored.append(counts) } }
            func publish() { log.withLock { $0.published += 1 } }
            var stored: [ConnectionPoolCounts] { log.withLock { $0.stored } }
        }

        @Test("one request, then shutdown: connecting, leased, idle, then nothing open, each stored after its transition")
        func countsFollowEachTransition() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .waitForClientClose])
            defer { server.stop() }
            let recorder = Recorder()
            var configuration = ConnectionPool.Configuration()
            configuration.observer = recorder
            let pool = ConnectionPool(group: .shared, configuration: configuration)
            let probe = ExchangeProbe(PoolTests.request(port: server.port))
            pool.execute(probe.exchange)
            guard case .end? = await probe.outcome(within: .seconds(5)) else {
                Issue.record("the request must end normally")
                return
            }
            // The release is stored before the exchange ends (HTTP1Connection.complete).
            #expect(recorder.stored == [.init(connecting: 1), .init(leased: 1), .init(idle: 1)])
            pool.closeIdleConnections()
            #expect(recorder.stored.last == ConnectionPoolCounts(), "after shutdown: \(recorder.stored)")
            #expect(await eventually { server.clientClosed(connection: 0) }, "the idle connection stayed open")
            // The close reaches the pool after the shutdown forgot the connection: nothing to add.
            let afterShutdown = recorder.stored.dropFirst(3)
            #expect(afterShutdown.allSatisfy { $0.isEmpty }, "\(recorder.stored)")
            #expect(recorder.log.withLock { $0.published } == recorder.stored.count)
        }

        @Test("released (shut down, then dropped) while its one exchange runs: the response ends it, the connection closes, the counts end empty")
        func releasedWhileBusy() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .sleep(.milliseconds(300)), .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .waitForClientClose,
            ])
            defer { server.stop() }
            let recorder = Recorder()
            var configuration = ConnectionPool.Configuration()
            configuration.observer = recorder
            var pool: ConnectionPool? = ConnectionPool(group: .shared, configuration: configuration)
            weak let released = pool
            let probe = ExchangeProbe(PoolTests.request(port: server.port))
            pool!.execute(probe.exchange)
            #expect(await eventually { server.requests.count == 1 }, "the request never reached the server")
            #expect(recorder.stored.last == ConnectionPoolCounts(leased: 1), "\(recorder.stored)")
            // What a Session's release does to its pool (RequestContext.sessionReleased), with no
            // request left to hold it: a caller of the pool's own API owes it nothing more.
            pool!.closeIdleConnections()
            pool = nil
            guard case .end? = await probe.outcome(within: .seconds(5)) else {
                Issue.record("the running exchange must end normally")
                return
            }
            #expect(await eventually { server.clientClosed(connection: 0) }, "the connection stayed open")
            // The connection held the pool only weakly: the release found it gone, the close
            // skipped it, and the observer kept "leased 1".
            #expect(await eventually { recorder.stored.last == ConnectionPoolCounts() }, "\(recorder.stored)")
            #expect(await eventually { released == nil }, "the pool outlived its last connection's exchange")
            #expect(server.failures.isEmpty, Comment(rawValue: server.failures.joined(separator: "; ")))
        }
    }
}

/// Polls `condition` every 5 ms for up to 5 s; whether it held.
private func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
