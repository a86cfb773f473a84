// The driver of a proxy handshake (HTTP CONNECT, SOCKS5 or SOCKS4) on a freshly connected socket: it
// moves bytes between the socket and the state machine, enforces the connect deadline, and hands
// the socket over (with any bytes that followed the proxy's answer) once the tunnel is up.
// Everything here runs on the socket's loop.

import FoundationEssentials
import EventLoop

/// One proxy handshake in progress on `socket`.
final class ProxyTunnel: SocketHandler {
    /// The protocol spoken.
    enum Handshake {
        /// `CONNECT` to an HTTP proxy.
        case http(HTTPConnectStateMachine)
        /// SOCKS5.
        case socks(SOCKS5StateMachine)
        /// SOCKS4 or SOCKS4a.
        case socks4(SOCKS4StateMachine)
    }

    /// The tunnel's outcome: the bytes already received from the origin, or why it failed.
    typealias Completion = (Result<[UInt8], TransportError>) -> Void

    /// Connected to the proxy.
    let socket: Socket
    /// The socket's loop, where everything here runs.
    let loop: EventLoop
    /// The machine; `nil` before `start` and after the end.
    private var handshake: Handshake?
    /// Called once; `nil` after.
    private var completion: Completion?
    /// Bytes the machine asked to send that the socket has not taken yet.
    private var outgoing: [UInt8] = []
    /// The connect deadline's timer.
    private var timer: TimerID?
    /// Read buffer (the proxy's answers are small).
    private var scratch = [UInt8](repeating: 0, count: 4096)
    /// `kind://host:port` of the proxy, for errors.
    let proxy: String

    /// - Parameters:
    ///   - socket: Connected to the proxy.
    ///   - proxy: The proxy's description.
    ///   - deadline: When the whole connect (this handshake and the TLS one after it) must be done.
    ///   - completion: Called once on the loop. On success the socket is the caller's, with no
    ///     handler and no interest; on failure it is closed.
    init(socket: Socket, proxy: String, deadline: Deadline, completion: @escaping Completion) {
        self.socket = socket
        self.loop = socket.loop
        self.proxy = proxy
        self.completion = completion
        timer = loop.scheduleTimer(at: deadline) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.finish(.failure(TransportError(.timedOut, "the proxy \(proxy) did not open the tunnel in time")))
        }
    }

    /// Starts the handshake.
    func start(_ handshake: Handshake) {
        guard completion != nil else { return }  // timed out or cancelled while resolving
        var handshake = handshake
        let action: HandshakeAction
        switch handshake {
        case .http(var machine): action = HandshakeAction(machine.start()); handshake = .http(machine)
        case .socks(var machine): action = HandshakeAction(machine.start()); handshake = .socks(machine)
        case .socks4(var machine): action = HandshakeAction(machine.start()); handshake = .socks4(machine)
        }
        self.handshake = handshake
        socket.handler = self
        perform(action)
    }

    /// Fails the handshake with `error` before it started (the origin's name did not resolve).
    func fail(_ error: TransportError) {
        finish(.failure(error))
    }

    /// Stops the handshake: the completion gets `.cancelled`, unless it already ran.
    func cancel() {
        finish(.failure(TransportError(.cancelled, "cancelled while opening the proxy tunnel")))
    }

    // MARK: SocketHandler

    /// Reads what the proxy sent into the machine.
    func socketReadable(_ socket: Socket) {
        let result: ReadResult
        do throws(SocketError) {
            result = try scratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try socket.read(into: raw) }
            }.get()
        } catch {
            return finish(.failure(lost(error)))
        }
        switch result {
        case .bytes(let n): feed(Array(scratch[0..<n]))
        case .endOfStream: feed(nil)
        case .wouldBlock: return
        }
    }

    /// Sends what is left of the machine's last message.
    func socketWritable(_ socket: Socket) {
        flush()
    }

    /// The proxy reset the connection: the tunnel fails.
    func socketHungUp(_ socket: Socket, error: SocketError?) {
        finish(.failure(lost(error)))
    }

    // MARK: Driving

    /// The machines' actions, without their payload types.
    private enum HandshakeAction {
        /// See the machines' `Action`s.
        case send([UInt8]), read, established([UInt8]), fail(ProxyError)

        /// A CONNECT machine's action.

        init(_ action: HTTPConnectStateMachine.Action) {
            switch action {
            case .send(let bytes): self = .send(bytes)
            case .read: self = .read
            case .established(let leftover): self = .established(leftover)
            case .fail(let error): self = .fail(error)
            }
        }

        /// A SOCKS5 or SOCKS4 machine's action.
        init(_ action: SOCKS5StateMachine.Action) {
            switch action {
            case .send(let bytes): self = .send(bytes)
            case .read: self = .read
            case .established(let leftover): self = .established(leftover)
            case .fail(let error): self = .fail(error)
            }
        }
    }

    /// Bytes (or, for `nil`, the end of the stream) into the machine.
    private func feed(_ bytes: [UInt8]?) {
        guard let handshake else { return }
        let action: HandshakeAction
        switch handshake {
        case .http(var machine):
            action = HandshakeAction(bytes.map { machine.received($0) } ?? machine.endOfStream())
            self.handshake = .http(machine)
        case .socks(var machine):
            action = HandshakeAction(bytes.map { machine.received($0) } ?? machine.endOfStream())
            self.handshake = .socks(machine)
        case .socks4(var machine):
            action = HandshakeAction(bytes.map { machine.received($0) } ?? machine.endOfStream())
            self.handshake = .socks4(machine)
        }
        perform(action)
    }

    /// Carries out one action of the machine.
    private func perform(_ action: HandshakeAction) {
        switch action {
        case .send(let bytes):
            outgoing += bytes
            flush()
            // Answers that arrived ahead of this message wait in the machine.
            if completion != nil, case .socks(let machine) = handshake, machine.hasBufferedInput { feed([]) }
            if completion != nil, case .http(let machine) = handshake, machine.hasBufferedInput { feed([]) }
        case .read:
            socket.setReadInterest(true)
        case .established(let leftover):
            finish(.success(leftover))
        case .fail(let error):
            let kind: TransportError.Kind = .proxy
            finish(.failure(TransportError(kind, "\(error.detail) (proxy \(proxy))", underlying: error)))
        }
    }

    /// Writes `outgoing` until done or the socket is full (then waits for writability).
    private func flush() {
        while !outgoing.isEmpty {
            let result: WriteResult
            do throws(SocketError) {
                let socket = self.socket
                result = try outgoing.withUnsafeBytes { raw in
                    Result { () throws(SocketError) in try socket.write(raw) }
                }.get()
            } catch {
                return finish(.failure(lost(error)))
            }
            switch result {
            case .wrote(let n):
                outgoing.removeFirst(n)
            case .wouldBlock:
                return socket.setWriteInterest(true)
            }
        }
        socket.setWriteInterest(false)
        socket.setReadInterest(true)
    }

    /// The error for a connection to the proxy that broke.
    private func lost(_ error: SocketError?) -> TransportError {
        let proxyError = ProxyError(.closed, proxy: proxy, "the connection to the proxy broke: \(error.map { "\($0)" } ?? "hang-up")", underlying: error)
        return TransportError(.proxy, proxyError.detail, underlying: proxyError)
    }

    /// Ends the handshake once: the socket is handed back (success) or closed (failure).
    private func finish(_ result: Result<[UInt8], TransportError>) {
        guard let completion else { return }
        self.completion = nil
        handshake = nil
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if socket.isOpen {
            socket.setReadInterest(false)
            socket.setWriteInterest(false)
            socket.handler = nil
            if case .failure = result { socket.close() }
        }
        completion(result)
    }
}

extension TransportError {
    /// Classifies a failure to reach `proxy` itself (resolution or TCP).
    static func connectingToProxy(_ error: SocketError, proxy: ProxyServer) -> TransportError {
        switch error.kind {
        case .timedOut: return TransportError(.timedOut, "connecting to the proxy \(proxy) timed out", underlying: error)
        case .cancelled: return TransportError(.cancelled, "cancelled while connecting", underlying: error)
        case .hostNotFound:
            let proxyError = ProxyError(.proxyNotFound, proxy: "\(proxy)", "could not resolve proxy: \(proxy.host)", underlying: error)
            return TransportError(.proxy, proxyError.detail, underlying: proxyError)
        default:
            let proxyError = ProxyError(.proxyUnreachable, proxy: "\(proxy)", "failed to connect to \(proxy.host) port \(proxy.port): \(error)", underlying: error)
            return TransportError(.proxy, proxyError.detail, underlying: proxyError)
        }
    }
}

/// How a connection reaches its origin through a proxy.
package struct ProxyRoute: Hashable, Sendable {
    /// The proxy.
    package var server: ProxyServer
    /// Whether the proxy opens a tunnel (CONNECT, SOCKS5) rather than forwarding absolute-form
    /// requests (plain `http://` through an HTTP proxy).
    package var tunnels: Bool
    /// A SOCKS proxy in front of an HTTP or HTTPS ``server`` (curl's `--preproxy`): the TCP
    /// connection goes to it, and its tunnel to ``server`` carries everything else.
    package var preproxy: ProxyServer?

    package init(server: ProxyServer, tunnels: Bool, preproxy: ProxyServer? = nil) {
        self.server = server
        self.tunnels = tunnels
        self.preproxy = server.speaksHTTP && !(preproxy?.speaksHTTP ?? true) ? preproxy : nil
    }
}
