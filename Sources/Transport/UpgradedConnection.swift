// The hand-off after `101 Switching Protocols`: what an HTTP/1.1 connection gives up, and the
// request's offer that asked for it.
//
// Shaped like the proxy tunnel's hand-off (Transport/Proxy/ProxyTunnel.swift) in the other
// direction: there a socket with the bytes read past the proxy's answer becomes an HTTP/1.1
// connection; here an HTTP/1.1 connection's socket, with the bytes read past the 101's head,
// leaves the pool (its slot is freed at once) and belongs to the protocol it switched to. The
// exchange is not completed by the HTTP/1.1 connection: the new owner completes it when the
// upgraded connection ends, so the request's lifecycle spans the whole WebSocket.

import FoundationEssentials
package import EventLoop
package import TLS

/// A request's offer to switch protocols (RFC 9110 §7.8): its head carries `Upgrade`, and a
/// `101` answer hands the connection to `accept`.
package struct TransportUpgrade: Sendable {
    /// Called once, on the connection's loop, with the connection given up after a `101`.
    /// The head was already delivered to the exchange; the callee owns the socket from now on
    /// and completes the exchange when it ends.
    package let accept: @Sendable (UpgradedConnection) -> Void

    package init(accept: @escaping @Sendable (UpgradedConnection) -> Void) { self.accept = accept }
}

/// A connection given up by HTTP/1.1 after a `101`, on its loop.
package struct UpgradedConnection {
    /// The socket, with no handler; read interest still on.
    package let socket: Socket
    /// The TLS session over it, established.
    package let tls: TLSClientConnection?
    /// Plaintext already received after the `101`'s head: the new protocol's first bytes.
    package let leftover: [UInt8]
    /// Ciphertext read from the socket that the TLS engine has not taken yet.
    package let cipherPending: [UInt8]
    /// The `101` head.
    package let head: TransportResponseHead
    /// The exchange that asked for the upgrade: the new owner completes it.
    package let exchange: Exchange
    /// The exchange's facts up to the `101`.
    package let summary: TransportSummary
}
