// One WebSocket connection after its 101, on the loop of the HTTP/1.1 connection it came from.
//
// The driver of `WebSocketConnectionStateMachine` (STYLE.md §3): it moves bytes between the
// socket (through the TLS engine for wss) and the Wire codec (`WebSocketParser`,
// `WebSocketSerializer`), and carries out the machine's actions; what a frame means, when to
// answer a ping, how the close handshake goes and which code the end carries are the machine's.
// The owner (`WebSocketRequest`) hears `WebSocketConnectionEvent`s on the loop.
//
// RFC 6455 duties handled here: every frame sent is masked with a fresh key from the system's
// CSPRNG (§5.3, §10.3); a parse error sends a close with the error's code and closes (§7.1.7);
// after the close handshake the server closes TCP first, and we close it ourselves when it has
// not within `closeTimeout` (§7.1.1), as we do when the server never answers our close (1006).
//
// Everything here runs on `loop`; the owner reaches it only through loop.execute.

import FoundationEssentials
import Wire
import EventLoop
import TLS
import Transport

/// What a WebSocket connection reports to its owner, on its loop.
enum WebSocketConnectionEvent {
    /// A whole text or binary message.
    case message(WebSocketConnectionStateMachine.Message)
    /// A pong arrived with this payload.
    case pong([UInt8])
    /// The close handshake completed with the peer's code and reason, or the connection was lost
    /// without one (1006, empty reason).
    case disconnected(WebSocketCloseCode, reason: [UInt8])
    /// The connection is closed; `error` is `nil` after a completed close handshake.
    case finished(TransportError?)
}

final class WebSocketConnection: SocketHandler {
    let socket: Socket
    let loop: EventLoop
    let tls: TLSClientConnection?
    private var parser: WebSocketParser
    private var machine = WebSocketConnectionStateMachine()
    private let onEvent: (WebSocketConnectionEvent) -> Void
    /// How long to wait for the peer's close, or for its TCP close after the handshake.
    private let closeTimeout: Duration
    private var closeTimer: TimerID?
    /// Whether `.disconnected` was reported (it is reported once).
    private var reportedDisconnect = false
    var isFinished = false
    /// The codec's error that failed the connection, kept as the failure's underlying error.
    private var parseError: WebSocketError?
    /// Automatic keep-alive pings (`Configuration.pingInterval`): one per interval; a ping still
    /// unanswered at the next tick fails the connection (the peer or the path is gone).
    private let pingInterval: Duration?
    private var pingTimer: TimerID?
    private var awaitingKeepAlivePong = false
    /// Whether any frame was parsed since the last keep-alive tick: a peer that keeps sending is
    /// alive even when its pong is queued behind data a paused (slow) consumer has not read yet.
    private var receivedSincePingTick = false
    /// The keep-alive ping's payload, told apart from the user's pings (which have none).
    static let keepAlivePayload: [UInt8] = Array("lariat-keepalive".utf8)
    /// permessage-deflate's codec when the server accepted it (WebSocketConnection+Deflate.swift).
    let deflate: PerMessageDeflateCodec?
    /// Whether the message being received is compressed.
    var inflatingMessage = false
    /// Back-pressure (WebSocketConnection+BackPressure.swift): the owner's consumers are behind,
    /// so nothing more is parsed or read until they catch up.
    var readPaused = false
    /// The socket hung up while reading was paused: read the rest when it resumes.
    var hungUpWhilePaused = false

    // Reading
    private var inbound = ReceiveBuffer(capacity: 16 * 1024)
    /// The socket and TLS engine's byte movements (Transport's SocketPump).
    var pump: SocketPump
    // Writing: frames queued in `outgoing`; `written` counts bytes the socket (or TLS) took.
    var outgoing: [UInt8] = []
    var outgoingOffset = 0
    var queued = 0
    var written = 0
    /// Called once the frame ending at byte `end` of the stream was taken, or with the error.
    var sendCompletions: [(end: Int, handler: (TransportError?) -> Void)] = []

    /// The largest the receive buffer grows to (payloads are handed out as they arrive, so it
    /// holds at most a frame header, a control frame and one read's worth of data).
    static let maxReceiveBuffer = 256 * 1024

    /// Takes over `upgraded`'s socket; call `start()` next, on the loop.
    /// - Parameters:
    ///   - limits: frame and message size limits (`maximumMessageSize`).
    ///   - closeTimeout: how long the close handshake may take; 5 s by default.
    ///   - onEvent: the owner's sink, called on the loop.
    ///   - pingInterval: how often to ping the server; `nil` (the default): never.
    ///   - deflate: permessage-deflate's negotiated parameters; `nil` (the default): not in force.
    init(_ upgraded: UpgradedConnection, limits: WebSocketLimits, closeTimeout: Duration = .seconds(5),
         pingInterval: Duration? = nil, deflate: PerMessageDeflate.Parameters? = nil,
         onEvent: @escaping (WebSocketConnectionEvent) -> Void) {
        self.deflate = deflate.map { PerMessageDeflateCodec(parameters: $0, maxMessageSize: limits.maxMessageSize) }
        self.pingInterval = pingInterval
        socket = upgraded.socket
        loop = upgraded.socket.loop
        tls = upgraded.tls
        parser = WebSocketParser(role: .client, perMessageCompression: deflate != nil, limits: limits)
        pump = SocketPump(socket: upgraded.socket, tls: upgraded.tls, cipherPending: upgraded.cipherPending)
        self.closeTimeout = closeTimeout
        self.onEvent = onEvent
        if !upgraded.leftover.isEmpty {
            _ = inbound.write(minimum: upgraded.leftover.count, growingTo: max(Self.maxReceiveBuffer, upgraded.leftover.count)) { free in
                upgraded.leftover.withUnsafeBytes { free.copyMemory(from: $0) }
                return upgraded.leftover.count
            }
        }
    }

    /// Registers for socket events and parses what came with the 101.
    func start() {
        socket.handler = self
        socket.setReadInterest(true)
        armPingTimer()
        if tls != nil { readPlaintext() }
        processInbound()
    }

    // MARK: Owner's intents (on the loop)

    /// Whether messages and pings may still be sent.
    var canSend: Bool { !isFinished && machine.canSend }

    /// Sends a data frame (`.text` or `.binary`) or a ping; `completion` hears when the socket
    /// took it, or why not.
    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], completion: ((TransportError?) -> Void)? = nil) {
        guard canSend else {
            completion?(TransportError(.connectionLost, "the WebSocket is closing or closed"))
            return
        }
        do throws(WebSocketError) {
            try queueMessage(opcode, payload)
        } catch {
            completion?(TransportError(.invalidRequest, "the frame cannot be sent: \(error)", underlying: error))
            return
        }
        if let completion { sendCompletions.append((queued, completion)) }
        flush()
    }

    /// Starts the close handshake with `code` (`nil`: an empty close body) and `reason`.
    func close(_ code: WebSocketCloseCode?, reason: [UInt8]) {
        guard !isFinished else { return }
        perform(machine.closeRequested(code, reason: reason))
    }

    /// Closes the socket at once, without a close frame.
    func cancel() {
        guard !isFinished else { return }
        finish(TransportError(.cancelled, "cancelled"))
    }

    // MARK: SocketHandler

    func socketReadable(_ socket: Socket) {
        guard !isFinished, !readPaused else { return }
        if tls != nil { return readTLS() }
        switch pump.readPlain(into: &inbound, growingTo: Self.maxReceiveBuffer) {
        case .success(.bytes): processInbound()
        case .success(.endOfStream): endOfStream()
        case .success(.wouldBlock): return
        case .failure(let error): lost(TransportError(.connectionLost, "read failed: \(error)", underlying: error))
        }
    }

    func socketWritable(_ socket: Socket) {
        guard !isFinished else { return socket.setWriteInterest(false) }
        flush()
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        guard !isFinished else { return }
        // What the peer sent before the hang-up is still readable: read it to the end first
        // (or, paused by a slow consumer, once reading resumes).
        for _ in 0..<4096 where !isFinished && !readPaused { socketReadable(socket) }
        if readPaused { return hungUpWhilePaused = true }
        if !isFinished { lost(TransportError(.connectionLost, "the connection was reset", underlying: error)) }
    }

    // MARK: Reading

    private func readTLS() {
        switch pump.receiveCiphertext() {
        case .ready: break
        case .wouldBlock: return
        case .failed(let error): return lost(TransportError(.connectionLost, "read failed: \(error)", underlying: error))
        }
        readPlaintext()
    }

    /// Moves plaintext out of the engine and parses it, until the engine needs more ciphertext.
    func readPlaintext() {
        guard tls != nil else { return }
        while !isFinished && !readPaused {
            pump.feedCiphertext()
            switch pump.readPlaintext(into: &inbound, growingTo: Self.maxReceiveBuffer) {
            case .bytes: processInbound()
            case .incomplete:
                flushCiphertext()
                if pump.cipherPending.isEmpty { return }
            case .closed: return endOfStream()
            case .failed(let error): return lost(TransportError(.tls, "TLS read failed: \(error)", underlying: error))
            }
        }
    }

    /// Feeds the received bytes to the parser and its events to the machine.
    func processInbound() {
        while !isFinished && !readPaused {
            let step: (events: [WebSocketConnectionStateMachine.ReceivedEvent], error: WebSocketError?, consumed: Int) =
                inbound.withReadableBytes { raw in
                    let step: WebSocketStep
                    do throws(WebSocketError) {
                        step = try parser.parse(raw)
                        return (try receivedEvents(step.event, in: raw), nil, step.consumed)
                    } catch {
                        return ([], error, 0)
                    }
                }
            inbound.consume(step.consumed)
            if step.consumed > 0 { receivedSincePingTick = true }
            if let error = step.error {
                parseError = error
                return perform(machine.parseFailed(error))
            }
            guard !step.events.isEmpty else {
                if step.consumed == 0 { return }  // needs more bytes
                continue
            }
            for event in step.events where !isFinished { perform(machine.received(event)) }
        }
    }

    /// A parser event with its bytes copied out of `raw`; `nil` for `needMoreData`.
    static func received(_ event: WebSocketEvent, in raw: UnsafeRawBufferPointer) -> WebSocketConnectionStateMachine.ReceivedEvent? {
        switch event {
        case .needMoreData: return nil
        case .messageStart(let opcode, _): return .messageStart(opcode)
        case .messageData(let range, _): return .messageData(Array(UnsafeRawBufferPointer(rebasing: raw[range])))
        case .messageEnd: return .messageEnd
        case .control(let frame):
            let payload = frame.payloadBytes(in: raw)
            switch frame.opcode {
            case .ping: return .ping(payload)
            case .pong: return .pong(payload)
            default: return .close(frame.closeCode, reason: frame.closeCode == nil ? [] : Array(payload.dropFirst(2)))
            }
        }
    }

    private func endOfStream() {
        // A stream that ends inside a frame is the same loss as one that ends between frames.
        do throws(WebSocketError) { try parser.finish() } catch {}
        perform(machine.endOfStream())
    }

    func lost(_ error: TransportError) {
        perform(machine.endOfStream(), error: error)
    }

    // MARK: Actions

    /// Carries out one action; `error` is the transport's reason when the action ends the connection.
    private func perform(_ action: WebSocketConnectionStateMachine.Action, error: TransportError? = nil) {
        switch action {
        case .none: break
        case .deliver(let message): onEvent(.message(message))
        case .pongReceived(let payload):
            if awaitingKeepAlivePong && payload == Self.keepAlivePayload {
                awaitingKeepAlivePong = false
            } else {
                onEvent(.pong(payload))
            }
        case .sendPong(let payload):
            try? queueFrame(.pong, payload)
            flush()
        case .sendClose(let code, let reason):
            queueClose(code, reason: reason)
            armCloseTimer()
        case .replyClose(let code, let reason, let reported):
            queueClose(code, reason: reason)
            report(reported, reason: reason)
            armCloseTimer()
        case .closeHandshakeDone(let code, let reason):
            report(code, reason: reason)
            armCloseTimer()
        case .failConnection(let code, let detail):
            queueClose(code, reason: [])
            finish(TransportError(.malformedResponse, "WebSocket protocol error (\(code.rawValue)): \(detail)", underlying: parseError))
        case .finish(let code):
            if code == .abnormalClosure {
                report(code, reason: [])
                finish(error ?? TransportError(.connectionLost, "the WebSocket connection was lost without a close frame"))
            } else {
                finish(nil)
            }
        }
    }

    private func report(_ code: WebSocketCloseCode, reason: [UInt8]) {
        guard !reportedDisconnect else { return }
        reportedDisconnect = true
        onEvent(.disconnected(code, reason: reason))
    }

    private func armCloseTimer() {
        if let closeTimer { loop.cancelTimer(closeTimer) }
        closeTimer = loop.scheduleTimer(at: .now() + closeTimeout) { [weak self] in
            guard let self else { return }
            self.closeTimer = nil
            self.perform(self.machine.closeTimedOut())
        }
    }

    private func armPingTimer() {
        guard let pingInterval, pingInterval > .zero else { return }
        pingTimer = loop.scheduleTimer(at: .now() + pingInterval) { [weak self] in
            guard let self, !isFinished else { return }
            pingTimer = nil
            guard machine.canSend else { return }  // closing: the close timer decides now
            if awaitingKeepAlivePong {
                // Reading paused for a slow consumer, or frames still arriving: the pong may be
                // waiting unread behind them. Only a peer silent for a whole interval is gone.
                guard readPaused || receivedSincePingTick else {
                    return lost(TransportError(.timedOut, "no pong within the ping interval (\(pingInterval))"))
                }
                receivedSincePingTick = false
                return armPingTimer()
            }
            receivedSincePingTick = false
            awaitingKeepAlivePong = true
            try? queueFrame(.ping, Self.keepAlivePayload)
            flush()
            armPingTimer()
        }
    }

    /// Closes the socket (after flushing what can go out at once) and reports the end.
    private func finish(_ error: TransportError?) {
        guard !isFinished else { return }
        flush()
        guard !isFinished else { return }  // the flush found the connection lost and finished it
        isFinished = true
        if let closeTimer { loop.cancelTimer(closeTimer) }
        closeTimer = nil
        if let pingTimer { loop.cancelTimer(pingTimer) }
        pingTimer = nil
        if let tls {
            _ = tls.shutdown()  // close_notify, best effort
            flushCiphertext()
        }
        socket.handler = nil
        socket.close()
        let pending = sendCompletions
        sendCompletions.removeAll()
        for (_, handler) in pending { handler(TransportError(.connectionLost, "the WebSocket closed before the message was sent")) }
        onEvent(.finished(error))
    }
}
