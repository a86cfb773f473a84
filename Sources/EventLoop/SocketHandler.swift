// SocketHandler and the small result types of Socket's I/O calls.

/// Receives readiness callbacks for a ``Socket``, always on the socket's loop.
///
/// The loop is level-triggered: while read interest is on and unread bytes remain,
/// ``socketReadable(_:)`` keeps being called each iteration, so a handler may read as much or as
/// little as it likes per call. A socket holds its handler strongly until ``Socket/close()``.
public protocol SocketHandler: AnyObject {
    /// The socket has bytes to read, reached end of stream, or has an error to report through
    /// ``Socket/read(into:)``. Called only while read interest is on.
    ///
    /// After ``ReadResult/endOfStream`` or a read error, close the socket or turn read interest
    /// off: level triggering keeps reporting a closed stream as readable.
    ///
    /// - Parameter socket: The ready socket.
    func socketReadable(_ socket: Socket)

    /// The socket can accept more bytes (or a connect finished). Called only while write interest is on.
    ///
    /// - Parameter socket: The ready socket.
    func socketWritable(_ socket: Socket)

    /// The connection is dead in both directions (`EPOLLHUP`/`EPOLLERR`, typically a reset), or its
    /// loop shut down. Called once, whatever the interest; no readiness callbacks follow. The
    /// handler should ``Socket/close()`` the socket (bytes already received can still be read first).
    ///
    /// - Parameters:
    ///   - socket: The socket that hung up.
    ///   - error: The pending socket error (`SO_ERROR`), ``SocketError/Kind/eventLoopShutdown`` on
    ///     shutdown, or nil when the kernel reported none (for example because a read already
    ///     consumed it).
    func socketHungUp(_ socket: Socket, error: SocketError?)
}

/// The outcome of ``Socket/read(into:)``.
public enum ReadResult: Hashable, Sendable {
    /// This many bytes (at least 1) were stored at the start of the buffer.
    case bytes(Int)
    /// Nothing to read right now; wait for ``SocketHandler/socketReadable(_:)``.
    case wouldBlock
    /// The peer closed its sending side (FIN); no more bytes will arrive.
    case endOfStream
}

/// The outcome of ``Socket/writev(_:)`` and ``Socket/write(_:)``.
public enum WriteResult: Hashable, Sendable {
    /// This many bytes were accepted by the kernel (possibly fewer than offered: a partial write).
    case wrote(Int)
    /// The send buffer is full; turn write interest on and retry in ``SocketHandler/socketWritable(_:)``.
    case wouldBlock
}

/// What ``Socket/probeIdle()`` found on a connection that should be quiet.
public enum IdleProbe: Hashable, Sendable {
    /// Nothing pending: the connection looks reusable.
    case idle
    /// Unread bytes are waiting (on an idle HTTP/1.1 connection, unsolicited data: do not reuse).
    case readable
    /// The peer closed the connection (FIN or reset), or it is already closed locally.
    case closed
}
