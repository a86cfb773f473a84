// Opening a non-blocking TCP socket and starting connect(2).
internal import CLinux
internal import Glibc

extension Socket {
    /// Creates a non-blocking, close-on-exec TCP socket with `TCP_NODELAY`, starts connecting it to
    /// `address` and registers it on `loop`. Loop-only.
    ///
    /// - Returns: The socket and whether it is already connected (common on loopback). When not,
    ///   it has write interest on: writability signals the end of the attempt, and
    ///   ``takePendingError()`` tells success (nil) from failure.
    /// - Throws: `SocketError` if `socket`, `connect` or registration fail; no fd is left open.
    static func startConnecting(to address: SocketAddress, setup: SocketSetup = SocketSetup(), on loop: EventLoop) throws(SocketError) -> (socket: Socket, connected: Bool) {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard case .done(let rawFD) = try retryingSyscall("socket", { Int(socket(address.addressFamily, type, 0)) }) else {
            preconditionFailure("socket() cannot block")
        }
        let fd = Int32(rawFD)
        if address.family != .unix {
            var one: Int32 = 1
            // Request heads are small and latency-bound: never wait for Nagle's algorithm.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            do {
                try setup.apply(to: fd, remote: address)
            } catch {
                closeDescriptor(fd)
                throw error
            }
        }
        let outcome: IOOutcome
        do {
            outcome = try retryingSyscall("connect") { Int(address.withSockAddr { connect(fd, $0, $1) }) }
        } catch {
            closeDescriptor(fd)
            throw error
        }
        switch outcome {
        case .done:
            return (try Socket(adopting: fd, remoteAddress: address, loop: loop, interest: []), true)
        case .inProgress:
            return (try Socket(adopting: fd, remoteAddress: address, loop: loop, interest: .write), false)
        case .wouldBlock:
            // EAGAIN from connect means no free local port (TCP: ephemeral range exhausted) or,
            // on a Unix socket, a listener whose backlog is full.
            closeDescriptor(fd)
            throw SocketError(errno: EAGAIN, syscall: "connect")
        }
    }
}
