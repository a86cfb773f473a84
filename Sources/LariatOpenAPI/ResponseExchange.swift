// One LariatTransport call's response: the head, awaited by `send`, then the body, iterated by
// whoever holds the HTTPBody.
//
// The DataStreamRequest is made with `shouldAutomaticallyResume: false`, its body stream and its
// head and completion handlers are attached, and only then is it resumed, so no chunk can arrive
// before its sink exists. The request's handlers hold the exchange weakly: when the HTTPBody
// (the only strong owner after `send` returned) goes away unread, the exchange's deinit cancels
// the request, so an abandoned body never holds a paused connection.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Client
import OpenAPIRuntime
import Synchronization

/// The response head of one call and the body stream behind it.
final class ResponseExchange: Sendable {
    /// Where the head is: explicit states, one transition per event.
    enum HeadState {
        /// Nothing yet; nobody waits. Exits: `.waiting`, `.arrived`, `.failed`.
        case pending
        /// `send` waits. Exits: `.delivered` (head), `.failed` (ended without one).
        case waiting(CheckedContinuation<HTTPURLResponse, any Error>)
        /// The head came before anyone waited. Exit: `.delivered`.
        case arrived(HTTPURLResponse)
        /// `send` has the head. Exit: `.retriedAfterHead` (a second head: a retry).
        case delivered
        /// The request was retried after its head (and maybe body bytes) went out: the body
        /// fails, as bytes given to the caller cannot be taken back. Terminal.
        case retriedAfterHead
        /// The request ended without a head. Terminal.
        case failed(any Error)
    }

    let request: DataStreamRequest
    /// The session the request runs on, held while the body may still be read: the body
    /// outlives `send` (and often the generated client and transport that made it), and a
    /// released Session finishes its requests with `sessionDeinitialized`.
    private let session: Session
    private let head = Mutex(HeadState.pending)
    /// The body's events; taken once by the body's iterator.
    private let events: EventsBox
    /// Whether the request finished, or has no body to wait for (so releasing the exchange
    /// need not cancel it).
    private let finished = Atomic<Bool>(false)

    /// Attaches the body stream and handlers to `request` (not yet resumed).
    init(request: DataStreamRequest, session: Session) {
        self.request = request
        self.session = session
        events = EventsBox(request.streamTask().streamingData(automaticallyCancelling: true).makeAsyncIterator())
        request.onHTTPResponse(on: request.underlyingQueue) { [weak self] response, done in
            guard let self else { return done(.cancel) }
            done(received(response) ? .allow : .cancel)
        }
        request.appendResponseHandler { [weak self] _ in self?.ended() }
    }

    deinit {
        if !finished.load(ordering: .acquiring) { request.cancel() }
    }

    /// Starts the request and waits for its response head.
    /// - Throws: The request's error (an `AFError`), or `CancellationError` when the awaiting
    ///   task was cancelled.
    func responseHead() async throws -> HTTPURLResponse {
        let request = self.request
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let ready: Result<HTTPURLResponse, any Error>? = head.withLock { state in
                        switch state {
                        case .pending:
                            state = .waiting(continuation)
                            return nil
                        case .arrived(let response):
                            state = .delivered
                            return .success(response)
                        case .failed(let error):
                            return .failure(error)
                        case .waiting, .delivered, .retriedAfterHead:
                            preconditionFailure("responseHead() called twice (state \(state))")
                        }
                    }
                    if let ready { continuation.resume(with: ready) }
                    request.resume()
                }
            } onCancel: {
                request.cancel()
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// The response has no body (HEAD, 204, 304): releasing the exchange lets the request
    /// finish on its own (its connection goes back to the pool) instead of cancelling it.
    func expectNoBody() { finished.store(true, ordering: .releasing) }

    /// The response body, streamed.
    func body(length: HTTPBody.Length) -> HTTPBody {
        HTTPBody(ResponseBodySequence(exchange: self), length: length, iterationBehavior: .single)
    }

    /// Whether the body's bytes are still the first head's (no retry since).
    var retriedAfterHead: Bool { head.withLock { if case .retriedAfterHead = $0 { true } else { false } } }

    /// The body's event iterator, once.
    func takeEvents() -> StreamOf<DataStreamRequest.Stream<Data, Never>>.Iterator? { events.take() }

    // MARK: Request events

    /// A response head arrived; whether the request may go on.
    private func received(_ response: HTTPURLResponse) -> Bool {
        let (waiter, allow): (CheckedContinuation<HTTPURLResponse, any Error>?, Bool) = head.withLock { state in
            switch state {
            case .pending:
                state = .arrived(response)
                return (nil, true)
            case .waiting(let continuation):
                state = .delivered
                return (continuation, true)
            case .delivered, .arrived:
                // A second head: the request was retried after the caller got the first one.
                state = .retriedAfterHead
                return (nil, false)
            case .retriedAfterHead, .failed:
                return (nil, false)
            }
        }
        waiter?.resume(returning: response)
        return allow
    }

    /// The request finished (after its last body chunk was handed to the stream).
    private func ended() {
        finished.store(true, ordering: .releasing)
        let error: any Error = request.error ?? LariatTransportError.noResponse
        let waiter: CheckedContinuation<HTTPURLResponse, any Error>? = head.withLock { state in
            switch state {
            case .pending:
                state = .failed(error)
                return nil
            case .waiting(let continuation):
                state = .failed(error)
                return continuation
            case .arrived, .delivered, .retriedAfterHead, .failed:
                return nil
            }
        }
        waiter?.resume(throwing: error)
    }
}

/// Holds the body's event iterator until the body is iterated.
// @unchecked Sendable: `iterator` is written in init, before the box is shared, and read once,
// by `take()`, under the `taken` flag's exchange; after that only the taker touches it.
private final class EventsBox: @unchecked Sendable {
    private var iterator: StreamOf<DataStreamRequest.Stream<Data, Never>>.Iterator?
    private let taken = Atomic<Bool>(false)

    init(_ iterator: StreamOf<DataStreamRequest.Stream<Data, Never>>.Iterator) { self.iterator = iterator }

    func take() -> StreamOf<DataStreamRequest.Stream<Data, Never>>.Iterator? {
        guard !taken.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        defer { iterator = nil }
        return iterator
    }
}

/// The response body as swift-openapi-runtime's byte chunks (one copy per chunk, `Data` to
/// `ArraySlice<UInt8>`, the type `HTTPBody` carries).
struct ResponseBodySequence: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let exchange: ResponseExchange

    func makeAsyncIterator() -> Iterator { Iterator(exchange: exchange, events: exchange.takeEvents()) }

    struct Iterator: AsyncIteratorProtocol {
        /// Kept for its lifetime: releasing the last reference cancels an unfinished request.
        let exchange: ResponseExchange
        var events: StreamOf<DataStreamRequest.Stream<Data, Never>>.Iterator?

        /// The next chunk; `nil` once the body ended complete.
        /// - Throws: The request's error; `CancellationError` when the iterating task was
        ///   cancelled; ``LariatTransportError/retriedAfterResponse`` when the request was retried
        ///   after its head was returned.
        mutating func next() async throws -> HTTPBody.ByteChunk? {
            while events != nil {
                guard let event = await events?.next() else {
                    // The stream ended without `.complete`: its consumer (this task) was cancelled.
                    events = nil
                    throw CancellationError()
                }
                switch event.event {
                case .stream(.success(let data)):
                    if data.isEmpty { continue }
                    return ArraySlice(data)
                case .complete(let completion):
                    events = nil
                    if exchange.retriedAfterHead { throw LariatTransportError.retriedAfterResponse }
                    if let error = completion.error {
                        if Task.isCancelled { throw CancellationError() }
                        throw error
                    }
                    return nil
                }
            }
            return nil
        }
    }
}
