// Keep-alive connections per (scheme, host, port), with a per-host limit and a FIFO of waiting
// exchanges. Decide inside the lock, act outside it (async-http-client's
// modifyStateAndRunActions): the lock guards counts and lists only; connecting, starting and
// closing happen afterwards, on the connection's loop.
//
// Per host: `open` counts connections that exist or are being made (idle + busy + connecting);
// `idle` holds the reusable ones, most recently used last (LIFO keeps few connections warm);
// `waiters` holds exchanges that found the host at its limit.

import FoundationEssentials
import Synchronization
import EventLoop
import TLS

final class ConnectionPool: Sendable {
    /// How the pool connects and how long it keeps connections.
    struct Configuration: Sendable {
        /// Connections per (scheme, host, port), busy or idle.
        var maxConnectionsPerHost = 6
        /// How long an idle connection is kept.
        var idleTimeout: Duration = .seconds(60)
        /// The TLS context for https, built on first use (shared: it holds the session cache
        /// for resumption).
        var tlsContext: LazyTLSContext?
        /// Fixed addresses that bypass name resolution (curl's --resolve); only the TCP connect
        /// sees them, the key's host stays the name used for SNI and certificate checks.
        var resolver = HostResolver.system
        /// The trust evaluator for a host, or nil for the default evaluation.
        var trustEvaluator: (@Sendable (_ host: String) -> TrustEvaluator?)?
    }

    /// An idle connection and its ID (readable off the loop, unlike the connection itself).
    private struct Idle {
        var id: Int
        var connection: LoopBound<HTTP1Connection>
    }

    private struct HostState {
        var idle: [Idle] = []
        var open = 0
        var waiters: [Exchange] = []
    }

    private struct State {
        var hosts: [ConnectionKey: HostState] = [:]
        var nextConnectionID = 0
    }

    private enum Decision {
        case reuse(LoopBound<HTTP1Connection>)
        case connect(id: Int)
        case replace(LoopBound<HTTP1Connection>, id: Int)
        case wait
        case cancelled
    }

    let group: EventLoopGroup
    let configuration: Configuration
    private let state = Mutex(State())

    init(group: EventLoopGroup, configuration: Configuration) {
        self.group = group
        self.configuration = configuration
    }

    /// Runs `exchange` on an idle connection, a new one, or when a slot frees up.
    func execute(_ exchange: Exchange) {
        let key = exchange.request.key
        let maximum = max(1, configuration.maxConnectionsPerHost)
        let decision = state.withLock { state -> Decision in
            if exchange.isCancelled { return .cancelled }
            var host = state.hosts[key, default: HostState()]
            defer { state.hosts[key] = host }
            if let idle = host.idle.popLast() {
                if !exchange.requiresFreshConnection { return .reuse(idle.connection) }
                state.nextConnectionID += 1
                return .replace(idle.connection, id: state.nextConnectionID)
            }
            if host.open < maximum {
                host.open += 1
                state.nextConnectionID += 1
                return .connect(id: state.nextConnectionID)
            }
            _ = exchange.enter(.queued)
            host.waiters.append(exchange)
            return .wait
        }
        switch decision {
        case .reuse(let connection):
            connection.loop.execute { connection.value.start(exchange, reused: true) }
        case .connect(let id):
            connect(id: id, exchange: exchange)
        case .replace(let old, let id):
            // A retry must not land on a connection that was used before: retire one idle
            // connection and use its slot.
            old.loop.execute { old.value.closeKeepingSlot() }
            connect(id: id, exchange: exchange)
        case .wait:
            break
        case .cancelled:
            exchange.complete(.failure(TransportError(.cancelled, "cancelled"), nil))
        }
    }

    /// A connection finished an exchange and can be reused.
    func release(_ connection: HTTP1Connection) {
        let bound = LoopBound(connection, loop: connection.loop)
        let id = connection.id
        let next = state.withLock { state -> Exchange? in
            var host = state.hosts[connection.key, default: HostState()]
            defer { state.hosts[connection.key] = host }
            while !host.waiters.isEmpty {
                let waiter = host.waiters.removeFirst()
                if !waiter.isCancelled { return waiter }
            }
            host.idle.append(Idle(id: id, connection: bound))
            return nil
        }
        if let next {
            connection.loop.execute { bound.value.start(next, reused: true) }
        }
    }

    /// A connection closed (or a connect failed): frees its slot and serves a waiter.
    func connectionClosed(_ connection: HTTP1Connection) {
        slotFreed(key: connection.key, connectionID: connection.id, keepSlot: connection.keepsSlotOnClose)
    }

    /// Removes `exchange` from the waiters; false if it was not waiting.
    func removeWaiter(_ exchange: Exchange) -> Bool {
        state.withLock { state in
            guard var host = state.hosts[exchange.request.key],
                  let index = host.waiters.firstIndex(where: { $0 === exchange }) else { return false }
            host.waiters.remove(at: index)
            state.hosts[exchange.request.key] = host
            return true
        }
    }

    /// The number of open connections (busy, idle or connecting) per key, for tests and metrics.
    func openConnections(for key: ConnectionKey) -> Int {
        state.withLock { $0.hosts[key]?.open ?? 0 }
    }

    /// Closes every idle connection (Session teardown).
    func closeIdleConnections() {
        let idle = state.withLock { state -> [LoopBound<HTTP1Connection>] in
            var all: [LoopBound<HTTP1Connection>] = []
            for key in state.hosts.keys {
                all += (state.hosts[key]?.idle ?? []).map(\.connection)
                state.hosts[key]?.idle = []
            }
            return all
        }
        for connection in idle { connection.loop.execute { connection.value.close() } }
    }

    // MARK: Private

    private func slotFreed(key: ConnectionKey, connectionID: Int?, keepSlot: Bool = false) {
        let decision = state.withLock { state -> (Exchange, Int)? in
            guard var host = state.hosts[key] else { return nil }
            defer { state.hosts[key] = host }
            if let connectionID { host.idle.removeAll { $0.id == connectionID } }
            if keepSlot { return nil }
            host.open -= 1
            while !host.waiters.isEmpty {
                let waiter = host.waiters.removeFirst()
                if waiter.isCancelled { continue }
                host.open += 1
                state.nextConnectionID += 1
                return (waiter, state.nextConnectionID)
            }
            return nil
        }
        if let (waiter, id) = decision { connect(id: id, exchange: waiter) }
    }

    private func connect(id: Int, exchange: Exchange) {
        let loop = group.next()
        let key = exchange.request.key
        loop.execute { [self] in
            exchange.timings.connectStart = Date()
            let overrides = configuration.resolver.socketAddresses(host: key.host, port: key.port).map { [key.host: $0] } ?? [:]
            let connector = Connector(timeout: exchange.request.connectTimeout ?? exchange.request.idleTimeout ?? .seconds(60), addressOverrides: overrides)
            guard exchange.enter(.connecting(nil)) else {
                slotFreed(key: key, connectionID: nil)
                exchange.complete(.failure(TransportError(.cancelled, "cancelled"), nil))
                return
            }
            let attempt = connector.connect(host: key.host, port: key.port, on: loop) { [self] result in
                switch result {
                case .success(let socket):
                    exchange.timings.connectEnd = Date()
                    established(socket, id: id, exchange: exchange)
                case .failure(let error):
                    slotFreed(key: key, connectionID: nil)
                    let failure = exchange.isCancelled
                        ? TransportError(.cancelled, "cancelled while connecting", underlying: error)
                        : TransportError.connecting(error, host: key.host)
                    exchange.complete(.failure(failure, nil))
                }
            }
            _ = exchange.enter(.connecting(attempt))
        }
    }

    private func established(_ socket: Socket, id: Int, exchange: Exchange) {
        let key = exchange.request.key
        var tls: TLSClientConnection?
        if key.isTLS {
            let context: TLSClientContext
            switch configuration.tlsContext?.get() {
            case .success(let built):
                context = built
            case .failure(let error):
                socket.close()
                slotFreed(key: key, connectionID: nil)
                exchange.complete(.failure(TransportError(.tls, "TLS configuration failed: \(error)", underlying: error), nil))
                return
            case nil:
                socket.close()
                slotFreed(key: key, connectionID: nil)
                exchange.complete(.failure(TransportError(.tls, "no TLS configuration for https"), nil))
                return
            }
            do throws(TLSError) {
                tls = try TLSClientConnection(
                    context: context, serverName: key.host, port: key.port,
                    evaluator: configuration.trustEvaluator?(key.host)
                )
            } catch {
                socket.close()
                slotFreed(key: key, connectionID: nil)
                exchange.complete(.failure(TransportError(.tls, "TLS setup failed: \(error)", underlying: error), nil))
                return
            }
        }
        let connection = HTTP1Connection(
            id: id, key: key, socket: socket, tls: tls, pool: self, idleTimeout: configuration.idleTimeout
        )
        if tls != nil {
            connection.startHandshake(exchange)
        } else {
            connection.start(exchange, reused: false)
        }
    }
}
