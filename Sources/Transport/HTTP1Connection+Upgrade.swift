// The hand-off after `101 Switching Protocols` (RFC 9110 §15.2.2): the connection leaves the pool
// and its socket, with whatever was read past the 101's head, goes to the protocol the request
// asked for (a WebSocket, Features/WebSocket/UpgradedConnection.swift). The shape of the proxy
// tunnel's hand-off (Proxy/ProxyTunnel.swift), in the other direction. Runs on the loop.

import FoundationEssentials
import EventLoop

extension HTTP1Connection {
    /// Gives the socket to `run`'s upgrade: delivers the 101's `head` (of `headBytes` bytes),
    /// frees the pool slot and hands over the leftover plaintext and pending ciphertext. The
    /// machine is already `upgraded`, so nothing here touches the socket again.
    func handOff(_ run: Run, head: TransportResponseHead, headBytes: Int) {
        cancelTimer()
        var summary = run.summary ?? TransportSummary(timings: run.exchange.timings, isReusedConnection: false)
        summary.timings.responseStart = Date()
        summary.responseHeaderBytes = headBytes
        body = OutgoingBody()
        flushCiphertext()  // anything of the request still queued (nothing, normally)
        let leftover = inbound.withReadableBytes { Array($0) }
        inbound.consume(leftover.count)
        let pending = pump.takePendingCiphertext()
        socket.handler = nil
        pool?.connectionClosed(self)
        busyPool = nil
        run.exchange.deliver(.head(head))
        guard let upgrade = run.exchange.request.upgrade else { preconditionFailure("a 101 accepted without an upgrade offer") }
        upgrade.accept(UpgradedConnection(
            socket: socket, tls: tls, leftover: leftover, cipherPending: pending,
            head: head, exchange: run.exchange, summary: summary
        ))
    }
}
