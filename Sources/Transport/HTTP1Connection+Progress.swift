// Upload progress: after each write that moved the request body on, the exchange hears how many
// body bytes have left (plain TCP: taken by the kernel; TLS: taken by the TLS engine, whose
// ciphertext follows in the same loop turn). One event per write call, not per byte: a write
// takes up to the socket buffer's worth, so a 10 MB body makes some tens of events, which the
// request coalesces further while a delivery to the user's queue is pending (`RequestProgress`).

// A body of unknown length (an InputStream, sent chunked) reports its own bytes, without the
// chunk framing, with `total: -1` (Apple's NSURLSessionTransferSizeUnknown).

extension HTTP1Connection {
    /// Tells the exchange how much of the body is out, when that moved since the last report.
    func reportBodySent() {
        guard let exchange, body.length > 0 else { return }
        let sent = min(max(0, machine.written - headBytes.count), body.length)
        guard let previous = summary?.requestBodyBytesSent, sent > previous else { return }
        machine.updateRun { $0.summary?.requestBodyBytesSent = sent }
        if body.isChunked { return exchange.deliver(.bodySent(sent: Int64(body.payloadSent), total: -1)) }
        exchange.deliver(.bodySent(sent: Int64(sent), total: Int64(body.length)))
    }
}
