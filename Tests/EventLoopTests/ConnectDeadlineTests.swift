// Time limits at the loop's edge: the epoll timeout computed for any timer deadline (pure), and a
// Connector given a timeout or deadline that leaves no time, or a deadline shorter than its timeout.
@testable import EventLoop
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct ConnectDeadlineTests {
        /// One epoll timeout case: a timer deadline, the current time, the milliseconds to wait.
        struct PollRow: Sendable, CustomTestStringConvertible {
            var name: String
            var deadline: Int64
            var now: Int64
            var expected: Int32
            var testDescription: String { name }
        }

        @Test("epoll timeout for a timer deadline", arguments: [
            // due or past: do not sleep
            PollRow(name: "due now", deadline: 5_000_000, now: 5_000_000, expected: 0),
            PollRow(name: "past", deadline: 1, now: 5_000_000, expected: 0),
            // rounded up, never early
            PollRow(name: "1 ns ahead", deadline: 5_000_001, now: 5_000_000, expected: 1),
            PollRow(name: "exactly 1 ms", deadline: 6_000_000, now: 5_000_000, expected: 1),
            PollRow(name: "1 ms + 1 ns", deadline: 6_000_001, now: 5_000_000, expected: 2),
            // far away: clamped, no overflow (remaining + 999_999 trapped here)
            PollRow(name: "distantFuture under 1 ms after boot", deadline: .max, now: 999_998, expected: .max),
            PollRow(name: "distantFuture from distantPast", deadline: .max, now: 0, expected: .max),
            PollRow(name: "distantFuture, now negative", deadline: .max, now: -1, expected: .max),
            PollRow(name: "a year ahead", deadline: 365 * 86_400 * 1_000_000_000, now: 0, expected: .max),
        ])
        func pollTimeout(_ row: PollRow) {
            let timeout = EventLoop.pollTimeout(until: Deadline(uptimeNanoseconds: row.deadline), now: Deadline(uptimeNanoseconds: row.now))
            #expect(timeout == row.expected)
        }

        @Test("a zero or negative connect timeout fails with timedOut, after connect returns", arguments: [
            Duration.zero, .nanoseconds(-1), .seconds(-5),
        ])
        func nonPositiveTimeout(_ timeout: Duration) async throws {
            // Connector.init used to trap: precondition(timeout > .zero).
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let result = await connect(host: "127.0.0.1", port: server.port, on: loop, connector: Connector(timeout: timeout))
            #expect(result.kind == .timedOut)
        }

        @Test("a deadline already past fails with timedOut without connecting")
        func pastDeadline() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let result = await connect(host: "127.0.0.1", port: server.port, on: loop,
                                       connector: Connector(timeout: .seconds(5), deadline: .now() + .seconds(-1)))
            #expect(result.kind == .timedOut)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
        }

        @Test("the deadline wins over a longer timeout")
        func deadlineBeforeTimeout() async throws {
            let listener = try FullBacklogListener()
            defer { listener.close() }
            let loop = EventLoopGroup.shared.next()
            // The deadline is absolute, set here: the lower bound counts from here, the upper one
            // from the call on the loop (the hop to the loop can wait on the cooperative pool).
            let start = ContinuousClock.now
            let (result, elapsed) = await connectTimed(host: "127.0.0.1", port: listener.port, on: loop,
                                                       connector: Connector(timeout: .seconds(30), deadline: .now() + .milliseconds(200)))
            #expect(result.kind == .timedOut)
            #expect(ContinuousClock.now - start >= .milliseconds(190))
            #expect(elapsed < .seconds(2))
        }

        @Test("a timeout too large for the clock means none: the connection is made")
        func hugeTimeout() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let result = await connect(host: "127.0.0.1", port: server.port, on: loop,
                                       connector: Connector(timeout: .seconds(Int64.max)))
            guard case .success(let socket) = result else {
                Issue.record("connect failed: \(result)")
                return
            }
            await close(socket)
        }
    }
}
