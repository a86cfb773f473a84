// A connected pair of Unix stream sockets on one loop: the seam where a layer the rest of the
// stack does not know about (TLS to an HTTPS proxy, Transport/Proxy/ProxyTLSRelay.swift) hands
// plaintext to code that only speaks to a `Socket`.
internal import CLinux
internal import Glibc

extension Socket {
    /// Two connected, non-blocking Unix stream sockets registered with `loop`, no interest set.
    ///
    /// Loop-only. Both report `remoteAddress` as their ``remoteAddress`` (the peer that the bytes
    /// really come from, for diagnostics and metrics).
    /// - Parameters:
    ///   - loop: The loop both belong to.
    ///   - remoteAddress: What both report as their remote address.
    /// - Returns: The two ends; bytes written to one are read from the other.
    /// - Throws: `SocketError` when `socketpair(2)` or the registration fails (nothing stays open).
    package static func makePair(on loop: EventLoop, remoteAddress: SocketAddress) throws(SocketError) -> (Socket, Socket) {
        loop.preconditionInEventLoop()
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw SocketError(errno: errno, syscall: "socketpair")
        }
        let first: Socket
        do {
            first = try Socket(adopting: fds[0], remoteAddress: remoteAddress, loop: loop, interest: [])
        } catch {
            closeDescriptor(fds[1])
            throw error
        }
        do {
            let second = try Socket(adopting: fds[1], remoteAddress: remoteAddress, loop: loop, interest: [])
            return (first, second)
        } catch {
            first.close()
            throw error
        }
    }
}
