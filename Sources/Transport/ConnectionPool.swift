// ConnectionPool: the driver of `ConnectionPoolStateMachine`. Keep-alive connections per
// (scheme, host, port), a per-host limit, a FIFO of waiting exchanges, a deadline for those
// waiting.
//
// Decide inside the lock, act outside it (async-http-client's modifyStateAndRunActions): every
// entry point feeds one event to the machine under `state`'s lock and, still under it, turns the
// machine's IDs into objects (`Effects`): exchanges not yet on a connection live in `pending`,
// established connections in `connections`, connect attempts in `attempts`. The effects are then
// performed after the lock is released: nothing here calls into an `Exchange` (beyond reading
// its cancelled flag, a leaf lock) or a connection while holding it.
//
// Opening connections is in ConnectionPool+Connecting.swift, the deadline timer in
// ConnectionPool+Timer.swift.

import FoundationEssentials
import Synchronization
package import EventLoop
package import TLS

package final class ConnectionPool: Sendable {
    /// How the pool connects and how long it keeps connections.
    package struct Configuration: Sendable {
        /// Connections per (scheme, host, port), busy or idle.
        package var maxConnectionsPerHost = 6
        /// How long an idle connection is kept.
        package var idleTimeout: Duration = .seconds(60)
        /// The TLS context for https, built on first use (shared: it holds the session cache
        /// for resumption).
        package var tlsContext: LazyTLSContext?
        /// Fixed addresses that bypass name resolution (curl's --resolve); only the TCP connect
        /// sees them, the key's host stays the name used for SNI and certificate checks.
        package var resolver = HostResolver.system
        /// What is done to each socket before it connects (local address and ports, interface,
        /// TCP Fast Open); nothing by default.
        package var socketSetup = SocketSetup()
        /// Whether each new connection starts with the HAProxy PROXY protocol v1 line (to the
        /// proxy when there is one, before TLS); `false` by default.
        package var sendsPROXYProtocolHeader = false
        /// The trust evaluator for a host, or nil for the default evaluation.
        package var trustEvaluator: (@Sendable (_ host: String) -> TrustEvaluator?)?
        /// Told each key's counts after every transition (ConnectionPool+Observer.swift); nil,
        /// the default, costs one test per transition.
        package var observer: (any ConnectionPoolObserver)?

        /// The defaults above.
        package init() {}
    }

    /// The decisions; see its file comment for states and transitions.
    typealias Machine = ConnectionPoolStateMachine

    /// The machine and the objects its IDs stand for.
    struct State {
        var machine: Machine
        /// Exchanges submitted and not yet handed to a connection (queued or connecting).
        var pending: [Machine.RequestID: Exchange] = [:]
        /// Established connections (leased or idle).
        var connections: [Machine.ConnectionID: LoopBound<HTTP1Connection>] = [:]
        /// Connect attempts in flight, recorded once `Connector.connect` has returned.
        var attempts: [Machine.ConnectionID: ConnectAttempt] = [:]
        /// Proxy handshakes in flight, after the TCP connect to the proxy (ConnectionPool+Proxy.swift):
        /// the TLS session to an HTTPS proxy, then the tunnel.
        var tunnels: [Machine.ConnectionID: LoopBound<any ProxyHandshake>] = [:]
        /// Bumped on every arm or cancel, so a stale firing or a late registration is ignored.
        var timerGeneration = 0
        /// The armed deadline timer, once its loop has scheduled it.
        var timerID: TimerID?
        /// The configuration's observer, read under the lock (ConnectionPool+Observer.swift).
        let observer: (any ConnectionPoolObserver)?
    }

    /// What to do once the lock is released: the machine's action with objects for IDs.
    struct Effects {
        /// Run an exchange on a connection (reused: on its loop's next turn; fresh: at once,
        /// the caller being on the new connection's loop).
        var start: (exchange: Exchange, connection: LoopBound<HTTP1Connection>, reused: Bool)?
        /// Open connection `id`, for `exchange`.
        var connect: (id: Machine.ConnectionID, exchange: Exchange)?
        /// Close idle connections whose slots were given to new ones (retired) or given up.
        var retire: [LoopBound<HTTP1Connection>] = []
        /// Close connections.
        var close: [LoopBound<HTTP1Connection>] = []
        /// End exchanges with these errors.
        var fail: [(Exchange, TransportError)] = []
        /// Abort a connect attempt.
        var cancelAttempt: ConnectAttempt?
        /// Abort a proxy handshake.
        var cancelTunnel: LoopBound<any ProxyHandshake>?
        /// Cancel an exchange running (or handshaking) on a connection.
        var cancelRunning: (exchange: Exchange, connection: LoopBound<HTTP1Connection>)?
        /// Arm or cancel the deadline timer.
        var timer: TimerEffect = .none
        /// Counts were stored with the observer: have it publish them.
        var publish = false
    }

    /// The loops new connections are spread over.
    let group: EventLoopGroup
    /// Limits, TLS and resolution.
    let configuration: Configuration
    /// The loop that runs the queue's deadline timer.
    let timerLoop: EventLoop
    /// The machine and its objects; see the file comment.
    let state: Mutex<State>

    /// - Parameters:
    ///   - group: The loops connections live on.
    ///   - configuration: Limits, TLS and resolution.
    package init(group: EventLoopGroup, configuration: Configuration) {
        self.group = group
        self.configuration = configuration
        self.timerLoop = group.next()
        self.state = Mutex(State(
            machine: Machine(maxConnectionsPerHost: configuration.maxConnectionsPerHost), observer: configuration.observer))
    }

    // MARK: Entry points

    /// Runs `exchange` on an idle connection, a new one, or when a slot frees up.
    ///
    /// A connection handing back the exchange it was running (a silent retry, or a start on a
    /// connection that closed meanwhile) must have closed first (`connectionClosed`): the machine
    /// traps on a request submitted while it still runs on a connection.
    package func execute(_ exchange: Exchange) {
        if let refusal = exchange.request.refusal {
            // Never reaches the machine: there is nothing to connect to. The exchange ends here,
            // with its timings, so the request reports metrics as URLSession does for a failed task.
            let error = exchange.isCancelled ? TransportError(.cancelled, "cancelled") : refusal
            return exchange.complete(.failure(error, TransportSummary(timings: exchange.timings, isReusedConnection: false)))
        }
        // Read before the lock, on the submitting thread: a caller on one of our loops (a task
        // preferring it) gets its new connection there (`connect`), and a reused connection of
        // that loop is started inline (`perform`). A retry keeps the first submission's loop.
        let current = group.currentLoop()
        if exchange.preferredLoop == nil { exchange.preferredLoop = current }
        let effects = state.withLock { state in
            state.pending[exchange.id] = exchange
            // The flag is read under our lock: `Exchange.cancel` sets it before it calls
            // `cancel(_:)`, so either the machine sees the flag here or the cancel sees the
            // request in the machine.
            let action = state.machine.requestSubmitted(
                exchange.id, key: exchange.request.key, needsFreshConnection: exchange.requiresFreshConnection,
                deadline: exchange.request.deadline, isCancelled: exchange.isCancelled
            )
            let effects = state.resolve(action)
            return state.observe(exchange.request.key, effects)
        }
        perform(effects, submittedOn: current)
    }

    /// A connection finished an exchange and can be reused. Only for a connection the pool
    /// started an exchange on (the machine traps on an idle or unknown one).
    func release(_ connection: HTTP1Connection) {
        let bound = LoopBound(connection, loop: connection.loop)
        let effects = state.withLock { state in
            let action = state.machine.connectionReleased(connection.id)
            let effects = state.resolve(action, releasing: bound)
            return state.observe(connection.key, effects)
        }
        perform(effects)
    }

    /// A connection closed: frees its slot (unless it was retired) and serves a waiter. Any
    /// state, more than once is harmless.
    func connectionClosed(_ connection: HTTP1Connection) {
        let effects = state.withLock { state in
            state.connections[connection.id] = nil
            let effects = state.resolve(state.machine.connectionClosed(connection.id))
            return state.observe(connection.key, effects)
        }
        perform(effects)
    }

    /// Cancels `exchange` wherever it is: queued, connecting or running (`Exchange.cancel`).
    package func cancel(_ exchange: Exchange) {
        let effects = state.withLock { state in
            let effects = state.resolve(state.machine.requestCancelled(exchange.id), exchange: exchange)
            return state.observe(exchange.request.key, effects)
        }
        perform(effects)
    }

    /// Removes `exchange` from the waiters without completing it; false if it was not waiting.
    func removeWaiter(_ exchange: Exchange) -> Bool {
        let (removed, effects) = state.withLock { state -> (Bool, Effects) in
            guard case .queued? = state.machine.phase(of: exchange.id) else { return (false, Effects()) }
            var action = state.machine.requestCancelled(exchange.id)
            action.request = .none  // the caller completes it
            state.pending[exchange.id] = nil
            let effects = state.resolve(action)
            return (true, state.observe(exchange.request.key, effects))
        }
        perform(effects)
        return removed
    }

    /// The number of open connections (busy, idle or connecting) per key, for tests and metrics.
    func openConnections(for key: ConnectionKey) -> Int {
        state.withLock { $0.machine.openConnections(for: key) }
    }

    /// Closes every idle connection (Session teardown).
    package func closeIdleConnections() {
        let effects = state.withLock { state in
            let keys = state.observedKeys
            let effects = state.resolve(state.machine.shutdown())
            return state.observe(keys, effects)
        }
        perform(effects)
    }

    // MARK: Acting

    /// Carries out `effects`, outside the lock.
    ///
    /// - Parameters:
    ///   - effects: What the machine decided, with objects for IDs.
    ///   - submittedOn: For `execute` only: the loop of the submitting thread, or nil.
    func perform(_ effects: Effects, submittedOn: EventLoop? = nil) {
        if effects.publish { configuration.observer?.publish() }
        for connection in effects.retire {
            connection.loop.execute { connection.value.close() }
        }
        for connection in effects.close {
            connection.loop.execute { connection.value.close() }
        }
        effects.cancelAttempt?.cancel()
        if let tunnel = effects.cancelTunnel { tunnel.loop.execute { tunnel.value.cancel() } }
        if let (exchange, connection) = effects.cancelRunning {
            connection.loop.execute { connection.value.cancel(exchange) }
        }
        for (exchange, error) in effects.fail {
            exchange.complete(.failure(error, nil))
        }
        if let (exchange, connection, reused) = effects.start {
            if reused, let submittedOn, submittedOn === connection.loop, Self.isRunningTask {
                // On the connection's own loop, in a task's job (the caller prefers this loop):
                // start now instead of on the loop's next pass. Only from a task: a job runs at
                // the top of a loop pass, so no connection's code is on this stack to re-enter
                // (a socket callback submitting, e.g. a retry, has no task and takes the queue).
                connection.value.start(exchange, reused: true)
            } else if reused {
                // The job holds the pool until the connection holds it (`busyPool`): the machine
                // leased the connection, so its release or close must find the pool.
                connection.loop.execute { [self] in withExtendedLifetime(self) { connection.value.start(exchange, reused: true) } }
            } else {
                // Fresh: only `established` produces this, on the connection's loop, in the same
                // loop turn that registered the connection, so a cancel decided after it is
                // queued behind the start and finds the exchange on the connection.
                let connection = connection.value
                exchange.timings.connectEnd = Date()
                if connection.key.isTLS {  // `established` made its TLS client for an https key
                    connection.startHandshake(exchange)
                } else {
                    connection.start(exchange, reused: false)
                }
            }
        }
        if let (id, exchange) = effects.connect {
            connect(id: id, exchange: exchange)
        }
        perform(effects.timer)
    }
}

extension ConnectionPool {
    /// Whether the calling code runs in a Swift task (a job), not in a plain callback.
    static var isRunningTask: Bool {
        withUnsafeCurrentTask { $0 != nil }
    }
}

extension ConnectionPool.State {
    /// Turns the machine's action into effects on objects. Under the lock.
    ///
    /// - Parameters:
    ///   - action: What the machine decided.
    ///   - releasing: The connection at hand when it is the one being released.
    ///   - exchange: The exchange at hand (a cancel), for a request no longer in `pending`.
    ///   - connectError: The error of a failed connect, for `.connectFailed`.
    mutating func resolve(
        _ action: ConnectionPool.Machine.Action, releasing: LoopBound<HTTP1Connection>? = nil,
        exchange: Exchange? = nil, connectError: TransportError? = nil,
        established: LoopBound<HTTP1Connection>? = nil
    ) -> ConnectionPool.Effects {
        var effects = ConnectionPool.Effects()
        switch action.request {
        case .none:
            break
        case .start(let request, let id, let reused):
            guard let target = pending.removeValue(forKey: request), let connection = connections[id] else {
                preconditionFailure("start \(request) on \(id): unknown exchange or connection")
            }
            effects.start = (target, connection, reused)
        case .fail(let request, let failure):
            if let target = pending.removeValue(forKey: request) ?? exchange {
                effects.fail.append((target, Self.error(failure, for: target, connectError: connectError)))
            }
        case .failAll(let requests, let failure):
            for request in requests {
                guard let target = pending.removeValue(forKey: request) else { continue }
                effects.fail.append((target, Self.error(failure, for: target, connectError: connectError)))
            }
        case .cancelRunning(_, let id):
            if let exchange, let connection = connections[id] { effects.cancelRunning = (exchange, connection) }
        }
        switch action.connection {
        case .none:
            break
        case .create(let id, let request, let retiring):
            guard let target = pending[request] else { preconditionFailure("create \(id) for unknown request \(request)") }
            effects.connect = (id, target)
            if let retiring, let old = connections.removeValue(forKey: retiring) ?? releasing {
                effects.retire.append(old)
            }
        case .close(let id):
            if let connection = connections.removeValue(forKey: id) ?? established { effects.close.append(connection) }
        case .closeAll(let ids):
            effects.close = ids.compactMap { connections.removeValue(forKey: $0) }
        case .cancelConnect(let id):
            // Not recorded yet: the connect task sees the connection abandoned, before starting
            // or right after recording (ConnectionPool+Connecting.swift).
            effects.cancelAttempt = attempts.removeValue(forKey: id)
            effects.cancelTunnel = tunnels.removeValue(forKey: id)
        }
        effects.timer = timerEffect(for: action.timer)
        return effects
    }

    /// The error an exchange gets when the machine ends it.
    private static func error(_ failure: ConnectionPool.Machine.Failure, for exchange: Exchange, connectError: TransportError?) -> TransportError {
        switch failure {
        case .cancelled:
            return TransportError(.cancelled, "cancelled")
        case .timedOut:
            return TransportError(.timedOut, "no connection to \(exchange.request.key) became free before the request's deadline")
        case .connectFailed:
            guard let connectError else { preconditionFailure("connectFailed without an error") }
            return connectError
        }
    }
}
