// Name resolution on its own, for callers that need an address without a connection (a
// SOCKS5 proxy told the origin's address, `socks5://`).

extension Connector {
    /// Resolves `host` on the resolver threads (never on a loop) and calls `completion` on `loop`
    /// with the addresses, in getaddrinfo's order, carrying `port`. An IP literal (IPv6 with or
    /// without brackets) or an entry of ``addressOverrides`` answers without a lookup.
    ///
    /// - Parameters:
    ///   - host: Name or IP literal.
    ///   - port: The port the addresses carry.
    ///   - loop: Where `completion` runs.
    ///   - completion: Called once, after this method returns, with the addresses or a
    ///     ``SocketError`` (``SocketError/Kind/hostNotFound``, …).
    public func resolve(
        host: String, port: Int, on loop: EventLoop,
        _ completion: @escaping @Sendable (Result<[SocketAddress], SocketError>) -> Void
    ) {
        if let overrides = addressOverrides[host] {
            let addresses = overrides.map { $0.withPort(port) }
            return loop.execute { completion(.success(addresses)) }
        }
        var literal = Substring(host)
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if let address = SocketAddress(parsing: String(literal), port: port) {
            return loop.execute { completion(.success([address])) }
        }
        Resolver.shared.resolve(host: host, port: port) { result in
            loop.execute { completion(result) }
        }
    }
}
