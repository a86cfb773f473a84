// ConnectionPoolStateMachine: events in, actions out, no sockets (STYLE.md §3). Requests and
// connections are IDs; each test names the scenario it walks through.
import Testing
import EventLoop
import Wire
@testable import Transport

@Suite struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine
    typealias Action = Machine.Action
    static let key = ConnectionKey(isTLS: false, host: "example.com", port: 80)
    static let other = ConnectionKey(isTLS: true, host: "example.org", port: 443)
    static let t0 = Deadline(uptimeNanoseconds: 1_000_000_000)

    /// A machine with `limit` connections for `key`, each established and serving one request
    /// (request IDs 100, 101, … on connections 0, 1, …).
    static func saturated(limit: Int) -> Machine {
        var machine = Machine(maxConnectionsPerHost: limit)
        for index in 0..<limit {
            #expect(machine.requestSubmitted(100 + index, key: key, needsFreshConnection: false) == Action(connection: .create(index, for: 100 + index, retiring: nil)))
            #expect(machine.connectionEstablished(index) == Action(request: .start(100 + index, on: index, reused: false)))
        }
        return machine
    }

    // MARK: Submitting

    @Test func firstRequestOpensAConnectionAndTheNextReusesIt() {
        var machine = Machine(maxConnectionsPerHost: 2)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false) == Action(connection: .create(0, for: 1, retiring: nil)))
        #expect(machine.phase(of: 1) == .connecting(0))
        #expect(machine.connectionEstablished(0) == Action(request: .start(1, on: 0, reused: false)))
        #expect(machine.phase(of: 1) == .running(0))
        #expect(machine.connectionReleased(0) == Action())
        #expect(machine.phase(of: 1) == nil)
        #expect(machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false) == Action(request: .start(2, on: 0, reused: true)))
        #expect(machine.openConnections(for: Self.key) == 1)
    }

    @Test func idleConnectionsAreReusedMostRecentFirst() {
        var machine = Self.saturated(limit: 2)
        _ = machine.connectionReleased(0)
        _ = machine.connectionReleased(1)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false) == Action(request: .start(1, on: 1, reused: true)))
        #expect(machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false) == Action(request: .start(2, on: 0, reused: true)))
    }

    /// One step of a scenario: an event and the action it must produce.
    enum Event {
        case submit(Machine.RequestID)
        case established(Machine.ConnectionID)
        case released(Machine.ConnectionID)
        case closed(Machine.ConnectionID)
    }

    /// Feeds `steps` in order and checks each action.
    static func walk(_ machine: inout Machine, _ steps: [(Event, Action)], _ scenario: String) {
        for (index, (event, expected)) in steps.enumerated() {
            let action: Action
            switch event {
            case .submit(let request): action = machine.requestSubmitted(request, key: key, needsFreshConnection: false)
            case .established(let id): action = machine.connectionEstablished(id)
            case .released(let id): action = machine.connectionReleased(id)
            case .closed(let id): action = machine.connectionClosed(id)
            }
            #expect(action == expected, "\(scenario), step \(index): \(event)")
        }
    }

    /// The interleaving behind PoolGaugesReleaseTests' "one request never got its response"
    /// (four requests at a limit of two, the last two submitted late on a loaded machine): the
    /// last two each take the most recently released connection, so connection 0 carries three
    /// requests and connection 1 one. Nothing is lost; a test server answering two requests per
    /// connection left the third unanswered until the request's timeout.
    @Test func lateRequestsTakeTheMostRecentlyReleasedConnection() {
        var machine = Machine(maxConnectionsPerHost: 2)
        Self.walk(&machine, [
            (.submit(0), Action(connection: .create(0, for: 0, retiring: nil))),
            (.submit(1), Action(connection: .create(1, for: 1, retiring: nil))),
            (.established(0), Action(request: .start(0, on: 0, reused: false))),
            (.established(1), Action(request: .start(1, on: 1, reused: false))),
            (.released(1), Action()),
            (.released(0), Action()),
            (.submit(2), Action(request: .start(2, on: 0, reused: true))),
            (.released(0), Action()),
            (.submit(3), Action(request: .start(3, on: 0, reused: true))),
            (.released(0), Action()),
        ], "late pair")
        #expect(machine.counts(for: Self.key) == ConnectionPoolCounts(idle: 2))
    }

    /// A lease handed to a connection the peer closed meanwhile (the probe before reuse fails,
    /// or the close is read first): the connection's close frees the slot while the machine
    /// still has the request on it, the connection resubmits the request, and it is served by
    /// the head waiter's successor or a new connection, never left queued with nothing to wake it.
    @Test func requestOnAConnectionFoundClosedIsServedAgain() {
        var machine = Self.saturated(limit: 2)  // 100 on 0, 101 on 1
        Self.walk(&machine, [
            (.submit(1), Action()),
            (.submit(2), Action()),
            // 0 is released to waiter 1; its probe finds it closed: close, then resubmit 1.
            (.released(0), Action(request: .start(1, on: 0, reused: true))),
            (.closed(0), Action(connection: .create(2, for: 2, retiring: nil))),
            (.submit(1), Action()),
            (.established(2), Action(request: .start(2, on: 2, reused: false))),
            // The next release serves the resubmitted request.
            (.released(1), Action(request: .start(1, on: 1, reused: true))),
            (.released(1), Action()),
            (.released(2), Action()),
        ], "probe failed with waiters")
        #expect(machine.counts(for: Self.key) == ConnectionPoolCounts(idle: 2))
        // With no waiter, the resubmitted request opens a connection in the freed slot.
        var alone = Self.saturated(limit: 1)
        Self.walk(&alone, [
            (.submit(1), Action()),
            (.released(0), Action(request: .start(1, on: 0, reused: true))),
            (.closed(0), Action()),
            (.submit(1), Action(connection: .create(1, for: 1, retiring: nil))),
            (.established(1), Action(request: .start(1, on: 1, reused: false))),
        ], "probe failed, no waiter")
    }

    @Test func keysHaveTheirOwnLimit() {
        var machine = Self.saturated(limit: 1)
        #expect(machine.requestSubmitted(1, key: Self.other, needsFreshConnection: false) == Action(connection: .create(1, for: 1, retiring: nil)))
        #expect(machine.openConnections(for: Self.key) == 1)
        #expect(machine.openConnections(for: Self.other) == 1)
    }

    @Test func limitReachedQueuesAndReleaseServesWaitersInOrder() {
        var machine = Self.saturated(limit: 2)
        for request in 1...3 {
            #expect(machine.requestSubmitted(request, key: Self.key, needsFreshConnection: false) == Action())
            #expect(machine.phase(of: request) == .queued(Self.key))
        }
        #expect(machine.connectionReleased(1) == Action(request: .start(1, on: 1, reused: true)))
        #expect(machine.connectionReleased(0) == Action(request: .start(2, on: 0, reused: true)))
        #expect(machine.connectionReleased(0) == Action(request: .start(3, on: 0, reused: true)))
        #expect(machine.connectionReleased(0) == Action())
        #expect(machine.openConnections(for: Self.key) == 2)
    }

    @Test func cancelledBeforeSubmissionFailsOnSubmission() {
        var machine = Machine(maxConnectionsPerHost: 1)
        #expect(machine.requestCancelled(1) == Action())  // not known yet: the flag carries it
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false, isCancelled: true) == Action(request: .fail(1, .cancelled)))
        #expect(machine.openConnections(for: Self.key) == 0)
    }

    // MARK: Fresh connections (silent retries)

    @Test func freshNeededUnderTheLimitOpensANewConnectionAndKeepsTheIdleOne() {
        var machine = Self.saturated(limit: 2)
        _ = machine.connectionReleased(0)
        _ = machine.connectionReleased(1)
        _ = machine.connectionClosed(1)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: true) == Action(connection: .create(2, for: 1, retiring: nil)))
        #expect(machine.openConnections(for: Self.key) == 2)
    }

    @Test func freshNeededAtTheLimitRetiresAnIdleConnection() {
        var machine = Self.saturated(limit: 1)
        _ = machine.connectionReleased(0)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: true) == Action(connection: .create(1, for: 1, retiring: 0)))
        #expect(machine.openConnections(for: Self.key) == 1)
        // The retired connection's close comes back later: its slot is already taken.
        #expect(machine.connectionClosed(0) == Action())
        #expect(machine.openConnections(for: Self.key) == 1)
    }

    @Test func freshNeededWaiterNeverGetsAReusedConnection() {
        var machine = Self.saturated(limit: 1)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: true) == Action())
        #expect(machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false) == Action())
        // Issue 9, finding 4: the release must not hand connection 0 to request 1.
        #expect(machine.connectionReleased(0) == Action(connection: .create(1, for: 1, retiring: 0)))
        #expect(machine.connectionClosed(0) == Action())
        #expect(machine.connectionEstablished(1) == Action(request: .start(1, on: 1, reused: false)))
        #expect(machine.connectionReleased(1) == Action(request: .start(2, on: 1, reused: true)))
        #expect(machine.openConnections(for: Self.key) == 1)
    }

    // MARK: Closing and failing

    @Test func closedIdleConnectionFreesItsSlot() {
        var machine = Self.saturated(limit: 1)
        _ = machine.connectionReleased(0)
        #expect(machine.connectionClosed(0) == Action())
        #expect(machine.openConnections(for: Self.key) == 0)
    }

    @Test func closedBusyConnectionServesTheHeadWaiterWithANewConnection() {
        var machine = Self.saturated(limit: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        #expect(machine.connectionClosed(0) == Action(connection: .create(1, for: 1, retiring: nil)))
        #expect(machine.phase(of: 100) == nil)  // the connection ends (or resubmits) it
        #expect(machine.phase(of: 1) == .connecting(1))
    }

    @Test func resubmissionAfterCloseQueuesBehindEarlierWaiters() {
        var machine = Self.saturated(limit: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        _ = machine.connectionClosed(0)  // request 100's connection failed; 1 gets connection 1
        #expect(machine.requestSubmitted(100, key: Self.key, needsFreshConnection: true) == Action())
        #expect(machine.phase(of: 100) == .queued(Self.key))
    }

    @Test func connectFailureFailsItsRequestAndServesTheNextWaiter() {
        var machine = Machine(maxConnectionsPerHost: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        _ = machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false)
        #expect(machine.connectFailed(0) == Action(request: .fail(1, .connectFailed), connection: .create(1, for: 2, retiring: nil)))
        #expect(machine.connectFailed(1) == Action(request: .fail(2, .connectFailed)))
        #expect(machine.openConnections(for: Self.key) == 0)
    }

    // MARK: Cancelling, in each phase

    @Test func cancelWhileQueuedFailsAtOnceAndIsSkippedLater() {
        var machine = Self.saturated(limit: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        _ = machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false)
        #expect(machine.requestCancelled(1) == Action(request: .fail(1, .cancelled)))
        #expect(machine.requestCancelled(1) == Action())
        #expect(machine.connectionReleased(0) == Action(request: .start(2, on: 0, reused: true)))
    }

    @Test func cancelWhileConnectingWithNoWaiterAbortsTheAttempt() {
        var machine = Machine(maxConnectionsPerHost: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        #expect(machine.requestCancelled(1) == Action(request: .fail(1, .cancelled), connection: .cancelConnect(0)))
        #expect(!machine.isConnecting(0))
        #expect(machine.openConnections(for: Self.key) == 0)
        // Either outcome of the aborted attempt may still arrive.
        #expect(machine.connectionEstablished(0) == Action(connection: .close(0)))
        #expect(machine.connectFailed(0) == Action())
    }

    @Test func cancelWhileConnectingHandsTheConnectionToTheHeadWaiter() {
        var machine = Machine(maxConnectionsPerHost: 1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false)
        _ = machine.requestSubmitted(2, key: Self.key, needsFreshConnection: true)
        #expect(machine.requestCancelled(1) == Action(request: .fail(1, .cancelled)))
        #expect(machine.phase(of: 2) == .connecting(0))
        #expect(machine.connectionEstablished(0) == Action(request: .start(2, on: 0, reused: false)))
    }

    @Test func cancelWhileRunningAsksTheConnection() {
        var machine = Self.saturated(limit: 1)
        #expect(machine.requestCancelled(100) == Action(request: .cancelRunning(100, on: 0)))
        // The connection closes and completes it.
        #expect(machine.connectionClosed(0) == Action())
        #expect(machine.requestCancelled(100) == Action())
    }

    // MARK: Deadlines

    @Test func deadlineWhileQueuedFailsTimedOutAndRearmsForTheNext() {
        var machine = Self.saturated(limit: 1)
        let d1 = Self.t0 + .seconds(1), d2 = Self.t0 + .seconds(2)
        #expect(machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false, deadline: d2) == Action(timer: .arm(d2)))
        #expect(machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false, deadline: d1) == Action(timer: .arm(d1)))
        #expect(machine.requestSubmitted(3, key: Self.key, needsFreshConnection: false, deadline: .distantFuture) == Action())
        #expect(machine.requestSubmitted(4, key: Self.key, needsFreshConnection: false, deadline: d2) == Action())
        #expect(machine.deadlinePassed(now: d1) == Action(request: .failAll([2], .timedOut), timer: .arm(d2)))
        #expect(machine.deadlinePassed(now: d2) == Action(request: .failAll([1, 4], .timedOut)))
        #expect(machine.phase(of: 3) == .queued(Self.key))
        #expect(machine.connectionReleased(0) == Action(request: .start(3, on: 0, reused: true)))
    }

    @Test func timerIsCancelledWhenTheQueueEmpties() {
        var machine = Self.saturated(limit: 1)
        let d1 = Self.t0 + .seconds(1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false, deadline: d1)
        #expect(machine.connectionReleased(0) == Action(request: .start(1, on: 0, reused: true), timer: .cancel))
        _ = machine.requestSubmitted(2, key: Self.key, needsFreshConnection: false, deadline: d1)
        #expect(machine.requestCancelled(2) == Action(request: .fail(2, .cancelled), timer: .cancel))
        // A late firing finds nothing.
        #expect(machine.deadlinePassed(now: d1) == Action())
    }

    @Test func earlyFiringOnlyRearms() {
        var machine = Self.saturated(limit: 1)
        let d1 = Self.t0 + .seconds(1)
        _ = machine.requestSubmitted(1, key: Self.key, needsFreshConnection: false, deadline: d1)
        #expect(machine.deadlinePassed(now: Self.t0) == Action(timer: .arm(d1)))
    }

    // MARK: Shutdown

    @Test func shutdownClosesIdleConnectionsOnly() {
        var machine = Self.saturated(limit: 3)
        _ = machine.connectionReleased(0)
        _ = machine.connectionReleased(2)
        #expect(machine.shutdown() == Action(connection: .closeAll([0, 2])))
        #expect(machine.openConnections(for: Self.key) == 1)
        #expect(machine.connectionClosed(0) == Action())
        #expect(machine.connectionClosed(2) == Action())
        #expect(machine.shutdown() == Action())
        // The busy one finishes its request, then is closed rather than kept idle (issue 20:
        // kept, it stayed open and counted as idle after its Session was released).
        #expect(machine.connectionReleased(1) == Action(connection: .close(1)))
        #expect(machine.openConnections(for: Self.key) == 0)
        #expect(machine.counts(for: Self.key) == ConnectionPoolCounts())
        #expect(machine.connectionClosed(1) == Action())
    }

    @Test func aLongQueueDrainsInArrivalOrder() {
        var machine = Self.saturated(limit: 1)
        // IDs from 1000: request 100 is running on connection 0.
        for request in 1000..<11_000 { _ = machine.requestSubmitted(request, key: Self.key, needsFreshConnection: false) }
        for request in stride(from: 1001, to: 11_000, by: 2) { _ = machine.requestCancelled(request) }
        for request in stride(from: 1000, to: 11_000, by: 2) {
            #expect(machine.connectionReleased(0) == Action(request: .start(request, on: 0, reused: true)))
        }
        #expect(machine.connectionReleased(0) == Action())
    }

    // MARK: The connector's limit

    /// (connect timeout, idle timeout, seconds left to the deadline or nil, expected limit).
    static let limits: [(Duration?, Duration?, Int?, Duration)] = [
        // nothing set: no limit (a long one, Connector wants a positive timeout)
        (nil, nil, nil, ConnectionPool.unlimitedConnectTime),
        // each alone
        (.seconds(3), nil, nil, .seconds(3)),
        (nil, .seconds(7), nil, .seconds(7)),
        (nil, nil, 5, .seconds(5)),
        // the earliest wins
        (.seconds(3), .seconds(7), 5, .seconds(3)),
        (.seconds(9), .seconds(7), nil, .seconds(7)),
        (.seconds(9), .seconds(7), 2, .seconds(2)),
        // a deadline already passed: the smallest positive limit, so the connect times out at once
        (.seconds(3), nil, -1, .nanoseconds(1)),
    ]

    @Test(arguments: 0..<limits.count)
    func connectLimitIsTheEarliestOfTheLimits(row: Int) {
        let (connect, idle, left, expected) = Self.limits[row]
        let request = TransportRequest(
            key: Self.key, head: RequestHead(method: RequestMethod("GET"), target: "/", authority: "example.com"),
            body: nil, isIdempotent: true, idleTimeout: idle, connectTimeout: connect,
            deadline: left.map { Self.t0 + .seconds($0) } ?? .distantFuture
        )
        #expect(ConnectionPool.connectLimit(for: request, now: Self.t0) == expected)
    }

    // MARK: The deque

    @Test func ringDequeKeepsOrderAcrossWrapsAndGrowth() {
        var deque = RingDeque<Int>()
        var model: [Int] = []
        var next = 0
        for round in 0..<50 {
            for _ in 0..<(round % 7 + 1) { deque.append(next); model.append(next); next += 1 }
            for _ in 0..<(round % 5) where !model.isEmpty { #expect(deque.popFirst() == model.removeFirst()) }
            #expect(deque.elements == model)
        }
        deque.filter { $0 % 2 == 0 }
        #expect(deque.elements == model.filter { $0 % 2 == 0 })
        while let value = deque.popFirst() { #expect(value % 2 == 0) }
        #expect(deque.isEmpty && deque.popFirst() == nil)
    }
}
