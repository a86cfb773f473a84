// HappyEyeballsStateMachine: events in, actions out, no sockets (STYLE.md §3).
@testable import EventLoop
import Testing

extension EventLoopTests {
    @Suite struct HappyEyeballsTests {
        typealias Machine = HappyEyeballsStateMachine
        static let v4a = SocketAddress.ipv4Loopback(port: 80)
        static let v4b = try! SocketAddress(ipAddress: "127.0.0.2", port: 80)
        static let v6a = SocketAddress.ipv6Loopback(port: 80)
        static let v6b = try! SocketAddress(ipAddress: "::2", port: 80)
        static let refused = SocketError(errno: 111, syscall: "connect")

        // (resolver order, expected attempt order): RFC 8305 §4 interleaving.
        static let interleavings: [([SocketAddress], [SocketAddress])] = [
            ([], []),
            ([v4a], [v4a]),
            ([v6a, v6b, v4a, v4b], [v6a, v4a, v6b, v4b]),
            ([v4a, v4b, v6a], [v4a, v6a, v4b]),
            ([v6a, v4a, v4b], [v6a, v4a, v4b]),
            ([v4a, v4b], [v4a, v4b]),
        ]

        @Test(arguments: interleavings)
        func interleavesFamilies(input: [SocketAddress], expected: [SocketAddress]) {
            #expect(Machine.interleave(input) == expected)
        }

        @Test func nameIsResolvedThenFirstAddressTriedWithTimerArmed() {
            var machine = Machine()
            #expect(machine.start(addresses: nil) == .resolve)
            #expect(machine.resolved([Self.v6a, Self.v4a]) == .startAttempt(0, Self.v6a, armNextAttemptTimer: true))
        }

        @Test func failureStartsNextAtOnceAndLastFailureFails() {
            var machine = Machine()
            #expect(machine.start(addresses: [Self.v4a, Self.v6a]) == .startAttempt(0, Self.v4a, armNextAttemptTimer: true))
            #expect(machine.attemptFailed(0, error: Self.refused) == .startAttempt(1, Self.v6a, armNextAttemptTimer: false))
            #expect(machine.attemptFailed(1, error: Self.refused) == .fail(Self.refused, closing: []))
            #expect(machine.isFinished)
            #expect(machine.timedOutAction() == .none)
        }

        @Test func timerRacesTheNextAddressAndFirstSuccessClosesTheRest() {
            var machine = Machine()
            _ = machine.start(addresses: [Self.v6a, Self.v6b, Self.v4a])
            #expect(machine.nextAttemptTimerFired() == .startAttempt(1, Self.v4a, armNextAttemptTimer: true))
            #expect(machine.nextAttemptTimerFired() == .startAttempt(2, Self.v6b, armNextAttemptTimer: false))
            #expect(machine.nextAttemptTimerFired() == .none)
            #expect(machine.attemptSucceeded(1) == .succeed(winner: 1, closing: [0, 2]))
            // Late events after the decision are ignored.
            #expect(machine.attemptSucceeded(0) == .none)
            #expect(machine.attemptFailed(2, error: Self.refused) == .none)
        }

        @Test func failureWhileOthersAreInFlightWaitsForThem() {
            var machine = Machine()
            _ = machine.start(addresses: [Self.v4a, Self.v6a])
            _ = machine.nextAttemptTimerFired()
            #expect(machine.attemptFailed(1, error: Self.refused) == .none)
            #expect(machine.attemptFailed(0, error: SocketError(kind: .hostUnreachable)) == .fail(SocketError(kind: .hostUnreachable), closing: []))
        }

        @Test func abortClosesEverythingInFlight() {
            var machine = Machine()
            _ = machine.start(addresses: [Self.v4a, Self.v6a])
            _ = machine.nextAttemptTimerFired()
            let cancelled = SocketError(kind: .cancelled)
            #expect(machine.abort(cancelled) == .fail(cancelled, closing: [0, 1]))
            #expect(machine.abort(cancelled) == .none)
        }

        @Test func resolutionOutcomes() {
            var failing = Machine()
            _ = failing.start(addresses: nil)
            let notFound = SocketError(kind: .hostNotFound, host: "x.invalid")
            #expect(failing.resolutionFailed(notFound) == .fail(notFound, closing: []))

            var empty = Machine()
            _ = empty.start(addresses: nil)
            #expect(empty.resolved([]) == .fail(SocketError(kind: .hostNotFound), closing: []))

            var late = Machine()
            _ = late.start(addresses: nil)
            _ = late.abort(SocketError(kind: .timedOut))
            #expect(late.resolved([Self.v4a]) == .none)
            #expect(late.resolutionFailed(notFound) == .none)
        }
    }
}

extension HappyEyeballsStateMachine {
    /// The action a timeout would produce (tests only).
    fileprivate mutating func timedOutAction() -> Action {
        abort(SocketError(kind: .timedOut))
    }
}
