// Per-Session name-resolution overrides (curl's `--resolve HOST:PORT:ADDR`): the socket connects
// to a fixed address while everything above TCP keeps the URL's host name. The pool key, the
// `Host` header, TLS SNI, the certificate's host check and the ServerTrustManager lookup all use
// the name from the URL; only the Connector is handed the override, so "connect here, verify
// that" cannot drift apart.

import EventLoop

/// Where a ``Session`` connects for a host name: the system resolver, fixed IP addresses, or a
/// Unix domain socket.
///
/// Overriding resolution changes only the address the TCP connection is made to. The request is
/// otherwise the one the URL describes: the `Host` header, the TLS server name (SNI) and the
/// certificate check all use the URL's host, so an override cannot weaken server trust. Use it
/// to reach a staging server under its production name, to test against loopback, or to pin a
/// service to known addresses (curl's `--resolve`).
///
/// ```swift
/// var resolver = HostResolver.system
/// try resolver.override(host: "api.example.com", port: 443, addresses: ["10.0.0.7"])
/// let session = Session(resolver: resolver)
/// ```
///
/// Host names match case-insensitively; an override for a specific port wins over one for any
/// port. IP-literal URLs are connected to as written unless an override names that literal.
public struct HostResolver: Sendable, CustomStringConvertible {
    /// An address string that is not an IPv4 or IPv6 literal.
    public struct InvalidAddress: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text that was given.
        public let address: String
        /// The host it was given for.
        public let host: String

        /// `"<address>" is not an IP address (for <host>)`.
        public var description: String { "\"\(address)\" is not an IPv4 or IPv6 address (override for \(host))" }
    }

    /// An override's scope: one port, or every port of the host.
    private struct Key: Hashable, Sendable {
        var host: String
        var port: Int?
    }

    /// Overrides, with addresses parsed once (port 0: the connect call supplies the port).
    private var overrides: [Key: [SocketAddress]] = [:]

    /// Connection targets in place of a URL's host and port, first match wins (see
    /// `HostResolver+Reroute.swift`).
    var reroutes: [Reroute] = []

    /// The system resolver for every host, no overrides.
    public static let system = HostResolver()

    /// Creates a resolver without overrides (the same as ``system``).
    public init() {}

    /// Creates a resolver with fixed addresses for some hosts, on every port.
    ///
    /// - Parameter overrides: Host name to IP address literals (`"127.0.0.1"`, `"::1"` or
    ///   `"[::1]"`), tried in order with Happy Eyeballs as resolved addresses would be. An empty
    ///   list removes nothing and overrides nothing.
    /// - Throws: ``InvalidAddress`` for the first string that is not an IP literal.
    public init(overrides: [String: [String]]) throws(InvalidAddress) {
        for (host, addresses) in overrides.sorted(by: { $0.key < $1.key }) {
            try override(host: host, addresses: addresses)
        }
    }

    /// Connects to `addresses` instead of resolving `host`.
    ///
    /// - Parameters:
    ///   - host: The host name (or IP literal) as it appears in URLs; matched case-insensitively.
    ///   - port: Only for this port; `nil` (the default) for every port. A port-specific entry
    ///     wins over a host-wide one.
    ///   - addresses: IPv4 or IPv6 literals, IPv6 with or without brackets. An empty list removes
    ///     the override for that scope.
    /// - Throws: ``InvalidAddress`` when a string is not an IP literal; nothing is changed then.
    public mutating func override(host: String, port: Int? = nil, addresses: [String]) throws(InvalidAddress) {
        var parsed: [SocketAddress] = []
        for text in addresses {
            var literal = Substring(text)
            if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
            guard let address = try? SocketAddress(ipAddress: String(literal), port: 0) else {
                throw InvalidAddress(address: text, host: host)
            }
            parsed.append(address)
        }
        let key = Key(host: HostResolver.normalized(host), port: port)
        overrides[key] = parsed.isEmpty ? nil : parsed
    }

    /// Connects to the Unix domain socket at `path` instead of resolving `host` (curl's
    /// `--unix-socket`): the Docker Engine API at `/var/run/docker.sock`, a local service behind
    /// a socket file. The request is otherwise the URL's (`Host`, TLS server name and checks).
    ///
    /// - Parameters:
    ///   - host: The host name as it appears in URLs; `"*"` routes every host.
    ///   - port: Only for this port; `nil` (the default) for every port.
    ///   - path: The socket's file system path (at most 107 bytes).
    /// - Throws: ``InvalidAddress`` when the path is empty or too long.
    public mutating func overrideUnixSocket(host: String, port: Int? = nil, path: String) throws(InvalidAddress) {
        guard let address = try? SocketAddress(unixPath: path) else { throw InvalidAddress(address: path, host: host) }
        overrides[Key(host: HostResolver.normalized(host), port: port)] = [address]
    }

    /// Connects to the socket named `name` in Linux's abstract namespace instead of resolving
    /// `host` (curl's `--abstract-unix-socket`).
    ///
    /// - Parameters:
    ///   - host: The host name as it appears in URLs; `"*"` routes every host.
    ///   - port: Only for this port; `nil` (the default) for every port.
    ///   - name: The abstract name, without the leading NUL (at most 107 bytes).
    /// - Throws: ``InvalidAddress`` when the name is empty or too long.
    public mutating func overrideAbstractUnixSocket(host: String, port: Int? = nil, name: String) throws(InvalidAddress) {
        guard let address = try? SocketAddress(abstractUnixName: name) else { throw InvalidAddress(address: name, host: host) }
        overrides[Key(host: HostResolver.normalized(host), port: port)] = [address]
    }

    /// The addresses a connection to `host`:`port` will use instead of resolving, if overridden.
    ///
    /// - Parameters:
    ///   - host: The URL's host.
    ///   - port: The port being connected to.
    /// - Returns: The IP literals in order, or `nil` when the host is resolved normally.
    public func overriddenAddresses(host: String, port: Int) -> [String]? {
        socketAddresses(host: host, port: port).map { $0.map(\.ipAddress) }
    }

    /// Whether any override or reroute is configured.
    public var isEmpty: Bool { overrides.isEmpty && reroutes.isEmpty }

    /// `system`, or the overrides as `host:port:address,address` lines (curl's spelling, `*` for
    /// any port), then the reroutes as `host:port->host:port` in order.
    public var description: String {
        guard !isEmpty else { return "system" }
        let lines = overrides
            .map { entry in
                let addresses = entry.value.map { address in
                    switch address.family {
                    case .ipv6: "[\(address.ipAddress)]"
                    case .unix: "unix:\(address.ipAddress)"
                    case .ipv4: address.ipAddress
                    }
                }
                return "\(entry.key.host):\(entry.key.port.map(String.init) ?? "*"):\(addresses.joined(separator: ","))"
            }
            .sorted()
        return (lines + reroutes.map(\.description)).joined(separator: " ")
    }

    /// The override for a connection, port-specific first.
    func socketAddresses(host: String, port: Int) -> [SocketAddress]? {
        guard !overrides.isEmpty else { return nil }
        let name = HostResolver.normalized(host)
        return overrides[Key(host: name, port: port)] ?? overrides[Key(host: name, port: nil)]
            ?? overrides[Key(host: "*", port: port)] ?? overrides[Key(host: "*", port: nil)]
    }

    /// Lower case, without IPv6 brackets or a trailing dot, so `API.example.com.` finds `api.example.com`.
    static func normalized(_ host: String) -> String {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") && name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.count > 1 && name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }
}
