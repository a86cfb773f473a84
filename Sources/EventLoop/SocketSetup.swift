// What is done to a TCP socket between socket(2) and connect(2): the local end it is bound to
// (curl's `--interface`, `--local-port`) and TCP Fast Open (curl's `--tcp-fastopen`).
internal import CLinux
internal import Glibc

/// Options applied to each TCP socket a ``Connector`` opens, before it connects.
package struct SocketSetup: Sendable, Hashable {
    /// The local IP address to bind to (its port is ignored), or `nil` for the kernel's choice.
    /// An attempt to an address of the other family fails without connecting.
    package var localAddress: SocketAddress?
    /// The local ports to try, in order, until one binds (`EADDRINUSE` moves on); `nil` for an
    /// ephemeral port.
    package var localPorts: ClosedRange<Int>?
    /// A network interface the socket is tied to with `SO_BINDTODEVICE` (needs `CAP_NET_RAW`).
    package var device: String?
    /// Whether `TCP_FASTOPEN_CONNECT` is set: the first write carries the SYN's data.
    package var fastOpen = false

    package init(localAddress: SocketAddress? = nil, localPorts: ClosedRange<Int>? = nil, device: String? = nil, fastOpen: Bool = false) {
        self.localAddress = localAddress
        self.localPorts = localPorts
        self.device = device
        self.fastOpen = fastOpen
    }

    /// Whether nothing is asked.
    package var isDefault: Bool { localAddress == nil && localPorts == nil && device == nil && !fastOpen }

    /// Applies the options to `fd`, a fresh TCP socket that will connect to `remote`.
    /// - Throws: `SocketError` with syscall `SO_BINDTODEVICE` (errno of setsockopt) or `bind`
    ///   (the last port's errno; `EAFNOSUPPORT` when the local address is of the other family).
    func apply(to fd: Int32, remote: SocketAddress) throws(SocketError) {
        if let device {
            let bytes = Array(device.utf8) + [0]
            let result = bytes.withUnsafeBufferPointer { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0.baseAddress, socklen_t($0.count)) }
            if result != 0 { throw SocketError(kind: .other, errno: errno, syscall: "SO_BINDTODEVICE", host: device) }
        }
        if fastOpen {
            var one: Int32 = 1
            // TCP_FASTOPEN_CONNECT (linux/tcp.h: 30); a kernel without it leaves a normal connect.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), 30, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard localAddress != nil || localPorts != nil else { return }
        var local = localAddress ?? SocketAddress(parsing: remote.family == .ipv6 ? "::" : "0.0.0.0", port: 0)!
        guard local.family == remote.family else { throw SocketError(kind: .other, errno: EAFNOSUPPORT, syscall: "bind") }
        let ports = localPorts ?? 0...0
        var lastError: Int32 = 0
        for port in ports {
            local = local.withPort(port)
            if local.withSockAddr({ bind(fd, $0, $1) }) == 0 { return }
            lastError = errno
            guard lastError == EADDRINUSE else { break }
        }
        throw SocketError(kind: .other, errno: lastError, syscall: "bind")
    }
}
