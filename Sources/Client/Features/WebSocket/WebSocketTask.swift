#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch
import Synchronization

/// The async face of a ``WebSocketRequest`` (Alamofire's `WebSocketTask`).
///
/// Each `streaming…` call adds a handler to the request and returns a ``StreamOf`` of its
/// events: `.connected`, each message, `.disconnected`, then `.completed` and the end of the
/// sequence. A message counts as buffered until the awaiting task takes it, so a task that stops
/// iterating stops the socket reads too (see ``WebSocketRequest/maxBufferedBytes``).
public struct WebSocketTask: Sendable {
    /// A stream of the request's events.
    public typealias EventStreamOf<Success, Failure: Error> = StreamOf<WebSocketRequest.Event<Success, Failure>>

    private let request: WebSocketRequest

    init(request: WebSocketRequest) { self.request = request }

    /// Every event, messages as they arrive.
    /// - Parameters:
    ///   - shouldAutomaticallyCancel: Cancel the request when the stream's consumer goes away
    ///     (its task is cancelled or stops iterating); `true` by default.
    ///   - bufferingPolicy: How many events are kept for the consumer; `.unbounded` by default.
    public func streamingMessageEvents(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        bufferingPolicy: EventStreamOf<URLSessionWebSocketTask.Message, Never>.BufferingPolicy = .unbounded
    ) -> EventStreamOf<URLSessionWebSocketTask.Message, Never> {
        makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy) { .success($0) }
    }

    /// Only the messages; the sequence ends when the request does.
    public func streamingMessages(
        automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        bufferingPolicy: StreamOf<URLSessionWebSocketTask.Message>.BufferingPolicy = .unbounded
    ) -> StreamOf<URLSessionWebSocketTask.Message> {
        makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy,
                   transform: { .success($0) as Result<URLSessionWebSocketTask.Message, Never> }) { $0.message }
    }

    /// Every event, messages decoded as `Value` by `decoder`.
    public func streamingDecodableEvents<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        using decoder: any DataDecoder = JSONDecoder(),
        bufferingPolicy: EventStreamOf<Value, any Error>.BufferingPolicy = .unbounded
    ) -> EventStreamOf<Value, any Error> {
        let serializer = DecodableWebSocketMessageDecoder<Value>(decoder: decoder)
        return makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy) { message in
            Result { try serializer.decode(message) }
        }
    }

    /// Only the values decoded from messages; messages that do not decode are skipped.
    public func streamingDecodable<Value: Decodable & Sendable>(
        _ type: Value.Type = Value.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        using decoder: any DataDecoder = JSONDecoder(),
        bufferingPolicy: StreamOf<Value>.BufferingPolicy = .unbounded
    ) -> StreamOf<Value> {
        let serializer = DecodableWebSocketMessageDecoder<Value>(decoder: decoder)
        return makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy,
                          transform: { message in Result { try serializer.decode(message) } }) { $0.message }
    }

    /// Sends `message`, returning once the connection took it (or waiting for it to open).
    /// - Throws: the error that kept it from being sent.
    public func send(_ message: URLSessionWebSocketTask.Message) async throws {
        let request = self.request
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            request.send(message, queue: .global()) { done.resume(with: $0) }
        }
    }

    /// Starts the close handshake with `closeCode` and `reason`.
    public func close(sending closeCode: URLSessionWebSocketTask.CloseCode, reason: Data? = nil) {
        request.close(sending: closeCode, reason: reason)
    }

    /// Cancels the request: an open connection is closed at once.
    public func cancel() { request.cancel() }
    /// Resumes the request.
    public func resume() { request.resume() }
    /// Suspends the request (before it was sent).
    public func suspend() { request.suspend() }

    /// A stream of the events of a handler added when iteration starts; each message is reported
    /// handled when the consumer takes it (or it is dropped).
    private func makeStream<Success: Sendable, Failure: Error>(
        automaticallyCancelling shouldAutomaticallyCancel: Bool,
        bufferingPolicy: EventStreamOf<Success, Failure>.BufferingPolicy,
        transform: @escaping @Sendable (URLSessionWebSocketTask.Message) -> Result<Success, Failure>
    ) -> EventStreamOf<Success, Failure> {
        makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy, transform: transform) { $0 }
    }

    /// A stream of `element(event)` for each event where it is not `nil`, fed by a handler added
    /// when iteration starts; the stream ends after `.completed`. A message counts as buffered
    /// until the consumer takes it (or it is dropped or skipped).
    private func makeStream<Success: Sendable, Failure: Error, Element: Sendable>(
        automaticallyCancelling shouldAutomaticallyCancel: Bool,
        bufferingPolicy: StreamOf<Element>.BufferingPolicy,
        transform: @escaping @Sendable (URLSessionWebSocketTask.Message) -> Result<Success, Failure>,
        element: @escaping @Sendable (WebSocketRequest.Event<Success, Failure>) -> Element?
    ) -> StreamOf<Element> {
        let request = self.request
        let ledger = Mutex(ByteLedger())
        let dropsNewest: Bool
        if case .bufferingOldest = bufferingPolicy { dropsNewest = true } else { dropsNewest = false }
        return StreamOf(bufferingPolicy: bufferingPolicy, onTermination: {
            if shouldAutomaticallyCancel { request.cancel() }
            request.messageHandled(size: ledger.withLock { $0.removeAll() })
        }, onTaken: { _ in
            request.messageHandled(size: ledger.withLock { $0.popFirst() })
        }, builder: { continuation in
            let queue = DispatchQueue(label: "org.lariat.websocket-task")
            request.appendSink(on: queue, transform: transform) { event, size in
                defer { if case .completed = event.kind { continuation.finish() } }
                guard let value = element(event) else { return request.messageHandled(size: size) }
                ledger.withLock { $0.append(size) }
                switch continuation.yield(value) {
                case .enqueued: break
                case .dropped: request.messageHandled(size: ledger.withLock { dropsNewest ? $0.popLast() : $0.popFirst() })
                case .terminated: request.messageHandled(size: ledger.withLock { $0.popLast() })
                @unknown default: break
                }
            }
        })
    }
}

extension WebSocketRequest {
    /// The request's async face. Streams start the request when iterated (unless it was made
    /// with `shouldAutomaticallyResume: false`).
    public func webSocketTask() -> WebSocketTask { WebSocketTask(request: self) }
}
