// Opening a connection for the machine's `create`: connect (resolution, Happy Eyeballs), set up
// TLS, build the `HTTP1Connection`, and report `established` or `connectFailed`. Through a proxy
// (`key.proxy`), the TCP connect goes to the proxy and ConnectionPool+Proxy.swift sets up TLS to
// an HTTPS proxy and opens a tunnel before `established`; the origin's name is never resolved here then.
//
// A cancel can land at any point of this, from any thread. The machine frees the request at
// once; what is left is to make sure the attempt does not go on unnoticed:
//   - before the connect starts: the task checks the machine and does not start;
//   - between starting and recording the attempt: the task checks again after recording and
//     cancels the attempt itself (issue 9, finding 3: the cancel used to find nothing recorded);
//   - after the TCP connect, during the TLS handshake: the connection is registered before the
//     handshake starts, so the cancel reaches it (`HTTP1Connection.cancel` closes a handshake).

import FoundationEssentials
import Synchronization
import EventLoop
import TLS

extension ConnectionPool {
    /// No limit, for a connector that requires one: 100 years.
    static let unlimitedConnectTime = Duration.seconds(100 * 365 * 86_400)

    /// The connector's limit for `request`: the earliest of its connect timeout, its idle timeout
    /// (URLSession's `timeoutIntervalForRequest` covers connecting: nothing arrives meanwhile) and
    /// the time left to its deadline; ``unlimitedConnectTime`` when none is set. At least 1 ns,
    /// since `Connector` wants a positive timeout (a deadline already passed times out at once).
    ///
    /// - Parameters:
    ///   - request: The request the connection is opened for.
    ///   - now: The current time.
    /// - Returns: The connector's timeout.
    static func connectLimit(for request: TransportRequest, now: Deadline) -> Duration {
        var limit = request.connectTimeout
        if let idle = request.idleTimeout { limit = min(limit ?? idle, idle) }
        if request.deadline != .distantFuture {
            let left = request.deadline - now
            limit = min(limit ?? left, left)
        }
        return max(limit ?? unlimitedConnectTime, .nanoseconds(1))
    }

    /// Opens connection `id` for `exchange` on the loop it prefers (the loop its caller ran
    /// on, see `Exchange.preferredLoop`), or else the next loop.
    func connect(id: Machine.ConnectionID, exchange: Exchange) {
        let loop = exchange.preferredLoop ?? group.next()
        let key = exchange.request.key
        loop.execute { [self] in
            // Abandoned (its request cancelled, no waiter to take it) since the decision, or
            // handed to a waiter: then the waiter's limits and timings apply.
            let current = state.withLock { state in
                state.machine.requestConnecting(on: id).flatMap { state.pending[$0] }
            }
            guard let exchange = current else { return }
            exchange.timings.connectStart = Date()
            let limit = Self.connectLimit(for: exchange.request, now: .now())
            let connectDeadline = Deadline.now() + limit
            let attempt: ConnectAttempt
            if let route = key.proxy {
                // Through a proxy: connect to it (never resolving the origin here), then open the
                // tunnel if the route needs one, all within the one connect limit.
                attempt = connectToProxy(id: id, key: key, route: route, limit: limit, deadline: connectDeadline, on: loop)
            } else {
                let target = Self.connectionTarget(for: key, resolver: configuration.resolver)
                let overrides = Self.addressOverrides(for: key, target: target, resolver: configuration.resolver)
                var connector = Connector(timeout: limit, addressOverrides: overrides)
                connector.socketSetup = configuration.socketSetup
                // Lookup dates for metrics; called on this loop, where the exchange's timings live.
                connector.resolutionObserver = { started, ended in
                    exchange.timings.domainLookupStart = Date(monotonic: started)
                    exchange.timings.domainLookupEnd = Date(monotonic: ended)
                }
                attempt = connector.connect(host: target.host, port: target.port, on: loop) { [self] connected in
                    switch sendingPROXYHeader(connected) {
                    case .success(let socket):
                        established(socket, id: id, key: key)
                    case .failure(let error):
                        connectFailed(id: id, error: TransportError.connecting(error, host: target.host))
                    }
                }
            }
            // Record, then check: a cancel decided since the check above found nothing to abort.
            // (The completion runs on a later loop turn, so it cannot have run yet.)
            let abandoned = state.withLock { state -> Bool in
                guard state.machine.isConnecting(id) else { return true }
                state.attempts[id] = attempt
                return false
            }
            if abandoned { attempt.cancel() }
        }
    }

    /// Connects to the route's first hop (the preproxy of curl's `--preproxy`, else the proxy)
    /// and goes on from there (ConnectionPool+Proxy.swift). `answer`: the `Proxy-Authorization`
    /// answering a 407 that closed the previous connection, for this connection's CONNECT.
    func connectToProxy(
        id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, limit: Duration, deadline: Deadline, on loop: EventLoop,
        answer: String? = nil
    ) -> ConnectAttempt {
        let first = route.preproxy ?? route.server
        let overrides = configuration.resolver.socketAddresses(host: first.host, port: first.port).map { [first.host: $0] } ?? [:]
        var connector = Connector(timeout: limit, addressOverrides: overrides)
        connector.socketSetup = configuration.socketSetup
        return connector.connect(host: first.host, port: first.port, on: loop) { [self] connected in
            switch sendingPROXYHeader(connected) {
            case .success(let socket) where route.preproxy != nil:
                openPreproxyTunnel(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
            case .success(let socket):
                proxyReached(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
            case .failure(let error):
                connectFailed(id: id, error: TransportError.connectingToProxy(error, proxy: first))
            }
        }
    }

    /// `connected` after the PROXY protocol line went out on it, when the session sends one; a
    /// failed write closes the socket and becomes the connect's error.
    private func sendingPROXYHeader(_ connected: Result<Socket, SocketError>) -> Result<Socket, SocketError> {
        guard configuration.sendsPROXYProtocolHeader, case .success(let socket) = connected else { return connected }
        do throws(SocketError) {
            try PROXYProtocolHeader.send(on: socket)
            return .success(socket)
        } catch {
            socket.close()
            return .failure(error)
        }
    }

    /// Connection `id` failed to open: its request fails with `error`.
    func connectFailed(id: Machine.ConnectionID, error: TransportError) {
        let effects = state.withLock { state in
            state.attempts[id] = nil
            state.tunnels[id] = nil
            let key = state.machine.key(of: id)
            let effects = state.resolve(state.machine.connectFailed(id), connectError: error)
            return key.map { state.observe($0, effects) } ?? effects
        }
        perform(effects)
    }

    /// The TCP connection is up (to the origin, or through a proxy's tunnel): set up TLS, then
    /// register the connection and start its request.
    /// - Parameters:
    ///   - leftover: Bytes a proxy's tunnel already carried from the origin (they come before
    ///     anything the socket delivers next).
    ///   - connectDeadline: Through a proxy, when the connect limit that began at the proxy's
    ///     TCP connect ends: the TLS handshake must be done by then too.
    func established(_ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, leftover: [UInt8] = [], connectDeadline: Deadline? = nil) {
        var tls: TLSClientConnection?
        if key.isTLS {
            do throws(TransportError) {
                tls = try makeTLS(for: key)
            } catch {
                socket.close()
                return connectFailed(id: id, error: error)
            }
        }
        let connection = HTTP1Connection(
            id: id, key: key, socket: socket, tls: tls, pool: self, idleTimeout: configuration.idleTimeout,
            connectDeadline: connectDeadline
        )
        if !leftover.isEmpty { connection.adoptTunnelLeftover(leftover) }
        let bound = LoopBound(connection, loop: connection.loop)
        let effects = state.withLock { state in
            state.attempts[id] = nil
            state.tunnels[id] = nil
            let action = state.machine.connectionEstablished(id)
            if case .start = action.request {
                // Registered before the handshake, so a cancel during it finds the connection.
                state.connections[id] = bound
            }
            let effects = state.resolve(action, established: bound)
            return state.observe(key, effects)
        }
        perform(effects)
    }

    /// The TLS client for `key`.
    private func makeTLS(for key: ConnectionKey) throws(TransportError) -> TLSClientConnection {
        let context: TLSClientContext
        switch configuration.tlsContext?.get() {
        case .success(let built):
            context = built
        case .failure(let error):
            throw TransportError(.tls, "TLS configuration failed: \(error)", underlying: error)
        case nil:
            throw TransportError(.tls, "no TLS configuration for https")
        }
        do throws(TLSError) {
            return try TLSClientConnection(
                context: context, serverName: key.host, port: key.port,
                evaluator: configuration.trustEvaluator?(key.host)
            )
        } catch {
            throw TransportError(.tls, "TLS setup failed: \(error)", underlying: error)
        }
    }

    /// The host and port a direct connection for `key` opens: the URL's, or the session's
    /// ``HostResolver`` reroute (`--connect-to`). An `http+unix://` URL is never rerouted.
    static func connectionTarget(for key: ConnectionKey, resolver: HostResolver) -> (host: String, port: Int) {
        if key.unixSocketPath != nil { return (key.host, key.port) }
        return resolver.connectionTarget(host: key.host, port: key.port)
    }

    /// Where the connector goes instead of resolving `target.host`: the Unix socket of an
    /// `http+unix://` URL, or the session's ``HostResolver`` overrides (addresses or a socket)
    /// for the connection target.
    static func addressOverrides(for key: ConnectionKey, target: (host: String, port: Int), resolver: HostResolver) -> [String: [SocketAddress]] {
        if let path = key.unixSocketPath, let address = try? SocketAddress(unixPath: path) {
            return [key.host: [address]]
        }
        return resolver.socketAddresses(host: target.host, port: target.port).map { [target.host: $0] } ?? [:]
    }
}
