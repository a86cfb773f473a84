/// What an operation needs before it can make progress. Never an error.
public enum TLSWant: Sendable, Hashable {
    /// Send the pending ciphertext (``TLSClientConnection/takeCiphertext(into:)``), then wait
    /// for more ciphertext from the peer, feed it in, and call the operation again.
    case read
    /// The outgoing buffer is full: send the pending ciphertext, then call the operation again
    /// (for a write, with the same bytes).
    case write
}

/// The result of ``TLSClientConnection/handshake()``.
public enum TLSHandshakeResult: Sendable {
    /// The handshake finished and the peer's certificate was accepted; application data may flow.
    /// Send any pending ciphertext (the client's Finished).
    case complete
    /// Not finished yet; see ``TLSWant``.
    case incomplete(TLSWant)
    /// The handshake failed; the connection is unusable. Pending ciphertext (an alert) may still
    /// be sent as a courtesy.
    case failed(TLSError)
}

/// The result of ``TLSClientConnection/read(into:)``.
public enum TLSReadResult: Sendable {
    /// This many plaintext bytes were written to the start of the buffer (at least 1).
    case bytes(Int)
    /// No plaintext available yet; see ``TLSWant``.
    case incomplete(TLSWant)
    /// The peer's direction is finished. `clean` is `true` when its close_notify alert arrived,
    /// `false` when the transport ended without one (``TLSClientConnection/receiveEndOfStream()``):
    /// for a close-delimited HTTP body the latter is a truncation attack or a crash, not an end.
    case closed(clean: Bool)
    /// A fatal error; the connection is unusable.
    case failed(TLSError)
}

/// The result of ``TLSClientConnection/write(_:)``.
public enum TLSWriteResult: Sendable {
    /// This many plaintext bytes were accepted and encrypted (at least 1, possibly fewer than
    /// offered when the outgoing buffer filled up: send ciphertext and write the rest).
    case written(Int)
    /// Nothing accepted yet; see ``TLSWant``.
    case incomplete(TLSWant)
    /// A fatal error; the connection is unusable.
    case failed(TLSError)
}

/// The result of ``TLSClientConnection/shutdown()``.
public enum TLSShutdownResult: Sendable {
    /// Our close_notify is in the outgoing ciphertext; the peer's has not arrived. For HTTP it is
    /// normal to send it and close the socket without waiting (RFC 8446 section 6.1 allows it).
    case closeNotifySent
    /// Both close_notify alerts have been exchanged.
    case complete
    /// The alert could not be queued yet; see ``TLSWant``.
    case incomplete(TLSWant)
    /// A fatal error.
    case failed(TLSError)
}
