#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import EventLoop
import Wire
import Transport

/// A WebSocket (RFC 6455) connection, as Alamofire's `WebSocketRequest`, on Lariat's transport.
///
/// The request goes out as an HTTP/1.1 `GET` offering `Upgrade: websocket` (`ws://` is sent as
/// `http://`, `wss://` as `https://`, through the session's TLS, trust evaluation and proxies).
/// The server's `101` is checked (`Sec-WebSocket-Accept`, the subprotocol, extensions); then the
/// connection leaves the pool and carries frames until either side closes. The request finishes
/// when the connection does: handlers hear `.connected`, each message, `.disconnected` with the
/// close code, then `.completed`.
///
/// Every frame sent is masked; pings from the server are answered; a message larger than
/// ``Configuration/maximumMessageSize`` fails the connection with close code 1009; a connection
/// lost without a close frame reports 1006 and completes with an error.
public final class WebSocketRequest: Request, @unchecked Sendable {
    // @unchecked Sendable: the superclass's rule holds: the socket's state is in `socket`, a
    // Mutex; the rest are `let`s of Sendable types. The connection itself is reached only on its
    // loop, through `LoopBound`.

    /// What the request was built from.
    public let convertible: any URLRequestConvertible
    /// The subprotocol, message size limit and ping interval.
    public let configuration: Configuration
    private let modifier: RequestModifier?
    /// `nil`: the session's `startRequestsImmediately` decides.
    private let autoResume: Bool?

    /// What one stream handler hears before the completion.
    enum SocketEvent: Sendable {
        case connected(String?)
        case message(URLSessionWebSocketTask.Message)
        case disconnected(URLSessionWebSocketTask.CloseCode, Data?)
    }

    /// Where the socket is.
    enum Phase {
        /// Before the `101`: sends wait in `pendingSends`.
        case connecting
        /// The connection runs.
        case open(LoopBound<WebSocketConnection>)
        /// The connection ended (or never opened).
        case closed
    }

    struct SocketState {
        var phase: Phase = .connecting
        /// The current attempt's offer (a retry makes a new key).
        var handshake: WebSocketHandshake?
        var sinks: [@Sendable (SocketEvent) -> Void] = []
        var pendingSends: [(opcode: WebSocketOpcode, payload: [UInt8], done: @Sendable (TransportError?) -> Void)] = []
        /// Pings awaiting their pong, oldest first (pongs answer in order, RFC 6455 §5.5.3).
        var pings: [(start: Date, respond: @Sendable (PingResponse) -> Void)] = []
        /// Whether a `101` was accepted on this request.
        var connected = false
        /// Message bytes handed to handlers and not yet handled (WebSocketRequest+BackPressure.swift).
        var flow = StreamFlowControl(highWater: WebSocketRequest.maxBufferedBytes, lowWater: WebSocketRequest.maxBufferedBytes / 2)
    }
    let socket = Mutex(SocketState())

    init(convertible: any URLRequestConvertible, configuration: Configuration, modifier: RequestModifier?,
         shouldAutomaticallyResume: Bool?, interceptor: (any RequestInterceptor)?, context: RequestContext) {
        self.convertible = convertible
        self.configuration = configuration
        self.modifier = modifier
        self.autoResume = shouldAutomaticallyResume
        super.init(context: context, interceptor: interceptor, queueLabel: "org.lariat.websocket-request")
    }

    override var startsOnFirstHandler: Bool { autoResume ?? context.startRequestsImmediately }

    /// The URLRequest with the opening handshake's fields (RFC 6455 §4.1), `ws`/`wss` sent as
    /// `http`/`https`.
    override func makeURLRequest() throws -> URLRequest {
        var request = try convertible.asURLRequest()
        try modifier?(&request)
        if let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
           var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.scheme = scheme == "ws" ? "http" : "https"
            request.url = components.url
        }
        let subprotocols = configuration.protocol.map { list in
            list.split(separator: ",").map { element in
                String(element.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            }.filter { !$0.isEmpty }
        } ?? []
        let handshake = try WebSocketHandshake(subprotocols: subprotocols, deflate: configuration.deflate)
        socket.withLock { $0.handshake = handshake }
        for field in handshake.requestFields { request.setValue(field.value, forHTTPHeaderField: field.name) }
        return request
    }

    override func transportUpgrade() -> TransportUpgrade? {
        TransportUpgrade { [weak self] upgraded in
            guard let self else {
                upgraded.socket.close()
                return upgraded.exchange.complete(.failure(TransportError(.cancelled, "the request is gone"), upgraded.summary))
            }
            accept(upgraded)
        }
    }

    /// A response that is not a `101` ends the request: Alamofire's (URLSession's) answer is a
    /// failed task, `badServerResponse`.
    override func didComplete() {
        mutable.withLock { state in
            guard state.error == nil, !socket.withLock({ $0.connected }) else { return }
            let status = state.response?.statusCode ?? 0
            let refusal = WebSocketHandshakeError(.status, "status \(status), not 101")
            let failure = TransportError(.malformedResponse, "\(refusal)", underlying: refusal)
            state.error = .sessionTaskFailed(error: URLError.lariat(failure.urlErrorCode, underlying: failure, url: state.request?.url))
        }
    }

    // MARK: The hand-off (on the connection's loop)

    /// Checks the `101` and runs the connection, or fails the exchange with the broken rule.
    private func accept(_ upgraded: UpgradedConnection) {
        var headers = HTTPHeaders()
        for field in upgraded.head.fields { headers.appendField(name: field.name, value: field.value) }
        let agreement: WebSocketHandshake.Agreement
        do throws(WebSocketHandshakeError) {
            guard let handshake = socket.withLock({ $0.handshake }) else {
                throw WebSocketHandshakeError(.offer, "no offer was made")
            }
            agreement = try handshake.validate(status: upgraded.head.status, headers: headers)
        } catch {
            upgraded.socket.close()
            return upgraded.exchange.complete(.failure(TransportError(.malformedResponse, "\(error)", underlying: error), upgraded.summary))
        }
        let size = max(configuration.maximumMessageSize, 1)
        let exchange = upgraded.exchange
        let summary = upgraded.summary
        let interval = configuration.pingInterval.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }
        let limits = WebSocketLimits(maxFramePayloadSize: size, maxMessageSize: size)
        let connection = WebSocketConnection(upgraded, limits: limits, pingInterval: interval, deflate: agreement.deflate) { [weak self] event in
            guard let self else { return }
            if case .finished(let error) = event {
                closed(error)
                exchange.complete(error.map { .failure($0, summary) } ?? .end(summary))
            } else {
                received(event)
            }
        }
        let bound = LoopBound(connection, loop: connection.loop)
        let (sinks, pending) = socket.withLock { state in
            state.connected = true
            state.phase = .open(bound)
            defer { state.pendingSends.removeAll() }
            return (state.sinks, state.pendingSends)
        }
        for sink in sinks { sink(.connected(agreement.subprotocol)) }
        connection.start()
        for send in pending { connection.send(send.opcode, send.payload, completion: send.done) }
    }

    /// A connection event other than the end.
    func received(_ event: WebSocketConnectionEvent) {
        let socketEvent: SocketEvent
        switch event {
        case .message(.text(let text)): return deliver(.string(text), size: text.utf8.count)
        case .message(.binary(let bytes)): return deliver(.data(Data(bytes)), size: bytes.count)
        case .disconnected(let code, let reason):
            socketEvent = .disconnected(URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .invalid,
                                        reason.isEmpty ? nil : Data(reason))
        case .pong:
            let ping = socket.withLock { $0.pings.isEmpty ? nil : $0.pings.removeFirst() }
            if let ping { ping.respond(.pong(PingResponse.Pong(start: ping.start, end: Date()))) }
            return
        case .finished:
            return
        }
        for sink in socket.withLock({ $0.sinks }) { sink(socketEvent) }
    }

    /// The connection ended: sends still waiting and pings never answered are told so.
    private func closed(_ error: TransportError?) {
        let (pending, pings) = socket.withLock { state in
            state.phase = .closed
            defer { state.pendingSends.removeAll(); state.pings.removeAll() }
            return (state.pendingSends, state.pings)
        }
        let lost = TransportError(.connectionLost, "the WebSocket closed")
        for send in pending { send.done(error ?? lost) }
        for ping in pings { ping.respond(.error(Self.afError(error ?? lost))) }
    }

    static func afError(_ error: TransportError) -> AFError {
        error.kind == .cancelled ? .explicitlyCancelled : .sessionTaskFailed(error: URLError.lariat(error.urlErrorCode, underlying: error, url: nil))
    }

    // MARK: Intents

    /// Sends `opcode` with `payload` once the connection is open (at once if it is).
    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], done: @escaping @Sendable (TransportError?) -> Void) {
        let connection: LoopBound<WebSocketConnection>? = socket.withLock { state in
            switch state.phase {
            case .connecting:
                state.pendingSends.append((opcode, payload, done))
                return nil
            case .open(let connection):
                return connection
            case .closed:
                return nil
            }
        }
        if let connection {
            connection.loop.execute { connection.value.send(opcode, payload, completion: done) }
        } else if case .closed = socket.withLock({ $0.phase }) {
            done(TransportError(.connectionLost, "the WebSocket is closed"))
        }
    }

    /// The open connection, if any.
    var openConnection: LoopBound<WebSocketConnection>? {
        socket.withLock { if case .open(let connection) = $0.phase { connection } else { nil } }
    }

    /// Cancels the request; an open connection is closed at once, without a close frame.
    @discardableResult
    public override func cancel() -> Self {
        super.cancel()
        if let connection = openConnection { connection.loop.execute { connection.value.cancel() } }
        return self
    }

    /// The completion as it stands.
    var completion: Completion {
        mutable.withLock { Completion(request: $0.request, response: $0.response, metrics: $0.metricsTask?.collectedMetrics, error: $0.error) }
    }
}
