#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization
import EventLoop
import Wire

// WebSocketRequest's public surface, with Alamofire 5.12's names: configuration, events, the
// stream handlers, sending, pings and closing.

extension WebSocketRequest {
    /// The subprotocol, message size limit and ping interval of a ``WebSocketRequest``.
    public struct Configuration: Sendable {
        /// The subprotocol offered in `Sec-WebSocket-Protocol` (several may be given, comma
        /// separated, in preference order); `nil` (the default) offers none.
        public let `protocol`: String?
        /// The largest message accepted, in bytes: a larger one fails the connection with close
        /// code 1009. 1,048,576 (1 MiB) by default.
        public let maximumMessageSize: Int
        /// How often a ping is sent automatically; `nil` (the default) sends none.
        public let pingInterval: TimeInterval?
        /// The permessage-deflate (RFC 7692) offer; `nil` offers no compression. Lariat's own:
        /// offered by default, with every parameter left to the server.
        var deflate: PerMessageDeflate?

        init(protocol: String? = nil, maximumMessageSize: Int = 1_048_576, pingInterval: TimeInterval? = nil,
             deflate: PerMessageDeflate? = PerMessageDeflate()) {
            self.protocol = `protocol`
            self.maximumMessageSize = maximumMessageSize
            self.pingInterval = pingInterval
            self.deflate = deflate
        }

        /// Whether the handshake offers permessage-deflate compression (RFC 7692). `true` by
        /// default, as browsers do; the server decides whether it is used. Lariat's own.
        public var offersPerMessageDeflate: Bool { deflate != nil }

        /// This configuration with permessage-deflate offered or not. Lariat's own.
        /// - Parameter offered: `false` sends no `Sec-WebSocket-Extensions` field.
        /// - Returns: the changed configuration.
        public func perMessageDeflate(_ offered: Bool) -> Self {
            var copy = self
            copy.deflate = offered ? (deflate ?? PerMessageDeflate()) : nil
            return copy
        }

        /// No subprotocol, 1 MiB messages, no automatic pings.
        public static var `default`: Self { Self() }
        /// Offers `protocol` as the subprotocol.
        public static func `protocol`(_ protocol: String) -> Self { Self(protocol: `protocol`) }
        /// Accepts messages of at most `maximumMessageSize` bytes.
        public static func maximumMessageSize(_ maximumMessageSize: Int) -> Self { Self(maximumMessageSize: maximumMessageSize) }
        /// Sends a ping every `pingInterval` seconds.
        public static func pingInterval(_ pingInterval: TimeInterval) -> Self { Self(pingInterval: pingInterval) }
    }

    /// One event of the connection, with controls for the request it came from.
    public struct Event<Success: Sendable, Failure: Error>: Sendable {
        /// What happened.
        public enum Kind: Sendable {
            /// The `101` was accepted; `protocol` is the subprotocol the server chose, or `nil`.
            case connected(protocol: String?)
            /// A message, serialized.
            case receivedMessage(Success)
            /// A message the serializer could not turn into `Success`.
            case serializerFailed(Failure)
            /// The close handshake ended with the server's code and reason (1005 when its close
            /// carried none), or the connection was lost without one (1006).
            case disconnected(closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
            /// The request finished; the last event.
            case completed(Completion)
        }

        weak var socket: WebSocketRequest?
        /// What happened.
        public let kind: Kind

        /// The message, for `.receivedMessage`; `nil` otherwise.
        public var message: Success? {
            if case .receivedMessage(let message) = kind { message } else { nil }
        }

        /// Starts the close handshake (see ``WebSocketRequest/close(sending:reason:)``).
        public func close(sending closeCode: URLSessionWebSocketTask.CloseCode, reason: Data? = nil) {
            socket?.close(sending: closeCode, reason: reason)
        }

        /// Cancels the request (see ``WebSocketRequest/cancel()``).
        public func cancel() { socket?.cancel() }

        /// Sends a ping (see ``WebSocketRequest/sendPing(respondingOn:onResponse:)``).
        public func sendPing(respondingOn queue: DispatchQueue = .main, onResponse: @escaping @Sendable (PingResponse) -> Void) {
            socket?.sendPing(respondingOn: queue, onResponse: onResponse)
        }
    }

    /// How the request ended.
    public struct Completion: Sendable {
        /// The URLRequest sent.
        public let request: URLRequest?
        /// The `101` (or the refusal), if a response arrived.
        public let response: HTTPURLResponse?
        /// The request's metrics.
        public let metrics: URLSessionTaskMetrics?
        /// Why the request failed: a refused handshake, a lost connection, a protocol error,
        /// cancellation; `nil` after a completed close handshake.
        public let error: AFError?
    }

    /// The answer to a ping.
    public enum PingResponse: Sendable {
        /// When a ping left and its pong came back.
        public struct Pong: Sendable {
            /// When the ping was sent.
            public let start: Date
            /// When the pong arrived.
            public let end: Date
            /// `end - start`, in seconds.
            public var latency: TimeInterval { end.timeIntervalSince(start) }
        }

        /// The pong arrived.
        case pong(Pong)
        /// The ping could not be sent, or the connection ended before its pong.
        case error(any Error)
        /// No connection was open: nothing was sent.
        case unsent
    }

    // MARK: Intents

    /// Starts the close handshake: sends a close frame with `closeCode` and `reason` (at most 123
    /// UTF-8 bytes), then waits for the server's close; `.disconnected` reports the server's code.
    /// `.invalid` sends an empty close frame. Before the connection opened, this cancels.
    /// - Returns: the request.
    @discardableResult
    public func close(sending closeCode: URLSessionWebSocketTask.CloseCode, reason: Data? = nil) -> Self {
        guard let connection = openConnection else {
            if case .connecting = socket.withLock({ $0.phase }) { cancel() }
            return self
        }
        let code = closeCode == .invalid ? nil : WebSocketCloseCode(rawValue: UInt16(closeCode.rawValue))
        let bytes = reason.map { Array($0.prefix(123)) } ?? []
        connection.loop.execute { connection.value.close(code, reason: bytes) }
        return self
    }

    /// Sends a ping; `onResponse` hears the pong (with its latency), an error, or `.unsent`
    /// when no connection is open.
    /// - Parameters:
    ///   - queue: where `onResponse` runs; `.main` by default.
    ///   - onResponse: the answer.
    public func sendPing(respondingOn queue: DispatchQueue = .main, onResponse: @escaping @Sendable (PingResponse) -> Void) {
        let respond: @Sendable (PingResponse) -> Void = { response in queue.async { onResponse(response) } }
        let connection: LoopBound<WebSocketConnection>? = socket.withLock { state in
            guard case .open(let connection) = state.phase else { return nil }
            state.pings.append((Date(), respond))
            return connection
        }
        guard let connection else { return respond(.unsent) }
        connection.loop.execute {
            connection.value.send(.ping, []) { [weak self] error in
                guard let error, let self else { return }
                // Not sent: this ping (the newest unanswered) will get no pong.
                let ping = socket.withLock { $0.pings.isEmpty ? nil : $0.pings.removeLast() }
                ping?.respond(.error(Self.afError(error)))
            }
        }
    }

    /// Sends `message`; `completionHandler` hears, on `queue`, when the connection took it or why
    /// not. Before the connection opened, the message waits for it.
    /// - Parameters:
    ///   - message: a text or binary message.
    ///   - queue: where `completionHandler` runs; `.main` by default.
    ///   - completionHandler: the outcome.
    public func send(_ message: URLSessionWebSocketTask.Message, queue: DispatchQueue = .main,
                     completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let (opcode, payload): (WebSocketOpcode, [UInt8]) = switch message {
        case .string(let text): (.text, Array(text.utf8))
        case .data(let data): (.binary, [UInt8](data))
        }
        send(opcode, payload) { error in
            let result: Result<Void, any Error> = error.map { .failure(Self.afError($0)) } ?? .success(())
            queue.async { completionHandler(result) }
        }
    }

    // MARK: Stream handlers

    /// Every event, messages as they arrive.
    /// - Parameters:
    ///   - queue: where `handler` runs; `.main` by default.
    ///   - handler: each event, `.completed` last.
    @discardableResult
    public func streamMessageEvents(
        on queue: DispatchQueue = .main,
        handler: @escaping @Sendable (_ event: Event<URLSessionWebSocketTask.Message, Never>) -> Void
    ) -> Self {
        appendSink(on: queue, transform: { .success($0) }, handler: handler)
    }

    /// Only the messages, as they arrive.
    @discardableResult
    public func streamMessages(
        on queue: DispatchQueue = .main, handler: @escaping @Sendable (_ message: URLSessionWebSocketTask.Message) -> Void
    ) -> Self {
        streamMessageEvents(on: queue) { event in if let message = event.message { handler(message) } }
    }

    /// Every event, messages turned into `Serializer.Output` by `serializer`.
    @discardableResult
    public func streamSerializer<Serializer: WebSocketMessageSerializer>(
        _ serializer: Serializer, on queue: DispatchQueue = .main,
        handler: @escaping @Sendable (_ event: Event<Serializer.Output, Serializer.Failure>) -> Void
    ) -> Self where Serializer.Failure == any Error {
        appendSink(on: queue, transform: { message in Result { try serializer.decode(message) } }, handler: handler)
    }

    /// Every event, messages decoded as `Value` by `decoder` (text as its UTF-8 bytes).
    @discardableResult
    public func streamDecodableEvents<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, on queue: DispatchQueue = .main, using decoder: any DataDecoder = JSONDecoder(),
        handler: @escaping @Sendable (_ event: Event<Value, any Error>) -> Void
    ) -> Self {
        streamSerializer(DecodableWebSocketMessageDecoder<Value>(decoder: decoder), on: queue, handler: handler)
    }

    /// Only the values decoded from messages; messages that do not decode are skipped.
    @discardableResult
    public func streamDecodable<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, on queue: DispatchQueue = .main, using decoder: any DataDecoder = JSONDecoder(),
        handler: @escaping @Sendable (_ value: Value) -> Void
    ) -> Self {
        streamDecodableEvents(type, on: queue, using: decoder) { event in if let value = event.message { handler(value) } }
    }

    /// Adds a handler: connection events go through `transform` on `queue`, then `.completed`
    /// once the request finished. A message counts as buffered until `handler` returned.
    private func appendSink<Success: Sendable, Failure: Error>(
        on queue: DispatchQueue, transform: @escaping @Sendable (URLSessionWebSocketTask.Message) -> Result<Success, Failure>,
        handler: @escaping @Sendable (Event<Success, Failure>) -> Void
    ) -> Self {
        appendSink(on: queue, transform: transform) { [weak self] event, size in
            handler(event)
            if size > 0 { self?.messageHandled(size: size) }
        }
    }

    /// Adds a handler that hears each event with its message's size in bytes (0 for other
    /// events) and reports the message handled itself, with ``messageHandled(size:)``.
    @discardableResult
    func appendSink<Success: Sendable, Failure: Error>(
        on queue: DispatchQueue, transform: @escaping @Sendable (URLSessionWebSocketTask.Message) -> Result<Success, Failure>,
        sizedHandler handler: @escaping @Sendable (Event<Success, Failure>, _ size: Int) -> Void
    ) -> Self {
        let sink: @Sendable (SocketEvent) -> Void = { [weak self] event in
            let owner = self
            queue.async {
                var size = 0
                if case .message(let message) = event { size = message.byteCount }
                let kind: Event<Success, Failure>.Kind = switch event {
                case .connected(let chosen): .connected(protocol: chosen)
                case .disconnected(let code, let reason): .disconnected(closeCode: code, reason: reason)
                case .message(let message):
                    switch transform(message) {
                    case .success(let value): .receivedMessage(value)
                    case .failure(let error): .serializerFailed(error)
                    }
                }
                handler(Event(socket: owner, kind: kind), size)
            }
        }
        socket.withLock { $0.sinks.append(sink) }
        appendResponseHandler { [weak self] _ in
            guard let self else { return }
            // The request is over: the sinks (which capture handlers) go.
            socket.withLock { $0.sinks.removeAll() }
            let completion = self.completion
            let owner: WebSocketRequest = self
            queue.async { handler(Event(socket: owner, kind: .completed(completion)), 0) }
        }
        return self
    }
}

/// Turns a WebSocket message into a value.
public protocol WebSocketMessageSerializer<Output, Failure>: Sendable {
    /// The value made from a message.
    associatedtype Output: Sendable
    /// The error thrown when a message cannot be turned into `Output`.
    associatedtype Failure: Error = any Error

    /// Turns `message` into a value.
    /// - Throws: when it cannot.
    func decode(_ message: URLSessionWebSocketTask.Message) throws -> Output
}

extension WebSocketMessageSerializer {
    /// A serializer decoding JSON (from text or binary messages) as `Value`.
    public static func json<Value>(
        decoding _: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()
    ) -> DecodableWebSocketMessageDecoder<Value> where Self == DecodableWebSocketMessageDecoder<Value> {
        Self(decoder: decoder)
    }
}

/// Decodes each message (a text message as its UTF-8 bytes) as `Value` with a `DataDecoder`.
public struct DecodableWebSocketMessageDecoder<Value: Decodable & Sendable>: WebSocketMessageSerializer {
    /// Why a message did not decode.
    public enum Error: Swift.Error {
        /// The decoder threw.
        case decoding(any Swift.Error)
        /// A message of a kind this decoder does not know.
        case unknownMessage(description: String)
    }

    /// The decoder used.
    public let decoder: any DataDecoder

    /// A decoder of messages with `decoder`.
    public init(decoder: any DataDecoder) { self.decoder = decoder }

    /// Decodes `message` as `Value`.
    /// - Throws: ``Error/decoding(_:)`` with the decoder's error.
    public func decode(_ message: URLSessionWebSocketTask.Message) throws -> Value {
        let data: Data = switch message {
        case .string(let text): Data(text.utf8)
        case .data(let data): data
        }
        do {
            return try decoder.decode(Value.self, from: data)
        } catch {
            throw Error.decoding(error)
        }
    }
}
