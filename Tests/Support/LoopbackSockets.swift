// Blocking loopback socket helpers for test servers: listen, accept with a timeout, read with a
// timeout, send everything, reset; plus `refusedPort()` and `FullBacklogListener`.
import Glibc

/// Which loopback address a test server binds.
public enum LoopbackFamily: Sendable, Hashable {
    /// `127.0.0.1`.
    case ipv4
    /// `::1`.
    case ipv6

    /// The address as text (`127.0.0.1` or `::1`).
    public var host: String { self == .ipv4 ? "127.0.0.1" : "::1" }
}

/// A failure setting up a test server socket, with the call and errno.
public struct TestServerError: Error, CustomStringConvertible {
    /// The failed call.
    public let call: String
    /// Its errno.
    public let errno: Int32

    /// `call failed: errno N (text)`.
    public var description: String { "\(call) failed: errno \(errno) (\(String(cString: strerror(errno))))" }
}

/// Low-level helpers shared by the test servers. Every fd they return is the caller's to close.
enum Loopback {
    /// A TCP socket bound to the loopback address of `family` on `port` (0 = ephemeral).
    static func boundSocket(_ family: LoopbackFamily, port: Int = 0) throws(TestServerError) -> Int32 {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError(call: "socket", errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let result: Int32
        if family == .ipv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw TestServerError(call: "bind", errno: code)
        }
        return fd
    }

    /// The port a bound socket got.
    static func port(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port both sit at offset 2, in network order.
            Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    /// Waits until `fd` is readable (or hung up); false on timeout.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return true }  // let the following call report the error
        }
    }

    /// One `recv` of up to `capacity` bytes: the bytes, `[]` at end of stream, nil on error.
    static func receive(_ fd: Int32, capacity: Int = 65536) -> [UInt8]? {
        while true {
            var failed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                let count = recv(fd, buffer.baseAddress, capacity, 0)
                initialized = max(count, 0)
                failed = count < 0
            }
            if !failed { return bytes }
            if errno != EINTR { return nil }
        }
    }

    /// Sends every byte (blocking); false if the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Closes with `SO_LINGER` {on, 0}: the kernel sends RST instead of FIN.
    static func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }
}

/// A loopback port on which nothing listens (bound, then closed), for "connection refused" tests.
///
/// - Parameter family: Which loopback address, IPv4 by default.
/// - Returns: The port number.
public func refusedPort(family: LoopbackFamily = .ipv4) -> Int {
    guard let fd = try? Loopback.boundSocket(family) else { preconditionFailure("cannot bind a loopback socket") }
    let port = Loopback.port(of: fd)
    close(fd)
    return port
}

/// A listening socket whose accept queue is full and never drained, so further connection
/// attempts hang in SYN-SENT: a loopback-only way to make a connect time out.
///
/// `listen(fd, 0)` admits one established connection into the accept queue; two filler clients
/// take it (the second stays in SYN-SENT), after which Linux drops every new SYN. Call ``close()``.
public final class FullBacklogListener: @unchecked Sendable {
    // @unchecked Sendable: the fds are set in init and only closed by close(), which the test
    // calls once from one place.

    /// The listening port on `127.0.0.1`.
    public let port: Int
    private var fds: [Int32]

    /// Binds, listens with backlog 0 and fills the queue.
    ///
    /// - Throws: ``TestServerError`` if the sockets cannot be set up.
    public init() throws(TestServerError) {
        let listener = try Loopback.boundSocket(.ipv4)
        guard listen(listener, 0) == 0 else {
            let code = errno
            Glibc.close(listener)
            throw TestServerError(call: "listen", errno: code)
        }
        port = Loopback.port(of: listener)
        fds = [listener]
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard client >= 0 else { continue }
            fds.append(client)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        usleep(20_000)  // let the handshakes that can complete, complete
    }

    /// Closes the listener and the filler clients.
    public func close() {
        for fd in fds { Glibc.close(fd) }
        fds = []
    }

    deinit { close() }
}
