// Connector: resolve a host, race its addresses (Happy Eyeballs), hand over one connected Socket.
//
// `ConnectDriver` performs the actions of `HappyEyeballsStateMachine` (the only code here that
// does I/O): it asks the resolver pool, opens sockets, arms the overall and next-attempt timers,
// and closes every losing or abandoned socket exactly once. The completion runs exactly once, on
// the loop, and never before `connect` has returned (a synchronous outcome is deferred one tick).
// Exception: if the loop shuts down while the name is still being resolved, the resolver's answer
// is discarded with the loop's other late tasks and the completion is not called.

/// Opens TCP connections on an ``EventLoop``: name resolution off the loop, IPv4 and IPv6,
/// every address tried (RFC 8305 Happy Eyeballs), `TCP_NODELAY`, an overall timeout.
public struct Connector: Sendable {
    /// The whole operation's time limit (resolution plus every attempt), from the call to
    /// `connect`. Defaults to 60 seconds, `URLRequest`'s default timeout. Any value is accepted:
    /// zero or negative fails with ``SocketError/Kind/timedOut`` without trying (after `connect`
    /// returns, like every outcome); a huge one saturates at ``Deadline/distantFuture``.
    public var timeout: Duration
    /// A point by which the operation must also be over, whichever of it and ``timeout`` comes
    /// first (a request's total deadline). ``Deadline/distantFuture`` (the default): none.
    public var deadline: Deadline
    /// How long an attempt may stay pending before the next address is tried in parallel
    /// (RFC 8305 "Connection Attempt Delay"). Defaults to 250 ms, the RFC's recommendation.
    public var attemptDelay: Duration
    /// Host names mapped to addresses to use instead of resolving them (curl's `--resolve`).
    /// Only the IP part of each address is used; the port comes from `connect`. Keys match the
    /// host exactly (case-sensitive). Empty by default.
    public var addressOverrides: [String: [SocketAddress]]
    /// Told, on the loop, when and for how long the host name was resolved (not called when no
    /// lookup was needed: IP literals and overrides). For timing metrics; `nil` by default.
    public var resolutionObserver: (@Sendable (_ started: Deadline, _ ended: Deadline) -> Void)? = nil
    /// What is done to each socket before it connects: local address and ports, interface,
    /// TCP Fast Open. Nothing by default.
    package var socketSetup = SocketSetup()

    /// Creates a connector.
    ///
    /// - Parameters:
    ///   - timeout: Overall limit, 60 s by default; zero or negative times out at once.
    ///   - deadline: A point the operation must also end by; none by default.
    ///   - attemptDelay: Delay before racing the next address, 250 ms by default.
    ///   - addressOverrides: Host-to-addresses map that bypasses resolution, empty by default.
    public init(
        timeout: Duration = .seconds(60),
        deadline: Deadline = .distantFuture,
        attemptDelay: Duration = .milliseconds(250),
        addressOverrides: [String: [SocketAddress]] = [:]
    ) {
        self.timeout = timeout
        self.deadline = deadline
        self.attemptDelay = attemptDelay
        self.addressOverrides = addressOverrides
    }

    /// Connects to `host`:`port` on `loop`. Loop-only.
    ///
    /// `host` may be a name (resolved on the resolver pool), an IPv4 literal, or an IPv6 literal
    /// with or without brackets; an entry in ``addressOverrides`` wins over both.
    /// - Parameters:
    ///   - host: Name or IP literal.
    ///   - port: TCP port, 0...65535 (otherwise the completion gets ``SocketError/Kind/invalidAddress``).
    ///   - loop: The loop the socket will live on; the call must be made on it.
    ///   - completion: Called once on `loop`, after this method returns, with the connected socket
    ///     (no handler, no interest set) or a ``SocketError``: ``SocketError/Kind/hostNotFound``,
    ///     ``SocketError/Kind/connectionRefused``, ``SocketError/Kind/timedOut``,
    ///     ``SocketError/Kind/cancelled``, …
    /// - Returns: A handle that can cancel the attempt from any thread.
    @discardableResult
    public func connect(
        host: String, port: Int, on loop: EventLoop,
        _ completion: @escaping (Result<Socket, SocketError>) -> Void
    ) -> ConnectAttempt {
        loop.preconditionInEventLoop()
        let driver = ConnectDriver(host: host, port: port, loop: loop, connector: self, completion: completion)
        driver.start(target(host: host, port: port))
        return ConnectAttempt(driver: LoopBound(driver, loop: loop))
    }

    /// Connects to one known address on `loop`, with this connector's timeout. Loop-only.
    ///
    /// - Parameters:
    ///   - address: Where to connect.
    ///   - loop: The loop the socket will live on; the call must be made on it.
    ///   - completion: As for ``connect(host:port:on:_:)``.
    /// - Returns: A handle that can cancel the attempt from any thread.
    @discardableResult
    public func connect(
        to address: SocketAddress, on loop: EventLoop,
        _ completion: @escaping (Result<Socket, SocketError>) -> Void
    ) -> ConnectAttempt {
        loop.preconditionInEventLoop()
        let driver = ConnectDriver(host: address.ipAddress, port: address.port, loop: loop, connector: self, completion: completion)
        driver.start(.addresses([address]))
        return ConnectAttempt(driver: LoopBound(driver, loop: loop))
    }

    /// Connects with a one-off configuration; see ``connect(host:port:on:_:)``. Loop-only.
    ///
    /// - Parameters:
    ///   - host: Name or IP literal.
    ///   - port: TCP port.
    ///   - loop: The loop the socket will live on; the call must be made on it.
    ///   - timeout: Overall limit; zero or negative times out at once.
    ///   - addressOverrides: Host-to-addresses map that bypasses resolution, empty by default.
    ///   - completion: Called once on `loop` with the socket or the error.
    /// - Returns: A handle that can cancel the attempt from any thread.
    @discardableResult
    public static func connect(
        host: String, port: Int, on loop: EventLoop, timeout: Duration,
        addressOverrides: [String: [SocketAddress]] = [:],
        _ completion: @escaping (Result<Socket, SocketError>) -> Void
    ) -> ConnectAttempt {
        Connector(timeout: timeout, addressOverrides: addressOverrides).connect(host: host, port: port, on: loop, completion)
    }

    /// Addresses known without a lookup (an override or a literal), or the need to resolve.
    private func target(host: String, port: Int) -> ConnectDriver.Target {
        guard (0...65535).contains(port) else {
            return .invalid(SocketError(kind: .invalidAddress, host: "\(host):\(port)"))
        }
        if let overrides = addressOverrides[host] {
            return .addresses(overrides.map { $0.withPort(port) })
        }
        var literal = Substring(host)
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if let address = SocketAddress(parsing: String(literal), port: port) { return .addresses([address]) }
        return .resolve
    }
}

/// A connection attempt in progress; ``cancel()`` it from any thread.
public final class ConnectAttempt: Sendable {
    private let driver: LoopBound<ConnectDriver>

    init(driver: LoopBound<ConnectDriver>) {
        self.driver = driver
    }

    /// The loop the attempt (and its socket) lives on.
    public var loop: EventLoop { driver.loop }

    /// Stops the attempt: in-flight sockets are closed and the completion receives
    /// ``SocketError/Kind/cancelled``, unless it already succeeded or failed (then nothing happens).
    /// Any thread; from elsewhere than the loop it takes effect on the loop's next iteration.
    public func cancel() {
        if driver.loop.inEventLoop {
            driver.value.abort(SocketError(kind: .cancelled))
        } else {
            driver.loop.execute { [driver] in driver.value.abort(SocketError(kind: .cancelled)) }
        }
    }
}
