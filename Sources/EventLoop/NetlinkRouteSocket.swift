// NetlinkRouteSocket: a NETLINK_ROUTE datagram socket on an EventLoop, subscribed to link,
// address and route changes. It only moves bytes: datagrams go through NetlinkParser and come
// out as messages; deciding what they mean is PathMonitorStateMachine's job.
//
// The fd is adopted by a `Socket` (the loop's only registration type), so it is level-triggered,
// loop-confined and closed on loop shutdown like every other socket. Its `remoteAddress` is a
// placeholder: netlink peers have no IP address.
//
// Overrun: when the kernel cannot queue a notification (the receive buffer is full), recv fails
// with ENOBUFS and epoll reports EPOLLERR, which makes `Socket` detach. Events were lost either
// way, so the socket reports `.lost` and closes itself; the owner opens a new one and dumps again.
internal import CLinux
internal import Glibc

/// What a ``NetlinkRouteSocket`` delivers, on its loop.
package enum NetlinkSocketEvent: Sendable {
    /// One datagram's messages.
    case messages([NetlinkMessage])
    /// A datagram that could not be decoded (state may have been missed: dump again).
    case malformed(NetlinkParseError)
    /// The socket failed (ENOBUFS overrun, loop shutdown…) and is closed; open a new one.
    case lost(SocketError?)
}

/// A rtnetlink socket registered on a loop; see the file header. Loop-confined.
package final class NetlinkRouteSocket: SocketHandler {
    /// Bytes per `recv`: large enough for a dump datagram (the kernel fills up to a page or 32 KiB).
    static let receiveSize = 64 * 1024

    private let socket: Socket
    private let buffer: UnsafeMutableRawBufferPointer
    private var onEvent: ((NetlinkSocketEvent) -> Void)?

    /// Opens the socket, binds it to `groups` and registers it for reading on `loop`. Loop-only.
    ///
    /// - Parameters:
    ///   - loop: The loop that runs `onEvent`.
    ///   - groups: `RTMGRP_*` multicast groups (``Netlink/monitorGroups`` for the path monitor).
    ///   - onEvent: Called on `loop` for every datagram and once on loss.
    /// - Throws: ``SocketError`` from `socket`, `bind` or epoll (EPERM/EACCES where netlink is filtered).
    package init(on loop: EventLoop, groups: UInt32, onEvent: @escaping (NetlinkSocketEvent) -> Void) throws(SocketError) {
        loop.preconditionInEventLoop()
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard case .done(let rawFD) = try retryingSyscall("socket", { Int(Glibc.socket(AF_NETLINK, type, 0)) }) else {
            preconditionFailure("socket() cannot block")
        }
        let fd = Int32(rawFD)
        do {
            try Self.bind(fd, groups: groups)
        } catch {
            closeDescriptor(fd)
            throw error
        }
        var receiveBuffer: Int32 = 1 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        socket = try Socket(adopting: fd, remoteAddress: .ipv4Loopback(port: 0), loop: loop, interest: .read)
        buffer = .allocate(byteCount: Self.receiveSize, alignment: 8)
        self.onEvent = onEvent
        socket.handler = self
    }

    deinit {
        buffer.deallocate()
    }

    /// Binds the socket to `groups`, the kernel picking the port id.
    private static func bind(_ fd: Int32, groups: UInt32) throws(SocketError) {
        _ = try retryingSyscall("bind") {
            withSockAddr(groups: groups) { address, length in Int(Glibc.bind(fd, address, length)) }
        }
    }

    /// Calls `body` with a `struct sockaddr_nl` (`AF_NETLINK`, `nl_pid` 0 so the kernel picks,
    /// `nl_groups`) seen as the `struct sockaddr *` that `bind` takes, and its length. The typed
    /// accessor for this cast (as `SocketAddress.withSockAddr` for IP and Unix addresses): the
    /// struct is built by its fields, and rebound only to pass it to the kernel. The pointer
    /// must not escape.
    static func withSockAddr<R>(groups: UInt32, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_pid = 0
        address.nl_groups = groups
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
    }

    /// `true` until closed or lost.
    package var isOpen: Bool { socket.isOpen }

    /// Sends one request datagram to the kernel (an unconnected netlink socket sends to pid 0). Loop-only.
    ///
    /// - Parameter request: A complete netlink message, such as ``Netlink/dumpRequest(type:sequence:family:)``.
    /// - Throws: ``SocketError``; a full send buffer is reported as ``SocketError/Kind/other`` with EAGAIN.
    package func send(_ request: [UInt8]) throws(SocketError) {
        let result = request.withUnsafeBytes { bytes in Result { () throws(SocketError) in try socket.write(bytes) } }
        guard case .wrote(request.count) = try result.get() else { throw SocketError(errno: EAGAIN, syscall: "sendmsg") }
    }

    /// Closes the socket; no event follows. Loop-only; idempotent.
    package func close() {
        onEvent = nil
        socket.close()
    }

    // MARK: SocketHandler

    package func socketReadable(_ socket: Socket) {
        // Up to 16 datagrams per wake-up; level triggering reports the rest next iteration.
        for _ in 0..<16 {
            guard let onEvent, socket.isOpen else { return }
            let count: Int
            do {
                switch try socket.read(into: buffer) {
                case .bytes(let read): count = read
                case .wouldBlock: return
                case .endOfStream: return lose(nil)
                }
            } catch {
                return lose(error)
            }
            do {
                onEvent(.messages(try NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))))
            } catch {
                onEvent(.malformed(error))
            }
        }
    }

    package func socketWritable(_ socket: Socket) {}

    package func socketHungUp(_ socket: Socket, error: SocketError?) {
        lose(error)
    }

    private func lose(_ error: SocketError?) {
        let onEvent = self.onEvent
        close()
        onEvent?(.lost(error))
    }
}
