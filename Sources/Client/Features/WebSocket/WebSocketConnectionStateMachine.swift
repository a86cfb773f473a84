import Wire

// One WebSocket connection after its 101, sans I/O: parser events and user intents in, effects
// out (RFC 6455 §5.5, §7). The driver (not written yet: `WebSocketRequest` will own one) feeds
// `WebSocketParser` events here and performs the returned actions; nothing here touches a
// socket, a timer or user code, so `WebSocketConnectionStateMachineTests` walks every path.
//
//   open ──peer's close──▶ closed       (reply with a close echoing the code; report it)
//     │ ──close(code)────▶ closing ──peer's close──▶ closed (report the peer's code)
//     │                      └──timeout or EOF──▶ done (1006: the peer never answered)
//     ├──parse error─────▶ done         (send a close with the error's code, close the transport)
//     └──EOF─────────────▶ done         (1006: closed without a close frame, §7.1.5)
//   closed ──EOF──▶ done (the server closes TCP first, §7.1.1); closed ──timeout──▶ done
//
// Messages are assembled from `messageStart`/`messageData`/`messageEnd`; their size is bounded
// by the parser's `WebSocketLimits` (Alamofire's `maximumMessageSize`). Pings are answered with
// the same payload while open (§5.5.2); after our close, nothing but the close handshake is sent.
//
// Messages after our close are delivered, up to the peer's close (issue 22). RFC 6455 §1.4 and
// §7.1.2 make the closing handshake the point where both sides stop: a peer that has not yet
// seen our close may still send data frames, and they are application data, not noise (§5.5.1
// forbids only *sending* data after a close). URLSessionWebSocketTask's `cancel(with:reason:)`
// cancels the task, so on Apple nothing more is received, and browsers ignore messages once
// `close()` was called (WHATWG: "if ready state is not OPEN, return"); we keep the RFC's
// promise instead: what the peer sent before its close reaches the user, then
// `.disconnected` and `.completed` as before. A message begun before our close is finished.

/// The connection-level state machine; see the file comment.
struct WebSocketConnectionStateMachine: Sendable {
    /// A complete message.
    enum Message: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
    }

    /// An effect for the driver.
    enum Action: Equatable, Sendable {
        /// Nothing to do.
        case none
        /// Hand a message to the user.
        case deliver(Message)
        /// Send a pong with this payload.
        case sendPong([UInt8])
        /// A pong arrived (answers a ping the user sent, or is unsolicited).
        case pongReceived([UInt8])
        /// Send a close frame (`nil` code: empty body) and wait for the peer's (arm the close timer).
        case sendClose(WebSocketCloseCode?, reason: [UInt8])
        /// Send this close frame in reply, then report the peer's close; wait for the server's EOF.
        case replyClose(WebSocketCloseCode?, reason: [UInt8], reported: WebSocketCloseCode)
        /// The close handshake completed with the peer's code; wait for the server's EOF.
        case closeHandshakeDone(WebSocketCloseCode, reason: [UInt8])
        /// Fail the connection: send a close with this code (best effort), then close the transport.
        case failConnection(WebSocketCloseCode, detail: String)
        /// Close the transport and finish with this code (1006 when no close handshake completed).
        case finish(WebSocketCloseCode)
    }

    private enum State: Sendable {
        /// Messages flow both ways. `message` is the one being assembled. Exits: `closing`,
        /// `closed`, `done`.
        case open(message: (opcode: WebSocketOpcode, bytes: [UInt8])?)
        /// Our close was sent; frames are read, and messages still delivered, until the peer's
        /// close. `message` is the one being assembled. Exits: `closed`, `done`.
        case closing(message: (opcode: WebSocketOpcode, bytes: [UInt8])?)
        /// Both closes were exchanged; waiting for the server to close TCP. Exit: `done`.
        case closed(WebSocketCloseCode)
        /// Terminal.
        case done
    }

    private var state: State = .open(message: nil)

    /// Whether the user may still send messages and pings.
    var canSend: Bool {
        if case .open = state { return true }
        return false
    }

    /// A parser event (data ranges already copied out of the read buffer).
    mutating func received(_ event: ReceivedEvent) -> Action {
        switch (state, event) {
        case (.open(nil), .messageStart(let opcode)):
            state = .open(message: (opcode, []))
            return .none
        case (.closing(nil), .messageStart(let opcode)):
            state = .closing(message: (opcode, []))
            return .none
        case (.open(var message?), .messageData(let bytes)):
            message.bytes += bytes
            state = .open(message: message)
            return .none
        case (.closing(var message?), .messageData(let bytes)):
            message.bytes += bytes
            state = .closing(message: message)
            return .none
        case (.open(let message?), .messageEnd):
            state = .open(message: nil)
            return Self.deliver(message)
        case (.closing(let message?), .messageEnd):
            state = .closing(message: nil)
            return Self.deliver(message)
        case (.open, .ping(let payload)):
            return .sendPong(payload)
        case (.open, .pong(let payload)), (.closing, .pong(let payload)):
            return .pongReceived(payload)
        case (.open, .close(let code, let reason)):
            // §5.5.1: reply with a close, typically echoing the code; report 1005 for an empty body.
            state = .closed(code ?? .noStatusReceived)
            return .replyClose(code, reason: code == nil ? [] : reason, reported: code ?? .noStatusReceived)
        case (.closing, .close(let code, let reason)):
            state = .closed(code ?? .noStatusReceived)
            return .closeHandshakeDone(code ?? .noStatusReceived, reason: reason)
        case (.closing, .ping):
            return .none  // after our close only the close handshake is sent (no pong)
        case (.closed, _), (.done, _):
            return .none  // the parser refuses bytes after a close; nothing reaches here in practice
        case (.open, _), (.closing, _):
            preconditionFailure("parser event \(event) out of order in state \(state)")
        }
    }

    /// The action handing `message` to the user.
    private static func deliver(_ message: (opcode: WebSocketOpcode, bytes: [UInt8])) -> Action {
        if message.opcode == .text { return .deliver(.text(String(decoding: message.bytes, as: UTF8.self))) }
        return .deliver(.binary(message.bytes))
    }

    /// The user asked to close with `code` (``WebSocketCloseCode/isValidOnWire`` or `nil`).
    mutating func closeRequested(_ code: WebSocketCloseCode?, reason: [UInt8]) -> Action {
        guard case .open(let message) = state else { return .none }
        state = .closing(message: message)
        return .sendClose(code, reason: code == nil ? [] : reason)
    }

    /// The parser failed: fail the connection with the error's close code (§7.1.7).
    mutating func parseFailed(_ error: WebSocketError) -> Action {
        switch state {
        case .open, .closing:
            state = .done
            return .failConnection(error.closeCode, detail: error.description)
        case .closed, .done:
            return .none
        }
    }

    /// The transport reached end of stream (or failed).
    mutating func endOfStream() -> Action {
        switch state {
        case .open, .closing:
            state = .done
            return .finish(.abnormalClosure)
        case .closed(let code):
            state = .done
            return .finish(code)
        case .done:
            return .none
        }
    }

    /// The close timer fired: the peer did not answer our close, or did not close TCP after the
    /// handshake (§7.1.1: the client then closes it).
    mutating func closeTimedOut() -> Action { endOfStream() }
}

extension WebSocketConnectionStateMachine {
    /// A parser event with its bytes copied out of the read buffer.
    enum ReceivedEvent: Equatable, Sendable {
        case messageStart(WebSocketOpcode)
        case messageData([UInt8])
        case messageEnd
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketCloseCode?, reason: [UInt8])
    }
}
