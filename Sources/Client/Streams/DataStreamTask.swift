#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch
import Synchronization

/// The async face of a ``DataStreamRequest`` (Alamofire's `DataStreamTask`).
///
/// Each `streaming…` call adds a handler to the request and returns a ``StreamOf`` of its
/// events: chunks (or values), then one `.complete`, then the end of the sequence. A chunk counts
/// as buffered until the awaiting task takes it, so a task that stops iterating stops the
/// socket reads too (with `.unbounded`, the default, nothing is dropped and memory stays bounded
/// by ``DataStreamRequest/maxBufferedBytes``).
public struct DataStreamTask: Sendable {
    /// A stream of the request's events.
    public typealias Stream<Success, Failure: Error> = StreamOf<DataStreamRequest.Stream<Success, Failure>>

    private let request: DataStreamRequest

    init(request: DataStreamRequest) { self.request = request }

    /// The body as `Data` chunks.
    /// - Parameters:
    ///   - shouldAutomaticallyCancel: Cancel the request when the stream's consumer goes away
    ///     (its task is cancelled or stops iterating); `true` by default.
    ///   - bufferingPolicy: How many events are kept for the consumer; `.unbounded` by default.
    public func streamingData(automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
                              bufferingPolicy: Stream<Data, Never>.BufferingPolicy = .unbounded) -> Stream<Data, Never> {
        makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy) { .success($0) }
    }

    /// The body as UTF-8 `String` chunks.
    public func streamingStrings(automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
                                 bufferingPolicy: Stream<String, Never>.BufferingPolicy = .unbounded) -> Stream<String, Never> {
        makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy) {
            .success(String(decoding: $0, as: UTF8.self))
        }
    }

    /// Each chunk decoded as `T` with a `JSONDecoder`.
    public func streamingDecodables<T>(_ type: T.Type = T.self, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
                                       bufferingPolicy: Stream<T, AFError>.BufferingPolicy = .unbounded) -> Stream<T, AFError>
    where T: Decodable & Sendable {
        streamingResponses(serializedUsing: DecodableStreamSerializer<T>(), automaticallyCancelling: shouldAutomaticallyCancel,
                           bufferingPolicy: bufferingPolicy)
    }

    /// Each chunk serialized by `serializer`; a failure is delivered as an event (and cancels the
    /// request when it was made with `automaticallyCancelOnStreamError`).
    public func streamingResponses<Serializer: DataStreamSerializer>(
        serializedUsing serializer: Serializer, automaticallyCancelling shouldAutomaticallyCancel: Bool = true,
        bufferingPolicy: Stream<Serializer.SerializedObject, AFError>.BufferingPolicy = .unbounded
    ) -> Stream<Serializer.SerializedObject, AFError> {
        let request = self.request
        return makeStream(automaticallyCancelling: shouldAutomaticallyCancel, bufferingPolicy: bufferingPolicy) { data in
            let result = request.serialized(data, using: serializer)
            if case .failure = result, request.automaticallyCancelOnStreamError { request.cancel() }
            return result
        }
    }

    /// Cancels the request.
    public func cancel() { request.cancel() }
    /// Resumes the request.
    public func resume() { request.resume() }
    /// Suspends the request (before it was sent).
    public func suspend() { request.suspend() }

    /// A stream of `transform`'s results for each chunk, fed by a sink added when iteration starts.
    private func makeStream<Success: Sendable, Failure: Error & Sendable>(
        automaticallyCancelling shouldAutomaticallyCancel: Bool,
        bufferingPolicy: Stream<Success, Failure>.BufferingPolicy,
        transform: @escaping @Sendable (Data) -> Result<Success, Failure>
    ) -> Stream<Success, Failure> {
        let request = self.request
        let ledger = Mutex(ByteLedger())
        let dropsNewest: Bool
        if case .bufferingOldest = bufferingPolicy { dropsNewest = true } else { dropsNewest = false }
        return StreamOf(bufferingPolicy: bufferingPolicy, onTermination: {
            if shouldAutomaticallyCancel { request.cancel() }
            // Whatever the consumer will never take is no longer buffered.
            request.streamConsumed(ledger.withLock { $0.removeAll() })
        }, onTaken: { _ in
            request.streamConsumed(ledger.withLock { $0.popFirst() })
        }, isStale: { element in
            // A chunk buffered before the request was cancelled is not handed out after it.
            if case .stream = element.event { return request.isCancelled }
            return false
        }, builder: { continuation in
            let token = DataStreamRequest.CancellationToken(request)
            @Sendable func yield(_ event: DataStreamRequest.Event<Success, Failure>, bytes: Int) {
                ledger.withLock { $0.append(bytes) }
                switch continuation.yield(DataStreamRequest.Stream(event: event, token: token)) {
                case .enqueued:
                    break
                case .dropped:
                    // `.bufferingOldest` dropped this element, `.bufferingNewest` the oldest one.
                    request.streamConsumed(ledger.withLock { dropsNewest ? $0.popLast() : $0.popFirst() })
                case .terminated:
                    request.streamConsumed(ledger.withLock { $0.popLast() })
                @unknown default:
                    break
                }
            }
            request.appendStream(DataStreamRequest.Sink(take: { data in
                if request.isCancelled { return request.streamConsumed(data.count) }
                yield(.stream(transform(data)), bytes: data.count)
            }, isQueued: false), completion: {
                yield(.complete(request.completion), bytes: 0)
                continuation.finish()
            })
        })
    }
}

/// The sizes of the chunks waiting in a stream's buffer, oldest first.
struct ByteLedger {
    private var sizes: [Int] = []
    private var head = 0

    /// Records a chunk of `bytes` put in the buffer.
    mutating func append(_ bytes: Int) { sizes.append(bytes) }

    /// Removes the oldest chunk and returns its size (0 when none).
    mutating func popFirst() -> Int {
        guard head < sizes.count else { return 0 }
        let bytes = sizes[head]
        head += 1
        if head == sizes.count {
            sizes.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > sizes.count {
            sizes.removeFirst(head)  // amortised: only once half the array is consumed
            head = 0
        }
        return bytes
    }

    /// Removes the newest chunk and returns its size (0 when none).
    mutating func popLast() -> Int {
        guard head < sizes.count else { return 0 }
        return sizes.removeLast()
    }

    /// Removes every chunk and returns their total size.
    mutating func removeAll() -> Int {
        let total = sizes[head...].reduce(0, +)
        sizes.removeAll()
        head = 0
        return total
    }
}

extension DataStreamRequest {
    /// The request's async face. Streams start the request when iterated (unless it was made
    /// with `shouldAutomaticallyResume: false`).
    public func streamTask() -> DataStreamTask { DataStreamTask(request: self) }

    /// The response heads, as they arrive (one per attempt), ending when the request finished.
    public func httpResponses(bufferingPolicy: StreamOf<HTTPURLResponse>.BufferingPolicy = .unbounded) -> StreamOf<HTTPURLResponse> {
        StreamOf(bufferingPolicy: bufferingPolicy) { [self] continuation in
            onHTTPResponse(on: underlyingQueue) { response in continuation.yield(response) }
            appendResponseHandler { _ in continuation.finish() }
        }
    }

    /// Calls `handler` with the response head; nothing more is read until it returns, `.cancel`
    /// cancels the request.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (HTTPURLResponse) async -> ResponseDisposition) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, done in
            Task { done(await handler(response)) }
        }
    }

    /// Calls `handler` with the response head; nothing more is read until it returns.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (HTTPURLResponse) async -> Void) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, done in
            Task {
                await handler(response)
                done(.allow)
            }
        }
    }
}

extension DataRequest {
    /// The response heads, as they arrive (one per attempt), ending when the request finished.
    public func httpResponses(bufferingPolicy: StreamOf<HTTPURLResponse>.BufferingPolicy = .unbounded) -> StreamOf<HTTPURLResponse> {
        StreamOf(bufferingPolicy: bufferingPolicy) { [self] continuation in
            onHTTPResponse(on: underlyingQueue) { response in continuation.yield(response) }
            appendResponseHandler { _ in continuation.finish() }
        }
    }

    /// Calls `handler` with the response head; nothing more is read until it returns, `.cancel`
    /// cancels the request.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (HTTPURLResponse) async -> ResponseDisposition) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, done in
            Task { done(await handler(response)) }
        }
    }

    /// Calls `handler` with the response head; nothing more is read until it returns.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (HTTPURLResponse) async -> Void) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, done in
            Task {
                await handler(response)
                done(.allow)
            }
        }
    }
}
