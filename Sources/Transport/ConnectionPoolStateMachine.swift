// ConnectionPoolStateMachine: which request goes to which connection, and when, with no I/O
// (STYLE.md §3). `ConnectionPool` is its driver: it feeds events under its lock and performs the
// actions after releasing it. Connections and requests are plain integer IDs here; the driver
// keeps the objects. (One file of ~450 lines: the queue helpers at the end need the private
// storage, which a `+Waiters.swift` split would have to open to the whole module.)
//
// Per key (scheme, host, port) a connection is in one of three states; `open` counts all three,
// and is at most `maxConnectionsPerHost`:
//
//   connecting(R) ──established──▶ leased(R)                      (R starts on a fresh connection)
//        │  └─────connect failed──▶ gone; R fails; slot → head waiter (new connection)
//        └──R cancelled──▶ connecting(W) (handed to the head waiter W; any new connection is fresh)
//                       └▶ gone, attempt cancelled (no waiter)
//   leased(R) ──released (keep-alive)──▶ leased(W)    head waiter W, unless W needs a fresh one:
//        │                            └▶ gone (retired; its slot opens connecting(W))
//        │                            └▶ idle         (no waiter)
//        └──closed──▶ gone; slot → head waiter (the connection itself ends or resubmits R)
//   idle ──request submitted──▶ leased(R)             (most recently used first: LIFO)
//        ──fresh request at the limit──▶ gone (retired; its slot opens connecting(R))
//        ──closed (server, idle timeout) or shutdown──▶ gone
//
// A request's phase, so that a cancel finds it wherever it is (issue 9, finding 3):
//
//   (unknown) ──submitted──▶ queued ──slot or connection free──▶ connecting(N) / running(N)
//   queued ──cancelled──▶ done (fails .cancelled)   ──deadline passed──▶ done (fails .timedOut)
//   connecting(N) ──established──▶ running(N)   ──connect failed──▶ done (fails with the error)
//                 ──cancelled──▶ done (fails .cancelled at once; N is handed on or aborted)
//   running(N) ──cancelled──▶ running(N) (the connection is asked to cancel R: it also cancels a
//                 TLS handshake, which belongs to the connection since it exists before it)
//   running(N) ──N released or closed──▶ done (the connection completed R, or resubmits it as
//                 a new submission when it retries silently)
//
// Legitimate races, answered without trapping: a cancel for a request not yet submitted or
// already done (the driver's submit reads the exchange's cancelled flag, so the first case is
// not lost); `established` or `connect failed` for a connection abandoned when its request was
// cancelled (the socket is closed / nothing); `closed` for a connection already retired or shut
// down (its slot was given up when it was retired).

import EventLoop

/// Decides, per `ConnectionKey`, which connection serves which request; no I/O, no objects.
struct ConnectionPoolStateMachine {
    /// A connection, numbered by this machine (`createConnection` names new ones).
    typealias ConnectionID = Int
    /// A request, numbered by the driver (one ID per exchange, kept across silent retries).
    typealias RequestID = Int

    /// Why the machine ends a request itself.
    enum Failure: Hashable, Sendable {
        /// The request was cancelled before any connection ran it.
        case cancelled
        /// The request's deadline passed while it waited for a connection.
        case timedOut
        /// The connection opened for it failed (the driver holds the error).
        case connectFailed
    }

    /// What happens to requests.
    enum RequestAction: Equatable {
        /// No request changes hands.
        case none
        /// Run the request on the connection; `reused` when the connection served one before
        /// (otherwise it was just established: a TLS connection starts with its handshake).
        case start(RequestID, on: ConnectionID, reused: Bool)
        /// End the request with this failure.
        case fail(RequestID, Failure)
        /// End several requests (deadline sweeps).
        case failAll([RequestID], Failure)
        /// Ask the connection running the request to cancel it (handshake included).
        case cancelRunning(RequestID, on: ConnectionID)
    }

    /// What happens to connections.
    enum ConnectionAction: Equatable {
        /// No connection is opened or closed.
        case none
        /// Open connection `id` for the request; first close `retiring`, an idle (or just
        /// released) connection whose slot the new one takes.
        case create(ConnectionID, for: RequestID, retiring: ConnectionID?)
        /// Close a connection the machine no longer tracks (established after its request left).
        case close(ConnectionID)
        /// Close these idle connections (shutdown).
        case closeAll([ConnectionID])
        /// Abort the connect attempt of a connection whose request was cancelled.
        case cancelConnect(ConnectionID)
    }

    /// The deadline timer: armed only while a request with a deadline is queued.
    enum TimerAction: Equatable {
        /// Leave the timer as it is.
        case none
        /// (Re)arm the single timer for this deadline; call `deadlinePassed` when it fires.
        case arm(Deadline)
        /// Nothing with a deadline is queued any more.
        case cancel
    }

    /// The effects of one event; the driver performs all three.
    struct Action: Equatable {
        /// What happens to requests.
        var request: RequestAction = .none
        /// What happens to connections.
        var connection: ConnectionAction = .none
        /// What happens to the deadline timer.
        var timer: TimerAction = .none
    }

    /// A connection's state; see the file comment for the exits.
    enum ConnectionState: Equatable {
        /// Being opened for the request. Exits: `leased` (established), gone (connect failed, or
        /// its request cancelled with no waiter), `connecting` another request (cancelled, with
        /// a waiter to take it over).
        case connecting(RequestID)
        /// Kept alive, unused. Exits: `leased` (a request submitted), gone (closed, retired for a
        /// fresh connection, shutdown).
        case idle
        /// Running the request (or its TLS handshake). Exits: `leased` by the head waiter or
        /// `idle` (released), gone (closed, or retired on release for a waiter needing a fresh
        /// connection).
        case leased(RequestID)
    }

    /// A request's phase while the machine knows it; absent means not yet submitted, or done.
    enum RequestPhase: Equatable {
        /// Waiting for a slot or a connection. Exits: `running` (a released connection),
        /// `connecting` (a freed slot or a taken-over connection), done (cancelled, deadline).
        case queued(ConnectionKey)
        /// Its connection is being opened. Exits: `running` (established), done (connect
        /// failed, cancelled).
        case connecting(ConnectionID)
        /// On the connection, which now owns its outcome. Exit: done (the connection released or
        /// closed); a cancel only asks the connection.
        case running(ConnectionID)
    }

    private struct Connection {
        /// Where it goes.
        let key: ConnectionKey
        /// See ``ConnectionState``.
        var state: ConnectionState
    }

    /// A queued request and what it needs.
    private struct Waiter {
        /// The waiting request.
        let request: RequestID
        /// A silent retry must not be sent on a connection that served another request.
        let needsFreshConnection: Bool
        /// When it fails `.timedOut` if still here.
        let deadline: Deadline
    }

    /// One key's connections and queue.
    private struct Host {
        /// Connecting, idle and leased connections.
        var open = 0
        /// Idle connections, most recently used last.
        var idle: [ConnectionID] = []
        /// Waiters in arrival order. Cancelled or expired ones are left in place and skipped when
        /// reached (their phase is no longer `queued`), so a cancel is O(1).
        var waiters = RingDeque<Waiter>()
        /// Waiters still queued (the deque may hold more entries than this).
        var queued = 0
    }

    /// Connections per key, busy or idle, at least 1.
    let maxConnectionsPerHost: Int
    /// Keys with open connections or waiters (empty ones are dropped).
    private var hosts: [ConnectionKey: Host] = [:]
    /// Connections that exist or are being opened.
    private var connections: [ConnectionID: Connection] = [:]
    /// Requests the machine knows, by phase; done ones are removed.
    private var requests: [RequestID: RequestPhase] = [:]
    /// The ID the next `create` uses.
    private var nextConnectionID: ConnectionID = 0
    /// Queued requests across keys (for the timer).
    private var queuedTotal = 0
    /// The deadline the timer is armed for, if it is.
    private var armedDeadline: Deadline?
    /// Set by `shutdown()` (Session released): from then on a released connection is closed,
    /// not kept idle, since nothing will lease it again.
    private var isShutDown = false

    /// - Parameter maxConnectionsPerHost: The per-key limit; values below 1 mean 1.
    init(maxConnectionsPerHost: Int) {
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
    }

    // MARK: Queries

    /// Open connections (connecting, idle or leased) for `key`.
    func openConnections(for key: ConnectionKey) -> Int { hosts[key]?.open ?? 0 }

    /// Whether connection `id` is still being opened for a request (the driver checks this
    /// before starting, and after recording, a connect attempt).
    func isConnecting(_ id: ConnectionID) -> Bool { requestConnecting(on: id) != nil }

    /// The request connection `id` is being opened for, if it still is.
    func requestConnecting(on id: ConnectionID) -> RequestID? {
        if case .connecting(let request)? = connections[id]?.state { return request }
        return nil
    }

    /// The request's phase, or nil when unknown or done.
    func phase(of request: RequestID) -> RequestPhase? { requests[request] }

    /// The key connection `id` belongs to, while the machine tracks it.
    func key(of id: ConnectionID) -> ConnectionKey? { connections[id]?.key }

    /// Keys with open connections or waiters.
    var keys: [ConnectionKey] { Array(hosts.keys) }

    /// `key`'s connections by state and its queued requests, for the pool's observer
    /// (ConnectionPool+Observer.swift). O(connections): only called when someone observes.
    func counts(for key: ConnectionKey) -> ConnectionPoolCounts {
        guard let host = hosts[key] else { return ConnectionPoolCounts() }
        var connecting = 0
        for connection in connections.values where connection.key == key {
            if case .connecting = connection.state { connecting += 1 }
        }
        return ConnectionPoolCounts(
            idle: host.idle.count, leased: host.open - host.idle.count - connecting,
            connecting: connecting, waiters: host.queued)
    }

    // MARK: Events

    /// A request arrives (first time, or again after its connection gave it back for a retry).
    ///
    /// - Parameters:
    ///   - request: Its ID; it must not be known (a connection resubmits only after closing).
    ///   - key: Where it goes.
    ///   - needsFreshConnection: Never hand it a connection that served another request.
    ///   - deadline: When it fails `.timedOut` if still queued; `.distantFuture` for never.
    ///   - isCancelled: The exchange's cancelled flag, read under the driver's lock so a cancel
    ///     that ran before the submission is not lost.
    mutating func requestSubmitted(
        _ request: RequestID, key: ConnectionKey, needsFreshConnection: Bool,
        deadline: Deadline = .distantFuture, isCancelled: Bool = false
    ) -> Action {
        if let phase = requests[request] {
            preconditionFailure("request \(request) submitted while \(phase)")
        }
        if isCancelled { return Action(request: .fail(request, .cancelled)) }
        var host = hosts.removeValue(forKey: key) ?? Host()
        defer { store(host, for: key) }
        if !needsFreshConnection, let idle = host.idle.popLast() {
            connections[idle]!.state = .leased(request)
            requests[request] = .running(idle)
            return Action(request: .start(request, on: idle, reused: true))
        }
        if host.open < maxConnectionsPerHost {
            host.open += 1
            return Action(connection: openConnection(for: request, key: key, retiring: nil))
        }
        if needsFreshConnection, let idle = host.idle.popLast() {
            // At the limit with an idle connection the retry must not use: retire it for the slot.
            connections[idle] = nil
            return Action(connection: openConnection(for: request, key: key, retiring: idle))
        }
        let timer = enqueue(Waiter(request: request, needsFreshConnection: needsFreshConnection, deadline: deadline), in: &host, key: key)
        return Action(timer: timer)
    }

    /// The TCP connection (and TLS object) for `id` exists; a TLS handshake has not started.
    mutating func connectionEstablished(_ id: ConnectionID) -> Action {
        guard let connection = connections[id] else {
            // Race: its request was cancelled and the attempt aborted after it had succeeded.
            return Action(connection: .close(id))
        }
        guard case .connecting(let request) = connection.state else {
            preconditionFailure("connection \(id) established while \(connection.state)")
        }
        connections[id]!.state = .leased(request)
        requests[request] = .running(id)
        return Action(request: .start(request, on: id, reused: false))
    }

    /// Opening connection `id` failed; its request fails and the slot goes to the head waiter.
    mutating func connectFailed(_ id: ConnectionID) -> Action {
        guard let connection = connections.removeValue(forKey: id) else {
            return Action()  // Race: abandoned when its request was cancelled; already accounted.
        }
        guard case .connecting(let request) = connection.state else {
            preconditionFailure("connect failed for connection \(id) while \(connection.state)")
        }
        requests[request] = nil
        var action = slotFreed(key: connection.key)
        action.request = .fail(request, .connectFailed)
        return action
    }

    /// Connection `id` finished its request and may be reused (keep-alive).
    mutating func connectionReleased(_ id: ConnectionID) -> Action {
        guard let connection = connections[id], case .leased(let finished) = connection.state else {
            preconditionFailure("connection \(id) released while \(connections[id].map { "\($0.state)" } ?? "unknown")")
        }
        requests[finished] = nil
        let key = connection.key
        var host = hosts.removeValue(forKey: key)!
        defer { store(host, for: key) }
        guard let (waiter, timer) = dequeue(from: &host) else {
            if isShutDown {
                // Finished after the session was released (its caller heard the end first):
                // kept idle, it would stay open until the idle timeout, counted as idle.
                connections[id] = nil
                host.open -= 1
                return Action(connection: .close(id))
            }
            connections[id]!.state = .idle
            host.idle.append(id)
            return Action()
        }
        if waiter.needsFreshConnection {
            // Issue 9, finding 4: the retry gets a new connection; this one gives up its slot.
            connections[id] = nil
            return Action(connection: openConnection(for: waiter.request, key: key, retiring: id), timer: timer)
        }
        connections[id]!.state = .leased(waiter.request)
        requests[waiter.request] = .running(id)
        return Action(request: .start(waiter.request, on: id, reused: true), timer: timer)
    }

    /// Connection `id` closed (server close, idle timeout, failure, cancel).
    mutating func connectionClosed(_ id: ConnectionID) -> Action {
        guard let connection = connections.removeValue(forKey: id) else {
            return Action()  // Retired or shut down: its slot was given up then.
        }
        switch connection.state {
        case .idle:
            hosts[connection.key]?.idle.removeAll { $0 == id }
        case .leased(let request):
            // The connection ends the request itself, or resubmits it for a silent retry.
            requests[request] = nil
        case .connecting:
            preconditionFailure("connection \(id) closed while \(connection.state): only an established connection can close")
        }
        return slotFreed(key: connection.key)
    }

    /// The request was cancelled (from any thread; the driver has set the exchange's flag first).
    mutating func requestCancelled(_ request: RequestID) -> Action {
        switch requests[request] {
        case nil:
            // Not submitted yet (the submission will see the flag) or already done.
            return Action()
        case .queued(let key):
            requests[request] = nil
            hosts[key]!.queued -= 1
            queuedTotal -= 1
            return Action(request: .fail(request, .cancelled), timer: timerAfterRemoval())
        case .connecting(let id):
            // Fail now rather than after the connect (issue 9, finding 3).
            requests[request] = nil
            let key = connections[id]!.key
            var host = hosts.removeValue(forKey: key)!
            defer { store(host, for: key) }
            if let (waiter, timer) = dequeue(from: &host) {
                // A connection being opened is fresh, so any waiter may take it over.
                connections[id]!.state = .connecting(waiter.request)
                requests[waiter.request] = .connecting(id)
                return Action(request: .fail(request, .cancelled), timer: timer)
            }
            // Nothing else wants it: abort. The slot frees now; the aborted socket closes on its
            // loop's next turn, so the host may briefly have one socket more than the limit.
            connections[id] = nil
            host.open -= 1
            return Action(request: .fail(request, .cancelled), connection: .cancelConnect(id))
        case .running(let id):
            return Action(request: .cancelRunning(request, on: id))
        }
    }

    /// Closes every idle connection (Session teardown). Busy ones finish their requests and are
    /// closed when released.
    mutating func shutdown() -> Action {
        isShutDown = true
        var closing: [ConnectionID] = []
        for key in Array(hosts.keys) {
            var host = hosts.removeValue(forKey: key)!
            for id in host.idle { connections[id] = nil }
            closing += host.idle
            host.open -= host.idle.count
            host.idle = []
            store(host, for: key)
        }
        return closing.isEmpty ? Action() : Action(connection: .closeAll(closing.sorted()))
    }

    // MARK: Helpers

    /// Records a new connection opening for `request` (the caller has counted its slot).
    private mutating func openConnection(for request: RequestID, key: ConnectionKey, retiring: ConnectionID?) -> ConnectionAction {
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = Connection(key: key, state: .connecting(request))
        requests[request] = .connecting(id)
        return .create(id, for: request, retiring: retiring)
    }

    /// A slot for `key` is free: open a connection for the head waiter, if any.
    private mutating func slotFreed(key: ConnectionKey) -> Action {
        var host = hosts.removeValue(forKey: key)!
        defer { store(host, for: key) }
        host.open -= 1
        guard let (waiter, timer) = dequeue(from: &host) else { return Action() }
        host.open += 1
        return Action(connection: openConnection(for: waiter.request, key: key, retiring: nil), timer: timer)
    }

    /// Writes `host` back, dropping it when nothing is left in it. Events take a host out of
    /// `hosts` (`removeValue`) rather than copy it: a copy would share the idle array and the
    /// deque's storage with the dictionary, and the first mutation would copy them (an
    /// allocation per request).
    private mutating func store(_ host: Host, for key: ConnectionKey) {
        hosts[key] = host.open == 0 && host.queued == 0 ? nil : host
    }

    // MARK: Waiters and deadlines

    /// The deadline timer fired: fails every queued request whose deadline is at or before `now`,
    /// and re-arms the timer for the earliest deadline left.
    ///
    /// - Parameter now: The loop's current time.
    mutating func deadlinePassed(now: Deadline) -> Action {
        armedDeadline = nil
        var expired: [RequestID] = []
        var earliest: Deadline?
        for key in Array(hosts.keys) {
            var host = hosts.removeValue(forKey: key)!
            var removed = 0
            // O(queue length), once per timer firing; the sweep also drops cancelled entries.
            host.waiters.filter { waiter in
                guard case .queued? = requests[waiter.request] else { return false }
                guard waiter.deadline > now else {
                    expired.append(waiter.request)
                    requests[waiter.request] = nil
                    removed += 1
                    return false
                }
                if waiter.deadline != .distantFuture { earliest = min(earliest ?? waiter.deadline, waiter.deadline) }
                return true
            }
            host.queued -= removed
            queuedTotal -= removed
            store(host, for: key)
        }
        var action = Action()
        if !expired.isEmpty { action.request = .failAll(expired.sorted(), .timedOut) }
        if let earliest {
            armedDeadline = earliest
            action.timer = .arm(earliest)
        }
        return action
    }

    /// Queues `waiter` at the back; returns what its deadline asks of the timer.
    private mutating func enqueue(_ waiter: Waiter, in host: inout Host, key: ConnectionKey) -> TimerAction {
        host.waiters.append(waiter)
        host.queued += 1
        queuedTotal += 1
        requests[waiter.request] = .queued(key)
        guard waiter.deadline != .distantFuture, armedDeadline.map({ waiter.deadline < $0 }) ?? true else { return .none }
        armedDeadline = waiter.deadline
        return .arm(waiter.deadline)
    }

    /// Takes the oldest waiter still queued, skipping cancelled and expired entries (O(1)
    /// amortised: each entry is skipped once). The caller gives it its next phase.
    private mutating func dequeue(from host: inout Host) -> (Waiter, TimerAction)? {
        while let waiter = host.waiters.popFirst() {
            guard case .queued? = requests[waiter.request] else { continue }
            host.queued -= 1
            queuedTotal -= 1
            requests[waiter.request] = nil
            return (waiter, timerAfterRemoval())
        }
        return nil
    }

    /// Disarms the timer once nothing is queued anywhere.
    private mutating func timerAfterRemoval() -> TimerAction {
        guard queuedTotal == 0, armedDeadline != nil else { return .none }
        armedDeadline = nil
        return .cancel
    }
}
