// Opening a proxy's tunnel for the machine's `create`, between the TCP connect to the proxy and
// `established`: CONNECT (HTTP proxy) or the SOCKS5/SOCKS4 handshake, with the origin's name
// resolved here first for `socks5://` and `socks4://`.
//
// Cancellation follows the connect attempt's rule (ConnectionPool+Connecting.swift): the tunnel
// is recorded in `state.tunnels` only while the machine still has the connection connecting;
// a cancel decided after that finds it there (`cancelConnect` → `Effects.cancelTunnel`), and one
// decided before finds the connection abandoned here.

import FoundationEssentials
import Synchronization
import EventLoop
import TLS

/// A proxy handshake in flight that a cancel can stop: the TLS session to an HTTPS proxy
/// (`ProxyTLSRelay`) or a tunnel (`ProxyTunnel`).
protocol ProxyHandshake: AnyObject {
    /// Stops the handshake; its completion gets `.cancelled` unless it already ran.
    func cancel()
}

extension ProxyTunnel: ProxyHandshake {}
extension ProxyTLSRelay: ProxyHandshake {}

extension ConnectionPool {
    /// `socket` reaches the route's proxy (directly, or through the preproxy's tunnel): TLS to
    /// an HTTPS proxy, the tunnel when the route needs one, else the connection is established
    /// (absolute-form requests). `answer`: see ``openTunnel``.
    func proxyReached(_ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline, answer: String? = nil) {
        if route.server.kind == .https {
            openProxySession(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
        } else if route.tunnels {
            openTunnel(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
        } else {
            established(socket, id: id, key: key, connectDeadline: deadline)
        }
    }

    /// Opens the preproxy's SOCKS tunnel to the route's HTTP(S) proxy on `socket` (connected to
    /// the preproxy), then goes on as if connected to that proxy (``proxyReached``). The proxy
    /// speaks only when spoken to, so no bytes can follow the SOCKS reply.
    func openPreproxyTunnel(
        _ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline, answer: String? = nil
    ) {
        guard let preproxy = route.preproxy else {
            return proxyReached(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
        }
        let tunnel = ProxyTunnel(socket: socket, proxy: "\(preproxy)", deadline: deadline) { [self] result in
            switch result {
            case .success:
                proxyReached(socket, id: id, key: key, route: route, deadline: deadline, answer: answer)
            case .failure(let error):
                connectFailed(id: id, error: error)
            }
        }
        guard register(tunnel, for: id, on: socket.loop) else { return tunnel.cancel() }
        startSOCKS(tunnel, server: preproxy, host: route.server.host, port: route.server.port, on: socket.loop)
    }

    /// Records `handshake` as connection `id`'s, for a cancel to find; `false` when the machine
    /// no longer has the connection connecting (the caller cancels it).
    private func register(_ handshake: any ProxyHandshake, for id: Machine.ConnectionID, on loop: EventLoop) -> Bool {
        state.withLock { state -> Bool in
            guard state.machine.isConnecting(id) else { return false }
            state.attempts[id] = nil
            state.tunnels[id] = LoopBound<any ProxyHandshake>(handshake, loop: loop)
            return true
        }
    }

    /// Opens the tunnel for connection `id` on `socket` (connected to the proxy), then hands the
    /// socket to `established`; fails the connection if the tunnel cannot be opened by `deadline`.
    /// `answer`: the `Proxy-Authorization` for this CONNECT, when a 407 that closed the previous
    /// connection was answered; a CONNECT without one whose 407 closes the connection is sent
    /// again with its answer on a new connection (once, as curl 7.88).
    func openTunnel(_ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline, answer: String? = nil) {
        let server = route.server
        let loop = socket.loop
        let tunnel = ProxyTunnel(socket: socket, proxy: "\(server)", deadline: deadline) { [self] result in
            switch result {
            case .success(let leftover):
                established(socket, id: id, key: key, leftover: leftover, connectDeadline: deadline)
            case .failure(let error):
                if answer == nil, let retry = (error.underlying as? ProxyError)?.answerOnNewConnection {
                    return reconnect(id: id, key: key, route: route, deadline: deadline, answer: retry, on: loop)
                }
                connectFailed(id: id, error: error)
            }
        }
        guard register(tunnel, for: id, on: socket.loop) else { return tunnel.cancel() }

        // The tunnel's far end: the origin, or its reroute (curl sends `--connect-to`'s target in
        // CONNECT and SOCKS too). TLS inside the tunnel still checks the origin's name.
        let (host, port) = configuration.resolver.connectionTarget(host: key.host, port: key.port)
        switch server.kind {
        case .http, .https:
            tunnel.start(.http(HTTPConnectStateMachine(
                host: host, port: port, proxy: "\(server)", authorization: answer ?? server.basicAuthorization,
                extraFields: server.headers, http10: server.connectsWithHTTP10,
                credential: server.username.map { .init(user: $0, password: server.password ?? "", methods: server.authenticationMethods) },
                userAgent: server.connectUserAgent
            )))
        case .socks4a, .socks4, .socks5h, .socks5:
            startSOCKS(tunnel, server: server, host: host, port: port, on: socket.loop)
        }
    }

    /// Connects to the proxy again for a CONNECT carrying `answer`, within the same `deadline`;
    /// recorded as the connection's attempt, so a cancel finds it.
    private func reconnect(id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline, answer: String, on loop: EventLoop) {
        let limit = max(deadline - .now(), .nanoseconds(1))
        let attempt = connectToProxy(id: id, key: key, route: route, limit: limit, deadline: deadline, on: loop, answer: answer)
        let abandoned = state.withLock { state -> Bool in
            guard state.machine.isConnecting(id) else { return true }
            state.tunnels[id] = nil
            state.attempts[id] = attempt
            return false
        }
        if abandoned { attempt.cancel() }
    }

    /// Starts the SOCKS handshake with `server` for a tunnel to `host:port`, resolving `host`
    /// here first for `socks5://` and `socks4://` (honouring the session's resolver overrides).
    private func startSOCKS(_ tunnel: ProxyTunnel, server: ProxyServer, host: String, port: Int, on loop: EventLoop) {
        let bound = LoopBound(tunnel, loop: loop)
        switch server.kind {
        case .http, .https:
            preconditionFailure("startSOCKS with an HTTP proxy \(server)")
        case .socks4a:
            let machine = SOCKS4StateMachine(destination: .name(host), port: port, userID: server.username ?? "", proxy: "\(server)")
            tunnel.start(.socks4(machine))
        case .socks4:
            // curl's `socks4://`: the name resolved here, the first IPv4 address sent; no IPv4
            // address, or no address at all, fails as curl 7.88 fails it (97).
            let overrides = configuration.resolver.socketAddresses(host: host, port: port).map { [host: $0] } ?? [:]
            Connector(addressOverrides: overrides).resolve(host: host, port: port, on: loop) { result in
                let tunnel = bound.value
                switch result {
                case .success(let addresses):
                    guard let first = addresses.first(where: { $0.family == .ipv4 }), let literal = IPLiteral(first.ipAddress) else {
                        return tunnel.fail(Self.socks4Refused("SOCKS4 connection to \(host) not supported", server: server))
                    }
                    let userID = server.username ?? ""
                    tunnel.start(.socks4(SOCKS4StateMachine(destination: .address(literal.bytes), port: port, userID: userID, proxy: "\(server)")))
                case .failure:
                    tunnel.fail(Self.socks4Refused("Could not resolve host: \(host)", server: server))
                }
            }
        case .socks5h:
            tunnel.start(.socks(socksMachine(for: server, destination: Self.socksDestination(host: host), port: port)))
        case .socks5:
            // The origin's name is resolved here (curl's `socks5://`), honouring the session's
            // resolver overrides, and the first address is sent.
            let overrides = configuration.resolver.socketAddresses(host: host, port: port).map { [host: $0] } ?? [:]
            Connector(addressOverrides: overrides).resolve(host: host, port: port, on: loop) { [self] result in
                let tunnel = bound.value
                switch result {
                case .success(let addresses):
                    guard let first = addresses.first, let literal = IPLiteral(first.ipAddress) else {
                        return tunnel.fail(TransportError(.hostNotFound, "could not resolve host \(host)"))
                    }
                    tunnel.start(.socks(socksMachine(for: server, destination: .address(literal.bytes), port: port)))
                case .failure(let error):
                    tunnel.fail(TransportError.connecting(error, host: host))
                }
            }
        }
    }

    /// Sets up the TLS session to the HTTPS proxy on `socket` (connected to it), checked with the
    /// proxy's own ``ProxyTLSOptions``, never the session's trust evaluator; then continues with
    /// the plaintext socket the session relays: the tunnel for a tunnelled route, else
    /// `established` (absolute-form requests). `answer`: see ``openTunnel``.
    func openProxySession(
        _ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline, answer: String? = nil
    ) {
        let server = route.server
        let tls: TLSClientConnection
        do throws(TransportError) {
            tls = try Self.makeProxyTLS(for: server)
        } catch {
            socket.close()
            return connectFailed(id: id, error: error)
        }
        let relay = ProxyTLSRelay(socket: socket, tls: tls, proxy: "\(server)", deadline: deadline) { [self] result in
            switch result {
            case .success(let plaintext) where route.tunnels:
                openTunnel(plaintext, id: id, key: key, route: route, deadline: deadline, answer: answer)
            case .success(let plaintext):
                established(plaintext, id: id, key: key, connectDeadline: deadline)
            case .failure(let error):
                connectFailed(id: id, error: error)
            }
        }
        let abandoned = state.withLock { state -> Bool in
            guard state.machine.isConnecting(id) else { return true }
            state.attempts[id] = nil
            state.tunnels[id] = LoopBound<any ProxyHandshake>(relay, loop: socket.loop)
            return false
        }
        if abandoned { return relay.cancel() }
        relay.start()
    }

    /// The TLS client for an HTTPS proxy: its options' context (the system trust store when it
    /// has none), its host name for SNI and the certificate check, its evaluator.
    static func makeProxyTLS(for server: ProxyServer) throws(TransportError) -> TLSClientConnection {
        let options = server.tlsOptions ?? .systemDefault
        func failure(_ detail: String, _ error: TLSError) -> TransportError {
            let proxyError = ProxyError(.tlsHandshakeFailed, proxy: "\(server)", detail, underlying: error)
            return TransportError(.proxy, "\(detail) (proxy \(server))", underlying: proxyError)
        }
        let context: TLSClientContext
        switch options.context.get() {
        case .success(let built): context = built
        case .failure(let error): throw failure("the proxy's TLS configuration failed: \(error)", error)
        }
        do throws(TLSError) {
            return try TLSClientConnection(context: context, serverName: server.host, port: server.port, evaluator: options.evaluator)
        } catch {
            throw failure("TLS setup for the proxy failed: \(error)", error)
        }
    }

    /// A SOCKS4 request that cannot be made (curl 7.88's 97): the origin has no IPv4 address.
    static func socks4Refused(_ detail: String, server: ProxyServer) -> TransportError {
        let error = ProxyError(.socksRequestFailed, proxy: "\(server)", detail)
        return TransportError(.proxy, "\(detail) (proxy \(server))", underlying: error)
    }

    /// The SOCKS5 machine for `server`, with its credentials.
    private func socksMachine(for server: ProxyServer, destination: SOCKS5StateMachine.Destination, port: Int) -> SOCKS5StateMachine {
        SOCKS5StateMachine(
            destination: destination, port: port,
            credentials: server.username.map { ($0, server.password ?? "") }, proxy: "\(server)"
        )
    }

    /// What `socks5h://` sends for `host`: an IP literal as an address, a name as a name.
    static func socksDestination(host: String) -> SOCKS5StateMachine.Destination {
        IPLiteral(host).map { .address($0.bytes) } ?? .name(host)
    }
}
