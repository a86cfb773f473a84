// Opening a proxy's tunnel for the machine's `create`, between the TCP connect to the proxy and
// `established`: CONNECT (HTTP proxy) or the SOCKS5 handshake, with the origin's name resolved
// here first for `socks5://`.
//
// Cancellation follows the connect attempt's rule (ConnectionPool+Connecting.swift): the tunnel
// is recorded in `state.tunnels` only while the machine still has the connection connecting;
// a cancel decided after that finds it there (`cancelConnect` → `Effects.cancelTunnel`), and one
// decided before finds the connection abandoned here.

import FoundationEssentials
import Synchronization
import EventLoop

extension ConnectionPool {
    /// Opens the tunnel for connection `id` on `socket` (connected to the proxy), then hands the
    /// socket to `established`; fails the connection if the tunnel cannot be opened by `deadline`.
    func openTunnel(_ socket: Socket, id: Machine.ConnectionID, key: ConnectionKey, route: ProxyRoute, deadline: Deadline) {
        let server = route.server
        let tunnel = ProxyTunnel(socket: socket, proxy: "\(server)", deadline: deadline) { [self] result in
            switch result {
            case .success(let leftover):
                established(socket, id: id, key: key, leftover: leftover, connectDeadline: deadline)
            case .failure(let error):
                connectFailed(id: id, error: error)
            }
        }
        let bound = LoopBound(tunnel, loop: socket.loop)
        let abandoned = state.withLock { state -> Bool in
            guard state.machine.isConnecting(id) else { return true }
            state.attempts[id] = nil
            state.tunnels[id] = bound
            return false
        }
        if abandoned { return tunnel.cancel() }

        // The tunnel's far end: the origin, or its reroute (curl sends `--connect-to`'s target in
        // CONNECT and SOCKS too). TLS inside the tunnel still checks the origin's name.
        let (host, port) = configuration.resolver.connectionTarget(host: key.host, port: key.port)
        switch server.kind {
        case .http:
            tunnel.start(.http(HTTPConnectStateMachine(
                host: host, port: port, proxy: "\(server)", authorization: server.basicAuthorization
            )))
        case .socks5h:
            tunnel.start(.socks(socksMachine(for: server, destination: Self.socksDestination(host: host), port: port)))
        case .socks5:
            // The origin's name is resolved here (curl's `socks5://`), honouring the session's
            // resolver overrides, and the first address is sent.
            let overrides = configuration.resolver.socketAddresses(host: host, port: port).map { [host: $0] } ?? [:]
            Connector(addressOverrides: overrides).resolve(host: host, port: port, on: socket.loop) { [self] result in
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
