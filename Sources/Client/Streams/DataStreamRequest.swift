#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Transport

/// A request whose response body is handed to stream handlers as it arrives, never collected.
///
/// Each run of body bytes the connection reads becomes one `Data` chunk, delivered to every
/// handler on the queue it named, in order, followed by one `.complete` event.
///
/// **Completion order**: the request does not complete before every handler has run with every
/// chunk handed to it, as Alamofire's stream completion waits for its stream handlers. So a
/// cancel from a handler, by its token, always takes effect: the `.complete` that follows says
/// `explicitlyCancelled`, even if the whole response had arrived while the handler's queue was busy.
///
/// **Back-pressure**: the connection reads at the handlers' pace. Bytes handed to handlers and not
/// yet processed are counted; above ``maxBufferedBytes`` the connection stops reading the socket
/// (the server then waits on TCP flow control) and starts again once handlers caught up, so a slow
/// consumer of an endless body holds a bounded amount of it in memory. The idle timeout does not
/// run while we are the ones not reading; the resource timeout does.
public final class DataStreamRequest: Request, @unchecked Sendable {
    // @unchecked Sendable: the superclass's rule (every mutable property in a mutex) holds here:
    // the stream state is in `stream`, a Mutex; the rest are `let`s of Sendable types.

    /// A stream handler: called once per chunk (or serialized value), then once with `.complete`.
    /// A thrown error is recorded as the request's error (`.responseSerializationFailed`) and,
    /// with ``automaticallyCancelOnStreamError``, cancels the request.
    public typealias Handler<Success, Failure: Error> = @Sendable (Stream<Success, Failure>) throws -> Void

    /// One event of the stream, with a token to cancel the request from inside the handler.
    public struct Stream<Success, Failure: Error>: Sendable where Success: Sendable, Failure: Sendable {
        /// What happened.
        public let event: Event<Success, Failure>
        /// Cancels the request.
        public let token: CancellationToken

        /// Cancels the request: no further chunk is delivered, then `.complete` with
        /// `AFError.explicitlyCancelled`.
        public func cancel() { token.cancel() }
    }

    /// A stream event: a chunk (or its serialization's result), or the end.
    public enum Event<Success, Failure: Error>: Sendable where Success: Sendable, Failure: Sendable {
        /// A chunk of the body, or the value serialized from it.
        case stream(Result<Success, Failure>)
        /// The request finished (successfully or not); the last event.
        case complete(Completion)
    }

    /// How the stream ended.
    public struct Completion: Sendable {
        /// The URLRequest sent.
        public let request: URLRequest?
        /// The response head, if one arrived.
        public let response: HTTPURLResponse?
        /// The request's metrics.
        public let metrics: URLSessionTaskMetrics?
        /// The error, if the request failed, was cancelled or failed validation.
        public let error: AFError?
    }

    /// Cancels the request it was made for (it holds the request weakly).
    public struct CancellationToken: Sendable {
        weak var request: DataStreamRequest?

        init(_ request: DataStreamRequest) { self.request = request }

        /// Cancels the request.
        public func cancel() { request?.cancel() }
    }

    /// A validation closure, run with the response head once the request finished.
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse) -> ValidationResult

    /// Bytes handed to handlers and not yet processed above which the connection stops reading.
    /// Reading resumes at half of it.
    public static let maxBufferedBytes = 1024 * 1024

    /// What the request was built from.
    public let convertible: any URLRequestConvertible
    /// Whether a thrown handler error, or a failed serialization, cancels the request.
    public let automaticallyCancelOnStreamError: Bool
    private let modifier: RequestModifier?
    /// `nil`: the session's `startRequestsImmediately` decides.
    private let autoResume: Bool?

    /// Where a handler takes each chunk (`DataStreamRequest+Handlers.swift`, `DataStreamTask.swift`).
    struct Sink {
        /// Takes a chunk. A queued sink must call `chunkHandled(_:)` once its handler ran with
        /// it; an immediate one calls `streamConsumed(_:)` once the chunk was taken.
        let take: @Sendable (Data) -> Void
        /// Whether its handler runs later, on its queue (the closure API), so the request's end
        /// waits for it; the async API's sink hands the chunk to its buffer at once.
        let isQueued: Bool
    }

    struct StreamState {
        var flow = StreamFlowControl(highWater: DataStreamRequest.maxBufferedBytes, lowWater: DataStreamRequest.maxBufferedBytes / 2)
        var sinks: [Sink] = []
        /// How many of `sinks` are queued: each chunk is that many handler calls the end waits for.
        var queuedSinks = 0
        /// Holds the exchange's end (`failed`) while queued handlers have chunks to report.
        var endGate = ExchangeEndGate<Bool>.open
        var validators: [Validation] = []
        /// The `onHTTPResponse` handler: gets the response and answers with a disposition.
        /// A body set by fetch (`uploadFile`, `uploadStream`); `nil`: the URLRequest's `httpBody`.
        var uploadBody: RequestBody?
        var httpResponseHandler: (@Sendable (HTTPURLResponse, @escaping @Sendable (ResponseDisposition) -> Void) -> Void)?
        /// A copy of the body for the session's URL cache (a GET with a cache), `nil` once it
        /// outgrew ``DataStreamRequest/maxCachedBodyBytes``.
        var cacheCopy: Data?
    }

    /// A stream's body is offered to the URL cache (its handler, and the monitors'
    /// willCacheResponse) only up to this many bytes (1 MiB): the copy is kept in memory, and
    /// an endless stream must not grow it without bound.
    public static let maxCachedBodyBytes = 1024 * 1024

    /// The body streamed, for the cache; `nil` without a cache or past ``maxCachedBodyBytes``.
    var bodyForCache: Data? { stream.withLock { $0.cacheCopy } }
    override func bodyOfferedToCache(for request: URLRequest) -> Data? { bodyForCache }
    let stream = Mutex(StreamState())

    init(convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool, modifier: RequestModifier?,
         shouldAutomaticallyResume: Bool?, interceptor: (any RequestInterceptor)?, context: RequestContext) {
        self.convertible = convertible
        self.automaticallyCancelOnStreamError = automaticallyCancelOnStreamError
        self.modifier = modifier
        self.autoResume = shouldAutomaticallyResume
        super.init(context: context, interceptor: interceptor, queueLabel: "org.lariat.stream-request")
    }

    override var startsOnFirstHandler: Bool { autoResume ?? context.startRequestsImmediately }
    override var pausesReadingOnSuspend: Bool { false }  // back-pressure owns the stream's reading

    override func makeUploadBody(for request: inout URLRequest) throws -> RequestBody? {
        uploadBody
    }

    /// The body attached with `uploadFile(atPath:length:)` or `uploadStream(_:length:)`, if any.
    package var uploadBody: RequestBody? { stream.withLock { $0.uploadBody } }

    override func makeURLRequest() throws -> URLRequest {
        var request = try convertible.asURLRequest()
        try modifier?(&request)
        return request
    }

    // MARK: Transport hooks (on the connection's loop)

    override func didReceive(head: TransportResponseHead) {
        record(head: head)
        let keepsCopy = context.urlCache != nil && mutable.withLock { $0.inFlight?.method == .get }
        stream.withLock { $0.cacheCopy = keepsCopy ? Data() : nil }
        guard let handler = stream.withLock({ $0.httpResponseHandler }), let response else { return }
        // Nothing more is read until the handler answered (URLSession holds the task likewise),
        // and so the exchange cannot end before it: a `.cancel` always wins.
        if stream.withLock({ $0.flow.awaitDisposition() }) { currentExchange?.pauseReading() }
        handler(response) { [self] disposition in
            switch disposition {
            case .allow:
                if stream.withLock({ $0.flow.dispositionReceived() }) { currentExchange?.resumeReading() }
            case .cancel:
                cancel()
            }
        }
    }

    override func didReceiveBody(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        let (sinks, pause) = stream.withLock { state in
            if state.cacheCopy != nil {
                if state.cacheCopy!.count + data.count > Self.maxCachedBodyBytes { state.cacheCopy = nil } else { state.cacheCopy!.append(data) }
            }
            state.endGate.handedOut(state.queuedSinks)
            return (state.sinks, state.flow.received(data.count * state.sinks.count))
        }
        for sink in sinks { sink.take(data) }
        if pause { currentExchange?.pauseReading() }
    }

    /// The end waits while queued handlers have chunks to report.
    override func holdsEnd(failed: Bool) -> Bool {
        stream.withLock { $0.endGate.ended(failed) } == nil
    }

    override func runValidators() {
        let (request, response, failed) = mutable.withLock { ($0.request, $0.response, $0.error != nil) }
        guard !failed, let response else { return }
        for validation in stream.withLock({ $0.validators }) {
            let result = validation(request, response)
            if isMonitored(.didValidateStream) { emit(.didValidateStream) { [self] in $0.request(self, didValidateRequest: request, response: response, withResult: result) } }
            if case .failure(let error) = result {
                let afError = (error as? AFError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
                mutable.withLock { $0.error = $0.error ?? afError }
                return
            }
        }
    }

    /// The exchange on the wire, if any.
    private var currentExchange: Exchange? { mutable.withLock { $0.machine.activeExchange } }

    // MARK: Plumbing for handlers

    /// An immediate sink's chunk of `count` bytes was taken; resumes reading when the buffer
    /// drained enough.
    func streamConsumed(_ count: Int) {
        if stream.withLock({ $0.flow.consumed(count) }) { currentExchange?.resumeReading() }
    }

    /// A queued sink's handler ran with its chunk of `count` bytes (or skipped it, the request
    /// being cancelled): resumes reading when the buffer drained enough, and lets a held end
    /// go on when it was the last outstanding call.
    func chunkHandled(_ count: Int) {
        let (resume, released) = stream.withLock { state in (state.flow.consumed(count), state.endGate.handled()) }
        if resume { currentExchange?.resumeReading() }
        if let failed = released { endReleased(failed: failed) }
    }

    /// Adds a sink for the chunks and a closure run once the request finished.
    func appendStream(_ sink: Sink, completion: @escaping @Sendable () -> Void) {
        stream.withLock { state in
            state.sinks.append(sink)
            if sink.isQueued { state.queuedSinks += 1 }
        }
        appendResponseHandler { [self] _ in
            // The request is over: its sinks (which capture it) and the onHTTPResponse handler
            // go, so the request and its Session are not kept alive by a cycle.
            stream.withLock { state in
                state.sinks.removeAll()
                state.queuedSinks = 0
                state.httpResponseHandler = nil
            }
            completion()
        }
    }

    /// The completion as it stands.
    var completion: Completion {
        mutable.withLock { Completion(request: $0.request, response: $0.response, metrics: $0.metricsTask?.collectedMetrics, error: $0.error) }
    }

    /// Runs a user handler; a thrown error becomes the request's error and may cancel it.
    func capturingError(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            let afError = error.asAFError(or: .responseSerializationFailed(reason: .customSerializationFailed(error: error)))
            mutable.withLock { $0.error = $0.error ?? afError }
            if automaticallyCancelOnStreamError { cancel() }
        }
    }
}

extension DataStreamRequest.Stream {
    /// The chunk's result, or `nil` for `.complete`.
    public var result: Result<Success, Failure>? {
        if case .stream(let result) = event { result } else { nil }
    }
    /// The chunk's value, or `nil` for a failure or `.complete`.
    public var value: Success? { try? result?.get() }
    /// The chunk's error, or `nil`.
    public var error: Failure? {
        if case .failure(let error) = result { error } else { nil }
    }
    /// The completion, or `nil` for a chunk.
    public var completion: DataStreamRequest.Completion? {
        if case .complete(let completion) = event { completion } else { nil }
    }
}
