// Socket: a connected, non-blocking TCP socket registered with one loop.
//
// States (explicit transitions, STYLE.md §3):
//   registered(interest)  in epoll with mask = interest (+ ERR/HUP, always reported)
//       -> registered     setReadInterest / setWriteInterest (epoll_ctl MOD only if the mask changes)
//       -> detached       EPOLLHUP/EPOLLERR delivered: removed from epoll so a level-triggered
//                         hang-up cannot spin the loop; the fd stays open for final reads
//       -> closed         close()
//   detached(interest)    fd open, no events; interest changes are only recorded
//       -> closed         close()
//   closed                fd closed exactly once, handler released; terminal
//
// Loop-confined: every method must run on `loop` (checked), so the class is not Sendable.
// Wrap it in `LoopBound` to carry it through `@Sendable` closures.
internal import CLinux
internal import Glibc

/// A connected, non-blocking TCP socket owned by one ``EventLoop``. Loop-confined: use it only on ``loop``.
///
/// Created by ``Connector``. Reads go into caller-owned buffers and writes take caller-owned
/// pieces, so steady-state I/O allocates nothing. Close it with ``close()``; until then the loop
/// keeps it (and its ``handler``) alive.
public final class Socket {
    /// Read/write interest bits.
    struct Interest: OptionSet {
        let rawValue: UInt8
        static let read = Interest(rawValue: 1)
        static let write = Interest(rawValue: 2)

        var epollMask: UInt32 {
            (contains(.read) ? EpollMask.input : 0) | (contains(.write) ? EpollMask.output : 0)
        }
    }

    private enum State {
        case registered(Interest)
        case detached(Interest)
        case closed
    }

    /// The loop this socket belongs to; every call and callback happens on it.
    public let loop: EventLoop
    /// Receives readiness callbacks; held strongly until ``close()``. While nil, readiness that
    /// arrives turns the matching interest off (nobody would consume it, and the level-triggered
    /// loop would otherwise report it forever).
    public var handler: (any SocketHandler)?
    /// The address this socket connected to.
    public let remoteAddress: SocketAddress

    private var fd: Int32
    private var registrationID: UInt32 = 0
    private var state: State

    /// Adopts a connected or connecting fd and registers it; on failure the fd is closed.
    init(adopting fd: Int32, remoteAddress: SocketAddress, loop: EventLoop, interest: Interest) throws(SocketError) {
        loop.preconditionInEventLoop()
        self.fd = fd
        self.loop = loop
        self.remoteAddress = remoteAddress
        self.state = .closed
        do {
            registrationID = try loop.selector.register(self, fd: fd, mask: interest.epollMask)
        } catch {
            closeDescriptor(fd)
            self.fd = -1
            throw error
        }
        state = .registered(interest)
    }

    deinit {
        // Reached only for a socket whose registration failed or that was closed: the selector
        // table keeps every registered socket alive until close().
        if fd >= 0 { closeDescriptor(fd) }
    }

    // MARK: status

    /// `true` until ``close()``.
    public var isOpen: Bool {
        if case .closed = state { return false }
        return true
    }

    /// The local address the kernel bound, or nil once closed.
    public var localAddress: SocketAddress? {
        loop.preconditionInEventLoop()
        guard fd >= 0 else { return nil }
        return SocketAddress.fromKernel { getsockname(fd, $0, $1) }
    }

    /// The descriptor number, for diagnostics and tests in this package; -1 once closed.
    package var fileDescriptor: Int32 { fd }

    // MARK: interest

    /// Whether ``SocketHandler/socketReadable(_:)`` callbacks are wanted.
    public var isReadInterested: Bool { interest.contains(.read) }

    /// Whether ``SocketHandler/socketWritable(_:)`` callbacks are wanted.
    public var isWriteInterested: Bool { interest.contains(.write) }

    /// Turns read readiness callbacks on or off (back-pressure). Loop-only.
    ///
    /// Off means the kernel buffers incoming bytes (and eventually shrinks the peer's TCP window)
    /// until it is turned back on. A no-op when unchanged or closed.
    /// - Parameter on: `true` to receive ``SocketHandler/socketReadable(_:)``.
    public func setReadInterest(_ on: Bool) {
        updateInterest(.read, on)
    }

    /// Turns write readiness callbacks on or off. Loop-only.
    ///
    /// Turn it on after a write returned ``WriteResult/wouldBlock`` or a partial count, and off once
    /// everything is written, or the level-triggered loop reports writability every iteration.
    /// - Parameter on: `true` to receive ``SocketHandler/socketWritable(_:)``.
    public func setWriteInterest(_ on: Bool) {
        updateInterest(.write, on)
    }

    private var interest: Interest {
        switch state {
        case .registered(let interest), .detached(let interest): return interest
        case .closed: return []
        }
    }

    private func updateInterest(_ bit: Interest, _ on: Bool) {
        loop.preconditionInEventLoop()
        switch state {
        case .registered(var interest):
            guard interest.contains(bit) != on else { return }
            if on { interest.insert(bit) } else { interest.remove(bit) }
            loop.selector.modify(fd: fd, id: registrationID, mask: interest.epollMask)
            state = .registered(interest)
        case .detached(var interest):
            if on { interest.insert(bit) } else { interest.remove(bit) }
            state = .detached(interest)
        case .closed:
            return
        }
    }

    // MARK: I/O

    /// Reads available bytes into `buffer`. Loop-only; never blocks, never allocates.
    ///
    /// - Parameter buffer: Where to store bytes; must not be empty.
    /// - Returns: ``ReadResult/bytes(_:)``, ``ReadResult/wouldBlock`` or ``ReadResult/endOfStream``.
    /// - Throws: ``SocketError``: ``SocketError/Kind/connectionReset`` after a reset, ``SocketError/Kind/socketClosed``
    ///   after ``close()``, otherwise the classified errno of `recv`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReadResult {
        loop.preconditionInEventLoop()
        precondition(buffer.count > 0, "read(into:) needs a non-empty buffer")
        guard fd >= 0 else { throw SocketError(kind: .socketClosed, syscall: "recv") }
        switch try retryingSyscall("recv", { recv(fd, buffer.baseAddress, buffer.count, 0) }) {
        case .done(0): return .endOfStream
        case .done(let count): return .bytes(count)
        case .wouldBlock: return .wouldBlock
        case .inProgress: preconditionFailure("recv reported EINPROGRESS")
        }
    }

    /// Writes several pieces with one `sendmsg` (the `writev` of sockets, with `MSG_NOSIGNAL` so a
    /// closed peer yields an error instead of `SIGPIPE`). Loop-only; never blocks, never allocates.
    ///
    /// At most 64 non-empty pieces go out per call (empty ones are skipped); the rest are simply
    /// not written, which the caller sees as a partial count.
    /// - Parameter pieces: Byte ranges, written in order as one stream.
    /// - Returns: ``WriteResult/wrote(_:)`` with the number of bytes accepted (0 if every piece is
    ///   empty), or ``WriteResult/wouldBlock``.
    /// - Throws: ``SocketError``: ``SocketError/Kind/connectionReset`` for ECONNRESET/EPIPE,
    ///   ``SocketError/Kind/socketClosed`` after ``close()``, otherwise the classified errno.
    public func writev(_ pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(SocketError) -> WriteResult {
        loop.preconditionInEventLoop()
        guard fd >= 0 else { throw SocketError(kind: .socketClosed, syscall: "sendmsg") }
        let iovecs = loop.iovecs
        var used = 0
        for piece in pieces where !piece.isEmpty {
            guard used < EventLoop.iovecCapacity else { break }
            iovecs[used] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress), iov_len: piece.count)
            used += 1
        }
        if used == 0 { return .wrote(0) }
        var message = msghdr()
        message.msg_iov = iovecs
        message.msg_iovlen = used
        return try finishWrite(retryingSyscall("sendmsg", { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }))
    }

    /// Writes one contiguous range (`send` with `MSG_NOSIGNAL`). Loop-only; never blocks.
    ///
    /// - Parameter bytes: The bytes to send.
    /// - Returns: ``WriteResult/wrote(_:)`` (0 for an empty range) or ``WriteResult/wouldBlock``.
    /// - Throws: The same errors as ``writev(_:)``.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> WriteResult {
        loop.preconditionInEventLoop()
        guard fd >= 0 else { throw SocketError(kind: .socketClosed, syscall: "send") }
        if bytes.isEmpty { return .wrote(0) }
        return try finishWrite(retryingSyscall("send", { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }))
    }

    private func finishWrite(_ outcome: IOOutcome) -> WriteResult {
        switch outcome {
        case .done(let count): return .wrote(count)
        case .wouldBlock: return .wouldBlock
        case .inProgress: preconditionFailure("send reported EINPROGRESS")
        }
    }

    /// Checks, without consuming anything, whether an idle connection is still usable: one
    /// non-blocking `recv(MSG_PEEK)` of one byte. Loop-only.
    ///
    /// Use before reusing a pooled keep-alive connection; the server may have closed it.
    /// - Returns: ``IdleProbe/idle``, ``IdleProbe/readable`` or ``IdleProbe/closed``.
    public func probeIdle() -> IdleProbe {
        loop.preconditionInEventLoop()
        guard fd >= 0 else { return .closed }
        var byte: UInt8 = 0
        do {
            let flags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
            switch try retryingSyscall("recv", { recv(fd, &byte, 1, flags) }) {
            case .done(0): return .closed
            case .done: return .readable
            case .wouldBlock: return .idle
            case .inProgress: return .closed
            }
        } catch {
            return .closed
        }
    }

    /// Reads and clears the socket's pending error (`SO_ERROR`); nil when there is none.
    func takePendingError() -> SocketError? {
        guard fd >= 0 else { return nil }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 {
            return SocketError(errno: errno, syscall: "getsockopt(SO_ERROR)")
        }
        return code == 0 ? nil : SocketError(errno: code, syscall: "connect")
    }

    // MARK: closing

    /// Deregisters from the loop, closes the fd exactly once and releases the handler. Loop-only; idempotent.
    ///
    /// Pending unsent bytes in the kernel are still delivered (a graceful FIN follows them).
    public func close() {
        loop.preconditionInEventLoop()
        switch state {
        case .closed:
            return
        case .registered:
            loop.selector.deregister(fd: fd, id: registrationID)
        case .detached:
            loop.selector.forget(fd: fd, id: registrationID)
        }
        state = .closed
        closeDescriptor(fd)
        fd = -1
        handler = nil
    }

    // MARK: events (called by EventLoop)

    /// Delivers one epoll event; see the file header for the hang-up rule.
    func handleEvents(_ mask: UInt32) {
        guard case .registered(let interest) = state else { return }
        let failed = mask & (EpollMask.error | EpollMask.hangup) != 0
        guard handler != nil else {
            // Nobody consumes readiness: with level triggering it would be reported every
            // iteration, so drop the interest (and, after a hang-up, the registration).
            if failed {
                loop.selector.stopEvents(fd: fd, id: registrationID)
                state = .detached([])
            } else if !interest.isEmpty {
                loop.selector.modify(fd: fd, id: registrationID, mask: 0)
                state = .registered([])
            }
            return
        }
        // Errors and hang-ups go to an interested reader/writer first, so it sees the reset or EOF
        // in-band through read()/SO_ERROR (a failed connect shows up as writable + error).
        if interest.contains(.read) && (failed || mask & EpollMask.input != 0) {
            handler?.socketReadable(self)
            guard case .registered = state else { return }
        }
        if interest.contains(.write) && (failed || mask & EpollMask.output != 0) {
            handler?.socketWritable(self)
            guard case .registered = state else { return }
        }
        guard failed, case .registered(let current) = state else { return }
        loop.selector.stopEvents(fd: fd, id: registrationID)
        state = .detached(current)
        handler?.socketHungUp(self, error: takePendingError())
    }

    /// Loop teardown: tells the handler, then closes.
    func closeForShutdown() {
        guard isOpen else { return }
        handler?.socketHungUp(self, error: SocketError(kind: .eventLoopShutdown))
        close()
    }
}

// Loop-confined by design: forbid the conformance so a Socket can only cross threads inside LoopBound.
@available(*, unavailable)
extension Socket: Sendable {}
