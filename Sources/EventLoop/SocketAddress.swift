// SocketAddress: an IPv4 or IPv6 address plus a TCP port, or a Unix domain socket path, as a
// plain Swift value.
//
// No C type appears in the public surface (STYLE.md §1); the sockaddr conversions are
// internal and scoped (`withSockAddr`), so no pointer to the storage escapes.
internal import CLinux
internal import Glibc

/// An IPv4 or IPv6 address with a port, or a Unix domain socket: where a ``Socket`` connects to or
/// is bound at.
///
/// Printed as `127.0.0.1:8080`, `[::1]:8080`, `unix:/var/run/docker.sock` or `unix:@name` (an
/// abstract socket).
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Hashable, Sendable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
        /// A Unix domain socket (`AF_UNIX`): a path, or a name in Linux's abstract namespace.
        case unix
    }

    /// The longest Unix socket path or abstract name, in bytes: `sun_path` holds 108 bytes, one
    /// of which is the path's terminating NUL (or the abstract name's leading one).
    public static let maxUnixPathLength = 107

    /// Address bytes in network order; the port is kept in host order.
    private enum Storage: Hashable {
        case v4(UInt32)
        case v6(high: UInt64, low: UInt64, scopeID: UInt32)
        /// The path's bytes (no NUL), or an abstract name's (without its leading NUL).
        case unix(path: [UInt8], abstract: Bool)
    }

    private var storage: Storage
    private var rawPort: UInt16

    /// Parses an IP address literal (`"127.0.0.1"`, `"::1"`) and pairs it with a port.
    ///
    /// Host names are not resolved here; use ``Connector`` for names.
    /// - Parameters:
    ///   - ipAddress: A dotted-quad IPv4 or textual IPv6 literal, without brackets or zone.
    ///   - port: The TCP port, 0...65535.
    /// - Throws: ``SocketError`` of kind ``SocketError/Kind/invalidAddress`` if either is invalid.
    public init(ipAddress: String, port: Int) throws(SocketError) {
        guard let parsed = SocketAddress(parsing: ipAddress, port: port) else {
            throw SocketError(kind: .invalidAddress, syscall: "inet_pton", host: ipAddress)
        }
        self = parsed
    }

    /// Parses an IP literal, returning nil for anything else (host names included).
    init?(parsing text: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.storage = .v4(v4.s_addr)
            self.rawPort = UInt16(port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.storage = Self.storage(of: v6, scopeID: 0)
            self.rawPort = UInt16(port)
            return
        }
        return nil
    }

    /// A Unix domain socket at `path` (`/var/run/docker.sock`).
    ///
    /// - Parameter path: A file system path of 1...``maxUnixPathLength`` bytes, without NUL.
    /// - Throws: ``SocketError`` of kind ``SocketError/Kind/invalidAddress`` otherwise.
    public init(unixPath path: String) throws(SocketError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxUnixPathLength, !bytes.contains(0) else {
            throw SocketError(kind: .invalidAddress, syscall: "connect", host: path)
        }
        self.storage = .unix(path: bytes, abstract: false)
        self.rawPort = 0
    }

    /// A socket in Linux's abstract namespace (curl's `--abstract-unix-socket`): `name` without the
    /// leading NUL, which this adds.
    ///
    /// - Parameter name: 1...``maxUnixPathLength`` bytes.
    /// - Throws: ``SocketError`` of kind ``SocketError/Kind/invalidAddress`` otherwise.
    public init(abstractUnixName name: String) throws(SocketError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxUnixPathLength else {
            throw SocketError(kind: .invalidAddress, syscall: "connect", host: name)
        }
        self.storage = .unix(path: bytes, abstract: true)
        self.rawPort = 0
    }

    /// `127.0.0.1` with the given port.
    ///
    /// - Parameter port: The TCP port, 0...65535.
    /// - Returns: The IPv4 loopback address.
    public static func ipv4Loopback(port: Int) -> SocketAddress {
        SocketAddress(storage: .v4(UInt32(0x7F00_0001).bigEndian), port: port)
    }

    /// `::1` with the given port.
    ///
    /// - Parameter port: The TCP port, 0...65535.
    /// - Returns: The IPv6 loopback address.
    public static func ipv6Loopback(port: Int) -> SocketAddress {
        SocketAddress(storage: .v6(high: 0, low: UInt64(1).bigEndian, scopeID: 0), port: port)
    }

    private init(storage: Storage, port: Int) {
        precondition((0...65535).contains(port), "port \(port) out of range")
        self.storage = storage
        self.rawPort = UInt16(port)
    }

    /// IPv4 or IPv6.
    public var family: Family {
        switch storage {
        case .v4: return .ipv4
        case .v6: return .ipv6
        case .unix: return .unix
        }
    }

    /// The TCP port (0...65535); 0 for a Unix domain socket.
    public var port: Int { Int(rawPort) }

    /// The same IP address with another port.
    ///
    /// - Parameter port: The new port, 0...65535 (traps otherwise).
    /// - Returns: A copy with `port` replaced; a Unix domain socket is returned unchanged.
    public func withPort(_ port: Int) -> SocketAddress {
        if case .unix = storage { return self }
        return SocketAddress(storage: storage, port: port)
    }

    /// The address alone in textual form: `127.0.0.1` or `::1` (with `%scope` when set); a Unix
    /// socket's path, or `@name` for an abstract one.
    public var ipAddress: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch storage {
        case .unix(let path, let abstract):
            return (abstract ? "@" : "") + String(decoding: path, as: UTF8.self)
        case .v4(let raw):
            var addr = in_addr(s_addr: raw)
            _ = inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
            return Self.string(from: buffer)
        case .v6(_, _, let scope):
            var addr = in6Address
            _ = inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
            let text = Self.string(from: buffer)
            return scope == 0 ? text : "\(text)%\(scope)"
        }
    }

    /// `address:port`, with IPv6 addresses in brackets.
    public var description: String {
        switch storage {
        case .v4: return "\(ipAddress):\(port)"
        case .v6: return "[\(ipAddress)]:\(port)"
        case .unix: return "unix:\(ipAddress)"
        }
    }

    // MARK: sockaddr conversion (internal)

    private static func string(from buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func storage(of addr: in6_addr, scopeID: UInt32) -> Storage {
        var copy = addr
        return withUnsafeBytes(of: &copy) { raw in
            .v6(high: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                low: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                scopeID: scopeID)
        }
    }

    private var in6Address: in6_addr {
        guard case .v6(let high, let low, _) = storage else { preconditionFailure("not an IPv6 address") }
        var addr = in6_addr()
        withUnsafeMutableBytes(of: &addr) { raw in
            raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        return addr
    }

    /// The `AF_*` constant for `socket(2)`.
    var addressFamily: Int32 {
        switch storage {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        case .unix: return AF_UNIX
        }
    }

    /// Calls `body` with a `sockaddr` view of this address and its length; the pointer must not escape.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch storage {
        case .v4(let raw):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = rawPort.bigEndian
            sin.sin_addr = in_addr(s_addr: raw)
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(_, _, let scope):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = rawPort.bigEndian
            sin6.sin6_addr = in6Address
            sin6.sin6_scope_id = scope
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        case .unix(let path, let abstract):
            var sun = sockaddr_un()
            sun.sun_family = sa_family_t(AF_UNIX)
            let start = abstract ? 1 : 0  // an abstract name follows a NUL; a path ends with one
            withUnsafeMutableBytes(of: &sun.sun_path) { raw in
                for (index, byte) in path.enumerated() { raw[start + index] = byte }
            }
            // The length covers the family and exactly the name (abstract) or path and its NUL.
            let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count + 1
            return withUnsafePointer(to: &sun) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
            }
        }
    }

    /// Reads an address from a `sockaddr` filled in by the kernel or `getaddrinfo`.
    ///
    /// - Returns: nil for families other than IPv4 and IPv6, or a too-short length.
    init?(sockaddr pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET where Int(length) >= MemoryLayout<sockaddr_in>.size:
            let sin = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in.self)
            self.storage = .v4(sin.sin_addr.s_addr)
            self.rawPort = UInt16(bigEndian: sin.sin_port)
        case AF_INET6 where Int(length) >= MemoryLayout<sockaddr_in6>.size:
            let sin6 = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in6.self)
            self.storage = Self.storage(of: sin6.sin6_addr, scopeID: sin6.sin6_scope_id)
            self.rawPort = UInt16(bigEndian: sin6.sin6_port)
        case AF_UNIX:
            let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
            let count = max(0, Int(length) - offset)
            let raw = UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer) + offset, count: count)
            if let first = raw.first, first == 0, count > 1 {
                self.storage = .unix(path: Array(raw.dropFirst()), abstract: true)
            } else {
                self.storage = .unix(path: Array(raw.prefix { $0 != 0 }), abstract: false)
            }
            self.rawPort = 0
        default:
            return nil
        }
    }

    /// Fills a `sockaddr_storage` via `fill` (for `getsockname`/`getpeername`) and reads it back.
    static func fromKernel(_ fill: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                guard fill(sa, &length) == 0 else { return nil }
                return SocketAddress(sockaddr: sa, length: length)
            }
        }
    }
}
