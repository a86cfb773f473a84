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

        /// Polls until the process holds at most `expected` descriptors. The count is the whole
        /// process's, and the Client suites run beside these (sessions open and close sockets
        /// meanwhile): "back to the baseline or below, within 5 s" is what a leak cannot pass,
        /// while exact equality failed now and then under load (a concurrent suite's socket).
        static func settles(at expected: Int) async -> Bool {
            for _ in 0..<500 {
                if openFileDescriptorCount() <= expected { return true }
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
            #expect(await Self.settles(at: baseline))
        }

        @Test func thousandRefusedConnectsLeakNothing() async {
            let loop = EventLoopGroup.shared.next()
            let baseline = openFileDescriptorCount()
            let port = refusedPort()
            let tally = await Self.cycle(count: 1_000, host: "127.0.0.1", port: port, on: loop,
                                         connector: Connector(timeout: .seconds(5)))
            #expect(tally == ["connectionRefused": 1_000])
            #expect(openSocketDescriptors(touchingPort: port).isEmpty)
            #expect(await Self.settles(at: baseline))
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
            #expect(await Self.settles(at: baseline))
            listener.close()
        }

        @Test func unknownHostsLeakNothing() async {
            let loop = EventLoopGroup.shared.next()
            _ = await connect(host: "nonexistent.invalid", port: 80, on: loop)  // warm the resolver threads
            let baseline = openFileDescriptorCount()
            let tally = await Self.cycle(count: 20, host: "nonexistent.invalid", port: 80, on: loop,
                                         connector: Connector(timeout: .seconds(5)))
            #expect(tally == ["hostNotFound": 20])
            #expect(await Self.settles(at: baseline))
        }
    }
}
