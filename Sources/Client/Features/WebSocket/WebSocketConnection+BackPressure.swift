// Back-pressure on a WebSocket connection: when the owner's handlers fall behind (messages
// delivered and not yet handled pass a high-water mark, `StreamFlowControl`), the connection
// stops reading, as an HTTP/1.1 connection does for a slow DataStreamRequest.
//
// Pausing drops EPOLLIN interest and stops parsing between events: bytes already received stay
// in the receive buffer (at most `maxReceiveBuffer`) or the TLS engine, the rest in the kernel
// and, once its receive window is full, in the server, which then stops sending. Sending is not
// paused: pongs, closes and the user's messages still go out, and the close timer still runs.
// A hang-up while paused is kept until the resume, which reads what the kernel still holds.
//
// Ordering: a pause is asked on the loop from inside a delivery; a resume is posted with
// `loop.execute`, so it runs after the delivery that paused.

import EventLoop

extension WebSocketConnection {
    /// Stops reading after the delivery in progress. On the loop.
    func pauseReading() {
        guard !isFinished, !readPaused else { return }
        readPaused = true
        if socket.isOpen && !hungUpWhilePaused { socket.setReadInterest(false) }
    }

    /// Parses what is buffered, then reads again. On the loop.
    func resumeReading() {
        guard !isFinished, readPaused else { return }
        readPaused = false
        if !hungUpWhilePaused { socket.setReadInterest(true) }
        processInbound()
        if tls != nil { readPlaintext() }
        guard hungUpWhilePaused, !readPaused, !isFinished else { return }
        hungUpWhilePaused = false
        socketHungUp(socket, error: nil)
    }
}
