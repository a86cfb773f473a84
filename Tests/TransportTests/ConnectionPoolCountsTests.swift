// The counts the pool's observer is told (ConnectionPool+Observer.swift), table-driven over the
// machine's events: each row is an event and the key's counts after it.
import Testing
import EventLoop
@testable import Transport

@Suite struct ConnectionPoolCountsTests {
    typealias Machine = ConnectionPoolStateMachine
    static let key = ConnectionKey(isTLS: false, host: "example.com", port: 80)
    static let other = ConnectionKey(isTLS: true, host: "example.org", port: 443)
    static let t0 = Deadline(uptimeNanoseconds: 1_000_000_000)

    /// A machine event.
    enum Event: CustomStringConvertible {
        case submit(Int, fresh: Bool = false, deadline: Deadline = .distantFuture)
        case established(Int)
        case connectFailed(Int)
        case released(Int)
        case closed(Int)
        case cancelled(Int)
        case deadline(Deadline)
        case shutdown

        var description: String {
            switch self {
            case .submit(let request, let fresh, _): "submit \(request)\(fresh ? " fresh" : "")"
            case .established(let id): "established \(id)"
            case .connectFailed(let id): "connect failed \(id)"
            case .released(let id): "released \(id)"
            case .closed(let id): "closed \(id)"
            case .cancelled(let request): "cancelled \(request)"
            case .deadline: "deadline"
            case .shutdown: "shutdown"
            }
        }

        func apply(to machine: inout Machine) {
            switch self {
            case .submit(let request, let fresh, let deadline):
                _ = machine.requestSubmitted(request, key: ConnectionPoolCountsTests.key, needsFreshConnection: fresh, deadline: deadline)
            case .established(let id): _ = machine.connectionEstablished(id)
            case .connectFailed(let id): _ = machine.connectFailed(id)
            case .released(let id): _ = machine.connectionReleased(id)
            case .closed(let id): _ = machine.connectionClosed(id)
            case .cancelled(let request): _ = machine.requestCancelled(request)
            case .deadline(let now): _ = machine.deadlinePassed(now: now)
            case .shutdown: _ = machine.shutdown()
            }
        }
    }

    typealias Counts = ConnectionPoolCounts
    static func c(idle: Int = 0, leased: Int = 0, connecting: Int = 0, waiters: Int = 0) -> Counts {
        Counts(idle: idle, leased: leased, connecting: connecting, waiters: waiters)
    }

    /// (scenario, limit, [(event, counts after it)])
    static let scenarios: [(String, Int, [(Event, Counts)])] = [
        ("open, run, idle, reuse, close", 2, [
            (.submit(1), c(connecting: 1)),
            (.established(0), c(leased: 1)),
            (.released(0), c(idle: 1)),
            (.submit(2), c(leased: 1)),
            (.released(0), c(idle: 1)),
            (.closed(0), c()),
        ]),
        ("the limit queues waiters, releases serve them in order", 1, [
            (.submit(1), c(connecting: 1)),
            (.submit(2), c(connecting: 1, waiters: 1)),
            (.submit(3), c(connecting: 1, waiters: 2)),
            (.established(0), c(leased: 1, waiters: 2)),
            (.released(0), c(leased: 1, waiters: 1)),
            (.released(0), c(leased: 1)),
            (.released(0), c(idle: 1)),
            (.shutdown, c()),
        ]),
        ("a failed connect hands its slot to the head waiter", 1, [
            (.submit(1), c(connecting: 1)),
            (.submit(2), c(connecting: 1, waiters: 1)),
            (.connectFailed(0), c(connecting: 1)),
            (.established(1), c(leased: 1)),
            (.closed(1), c()),
        ]),
        ("cancels: a waiter, then a connecting request with nobody behind", 1, [
            (.submit(1), c(connecting: 1)),
            (.submit(2), c(connecting: 1, waiters: 1)),
            (.cancelled(2), c(connecting: 1)),
            (.cancelled(1), c()),
        ]),
        ("a cancelled connecting request hands its connection to the waiter", 1, [
            (.submit(1), c(connecting: 1)),
            (.submit(2), c(connecting: 1, waiters: 1)),
            (.cancelled(1), c(connecting: 1)),
            (.established(0), c(leased: 1)),
            (.released(0), c(idle: 1)),
        ]),
        ("a fresh retry at the limit retires the idle connection", 1, [
            (.submit(1), c(connecting: 1)),
            (.established(0), c(leased: 1)),
            (.released(0), c(idle: 1)),
            (.submit(2, fresh: true), c(connecting: 1)),
            (.established(1), c(leased: 1)),
        ]),
        ("an expired waiter leaves the queue", 1, [
            (.submit(1), c(connecting: 1)),
            (.submit(2, deadline: t0), c(connecting: 1, waiters: 1)),
            (.deadline(t0), c(connecting: 1)),
            (.established(0), c(leased: 1)),
        ]),
        ("several connections: leased and idle side by side", 3, [
            (.submit(1), c(connecting: 1)),
            (.submit(2), c(connecting: 2)),
            (.established(0), c(leased: 1, connecting: 1)),
            (.submit(3), c(leased: 1, connecting: 2)),
            (.established(1), c(leased: 2, connecting: 1)),
            (.established(2), c(leased: 3)),
            (.released(1), c(idle: 1, leased: 2)),
            (.closed(0), c(idle: 1, leased: 1)),
            (.shutdown, c(leased: 1)),
        ]),
    ]

    @Test(arguments: 0..<scenarios.count)
    func countsAfterEachEvent(_ index: Int) {
        let (name, limit, rows) = Self.scenarios[index]
        var machine = Machine(maxConnectionsPerHost: limit)
        for (step, (event, expected)) in rows.enumerated() {
            event.apply(to: &machine)
            #expect(machine.counts(for: Self.key) == expected, "\(name), step \(step): \(event)")
            let counts = machine.counts(for: Self.key)
            #expect(counts.idle + counts.leased + counts.connecting == machine.openConnections(for: Self.key), "\(name), step \(step)")
        }
        #expect(machine.counts(for: Self.other) == Counts(), "another key counts nothing")
    }

    @Test func keysListsOnlyKeysWithSomethingOpen() {
        var machine = Machine(maxConnectionsPerHost: 1)
        #expect(machine.keys.isEmpty)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        _ = machine.requestSubmitted(2, key: Self.other, needsFreshConnection: false)
        #expect(Set(machine.keys) == [Self.key, Self.other])
        #expect(machine.key(of: 0) == Self.key)
        _ = machine.requestCancelled(1)
        #expect(machine.keys == [Self.other])
        #expect(machine.key(of: 0) == nil)
    }
}
