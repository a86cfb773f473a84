// Reroutes (curl's `--connect-to HOST1:PORT1:HOST2:PORT2`): connections for a URL's host and port
// go to another host and port, which is then resolved (or overridden) as usual. As with address
// overrides, only the connector sees the target: the pool key, `Host`, TLS server name and the
// certificate check keep the URL's host, so a reroute cannot weaken server trust.

extension HostResolver {
    /// One reroute: a pattern on the URL's host and port, and where to connect instead.
    struct Reroute: Sendable, CustomStringConvertible {
        /// The URL host it applies to (normalized), or `nil` for every host.
        var host: String?
        /// The URL port it applies to, or `nil` for every port.
        var port: Int?
        /// The host to connect to, or `nil` to keep the URL's.
        var targetHost: String?
        /// The port to connect to, or `nil` to keep the URL's.
        var targetPort: Int?

        /// Whether it applies to a connection for `host` (normalized) and `port`.
        func matches(host: String, port: Int) -> Bool {
            (self.host == nil || self.host == host) && (self.port == nil || self.port == port)
        }

        /// `host:port->host:port`, `*` where a part is open or kept.
        var description: String {
            func part(_ host: String?, _ port: Int?) -> String {
                let name = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "*"
                return "\(name):\(port.map(String.init) ?? "*")"
            }
            return "\(part(host, port))->\(part(targetHost, targetPort))"
        }
    }

    /// Connects to `targetHost`:`targetPort` whenever a URL names `host`:`port` (curl's
    /// `--connect-to`): a service reached under its production name on a staging machine, a
    /// host behind a load balancer's port. The target is resolved like any host (with this
    /// resolver's address overrides, so `--resolve` and `--connect-to` combine as in curl);
    /// `Host`, the TLS server name and the certificate check keep the URL's host.
    ///
    /// Reroutes are tried in the order they were added and the first that matches applies (one
    /// that changes neither host nor port is passed over, as in curl).
    ///
    /// - Parameters:
    ///   - host: The URL host to reroute (case-insensitive, IPv6 with or without brackets), or
    ///     `nil` for every host.
    ///   - port: The URL port to reroute, or `nil` for every port.
    ///   - targetHost: The host to connect to, or `nil` to keep the URL's.
    ///   - targetPort: The port to connect to, or `nil` to keep the URL's.
    public mutating func reroute(host: String?, port: Int?, toHost targetHost: String?, port targetPort: Int?) {
        reroutes.append(Reroute(
            host: host.map(HostResolver.normalized), port: port,
            targetHost: targetHost.map(HostResolver.normalized), targetPort: targetPort
        ))
    }

    /// Where a connection for a URL's `host` and `port` goes: the first matching reroute's
    /// target, or the URL's own host and port.
    ///
    /// - Parameters:
    ///   - host: The URL's host.
    ///   - port: The URL's port (the scheme's default when the URL has none).
    /// - Returns: The host and port to connect to.
    public func connectionTarget(host: String, port: Int) -> (host: String, port: Int) {
        let name = HostResolver.normalized(host)
        let reroute = reroutes.first { $0.matches(host: name, port: port) && ($0.targetHost != nil || $0.targetPort != nil) }
        guard let reroute else { return (host, port) }
        return (reroute.targetHost ?? host, reroute.targetPort ?? port)
    }
}
