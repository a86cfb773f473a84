// No fd is ever leaked: many successful, refused, timed-out and cancelled connects leave the
// process's descriptor count where it was.
@testable import EventLoop
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct DescriptorLeakTests {
        /// Runs `count` connect attempts back to back on `loop`, closing each successful socket at
        /// once; `cancelAfter` cancels each attempt on the next loop iteration when set.
        /// - Returns: The outcome kinds, "ok" for a success.
        static func cycle(
            count: Int, host: String, port: Int, on loop: EventLoop,
            connector: Connector, cancelEachAttempt: Bool = false
        ) async -> [String: Int] {
            await withCheckedContinuation { continuation in
                loop.execute {
                    final class Runner {
                        var remaining: Int
                        var tally: [String: Int] = [:]
                        init(_ count: Int) { remaining = count }
                    }
                    let runner = Runner(count)
                    func next() {
                        guard runner.remaining > 0 else {
                            continuation.resume(returning: runner.tally)
                            return
                        }
                        runner.remaining -= 1
                        let attempt = connector.connect(host: host, port: port, on: loop) { result in
                            switch result {
                            case .success(let socket):
                                socket.close()
                                runner.tally["ok", default: 0] += 1
                            case .failure(let error):
                                runner.tally[error.kind.description, default: 0] += 1
                            }
                            next()
                        }
                        if cancelEachAttempt { loop.executeLocal { attempt.cancel() } }
                    }
                    next()
                }
            }
        }

        /// Descriptors other suites may hold open beside these at any moment (their pooled
        /// keep-alive connections, listeners, loops): the Client suites run beside these.
        static let concurrentSlack = 48

        /// Polls until the process holds at most `expected` + the slack (``concurrentSlack``, or
        /// half the cycles when fewer, so a per-cycle leak always shows). The
        /// count is the whole process's, and other suites' sessions keep idle connections open for
        /// their idle timeout, so "back to the baseline exactly" failed under load while proving
        /// nothing more: a leak here is per cycle, so 1,000 cycles leaking one descriptor each
        /// are 1,000 over, far past the slack. (A socket left connected to the test's port is
        /// caught exactly by `openSocketDescriptors(touchingPort:)`.)
        static func settles(at expected: Int, cycles: Int) async -> Bool {
            let slack = min(concurrentSlack, cycles / 2)
            for _ in 0..<500 {
                if openFileDescriptorCount() <= expected + slack { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }

        @Test func thousandConnectCloseCyclesLeakNothing() async throws {
            let loop = EventLoopGroup.shared.next()
            let baseline = openFileDescriptorCount()
            let server = try ScriptedServer(script: [.waitForClientClose], forEveryConnection: true)
            let tally = await Self.cycle(count: 1_000, host: "127.0.0.1", port: server.port, on: loop,
                                         connector: Connector(timeout: .seconds(5)))
            #expect(tally == ["ok": 1_000])
            #expect(server.waitForConnections(1_000, finished: true, timeout: .seconds(10)))
            // Only the listener is left on the port: every client socket was closed.
            #expect(openSocketDescriptors(touchingPort: server.port).count == 1)
            #expect(server.failures.first == nil)
            server.stop()
            #expect(await Self.settles(at: baseline, cycles: 1000))
        }

        @Test func thousandRefusedConnectsLeakNothing() async {
            let loop = EventLoopGroup.shared.next()
            let baseline = openFileDescriptorCount()
            let port = refusedPort()
            let tally = await Self.cycle(count: 1_000, host: "127.0.0.1", port: port, on: loop,
                                         connector: Connector(timeout: .seconds(5)))
            #expect(tally == ["connectionRefused": 1_000])
            #expect(openSocketDescriptors(touchingPort: port).isEmpty)
            #expect(await Self.settles(at: baseline, cycles: 1000))
        }

        @Test func timedOutAndCancelledConnectsLeakNothing() async throws {
            let loop = EventLoopGroup.shared.next()
            let listener = try FullBacklogListener()
            let baseline = openFileDescriptorCount()
            let timedOut = await Self.cycle(count: 50, host: "127.0.0.1", port: listener.port, on: loop,
                                            connector: Connector(timeout: .milliseconds(2)))
            #expect(timedOut == ["timedOut": 50])
            let cancelled = await Self.cycle(count: 200, host: "127.0.0.1", port: listener.port, on: loop,
                                             connector: Connector(timeout: .seconds(5)), cancelEachAttempt: true)
            #expect(cancelled == ["cancelled": 200])
            #expect(await Self.settles(at: baseline, cycles: 250))
            listener.close()
        }

        @Test func unknownHostsLeakNothing() async {
            let loop = EventLoopGroup.shared.next()
            _ = await connect(host: "nonexistent.invalid", port: 80, on: loop)  // warm the resolver threads
            let baseline = openFileDescriptorCount()
            let tally = await Self.cycle(count: 20, host: "nonexistent.invalid", port: 80, on: loop,
                                         connector: Connector(timeout: .seconds(5)))
            #expect(tally == ["hostNotFound": 20])
            #expect(await Self.settles(at: baseline, cycles: 20))
        }
    }
}
