// Back-pressure on the read side: a consumer whose bounded buffer is full stops the connection
// reading the socket, and starts it again once it drained.
//
// Pausing drops EPOLLIN interest and stops the parser where it is; bytes already received stay
// in the receive buffer (at most `maxReceiveBuffer`), the rest waits in the kernel and, once its
// receive window is full, in the server. The machine's `Reading.paused` state suspends the idle
// timeout (the silence is ours) and keeps the connection out of the pool: the response has not
// ended, so `complete` cannot run until reading resumed and the body was parsed to its end.
//
// Ordering: a pause is asked on the loop, from inside the body (or head) delivery; a resume is
// always posted with `loop.execute`, so it runs after the delivery that paused, never before.

import EventLoop

extension HTTP1Connection {
    /// Stops reading for `exchange` after the delivery in progress. Call on the loop.
    package func pauseReading(for exchange: Exchange) {
        guard let current = self.exchange, current === exchange else { return }
        guard machine.pauseReading() else { return }
        socket.setReadInterest(false)
        syncTimer()
    }

    /// Starts reading again for `exchange`: parses what is already buffered (or decrypted), then
    /// waits for the socket. Call on the loop. A resume for an exchange that is no longer here
    /// (cancelled, completed) is ignored.
    package func resumeReading(for exchange: Exchange) {
        guard let current = self.exchange, current === exchange else { return }
        let resume = machine.resumeReading(now: .now())
        guard resume != .ignored else { return }
        socket.setReadInterest(true)
        syncTimer()
        // Parse even with nothing buffered: a pause right after a body's last bytes leaves its
        // end to a call with empty input, and no socket event would announce it (the server has
        // nothing more to send). Then what the TLS engine holds.
        processInbound()
        if tls != nil { readPlaintext() }
        if resume == .readToEnd { readAfterHangUp() }
    }

    /// The socket hung up while paused and left epoll: read what the kernel still holds until
    /// the end (or the next pause), without waiting for events. Each read makes progress or
    /// ends the response (end of stream, reset); the bound only guards against a socket that
    /// claims neither.
    private func readAfterHangUp() {
        for _ in 0..<4096 {
            guard machine.isActive, !machine.isReadPaused else { break }
            if tls == nil { socketReadable(socket) } else { readTLS() }
        }
        // Paused again: the machine keeps the hang-up for the next resume.
        if machine.peerHungUp() { return }
        if machine.isActive {
            perform(machine.connectionFailed(TransportError(.connectionLost, "the connection was reset: hang-up")))
        }
    }
}

extension Exchange {
    /// Asks the connection running this exchange to stop reading once the current delivery
    /// returns. Only from the body or head handler, which run on the connection's loop.
    package func pauseReading() {
        guard let connection = runningConnection else { return }
        connection.value.pauseReading(for: self)
    }

    /// Asks the connection to stop reading, from any thread (posted to its loop, so it takes
    /// effect between deliveries): `Request.suspend()` on a running request.
    package func pauseReadingFromAnyThread() {
        guard let connection = runningConnection else { return }
        connection.loop.execute { connection.value.pauseReading(for: self) }
    }

    /// Asks the connection to read again, from any thread (posted to its loop).
    package func resumeReading() {
        guard let connection = runningConnection else { return }
        connection.loop.execute { connection.value.resumeReading(for: self) }
    }
}
