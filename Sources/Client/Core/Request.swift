#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization
import Wire
import TLS
import EventLoop
import Transport

/// The common part of every request: its lifecycle, the URLRequest sent, the response and error.
///
/// A request moves through ``State`` in one direction (see ``State/canTransition(to:)``); an
/// internal state machine (`RequestStateMachine`) decides every transition inside one mutex,
/// and the request acts on its decisions outside it. `Request` is a class for Alamofire's
/// reference semantics; it is `@unchecked Sendable` because every stored mutable property is
/// inside that mutex, but for `receiver`, which only the exchange's reporting thread touches
/// (`ExchangeReceiver.swift`).
public class Request: @unchecked Sendable {
    /// A request's lifecycle.
    ///
    /// `initialized` ─resume─▶ `resumed` ─response end or failure─▶ `finished`;
    /// `initialized`/`resumed` ─suspend─▶ `suspended` ─resume─▶ `resumed`;
    /// any state but `finished` ─cancel─▶ `cancelled`, which it keeps once handlers ran (as
    /// Alamofire: `cancelled` cannot become `finished`). A cancel after the response completed
    /// has no effect.
    public enum State: Sendable, Hashable {
        /// Created; nothing sent.
        case initialized
        /// Running, or waiting for a connection.
        case resumed
        /// Paused before it was sent (an HTTP/1.1 exchange in flight cannot be paused).
        case suspended
        /// Cancelled; handlers receive `AFError.explicitlyCancelled`.
        case cancelled
        /// Done: the response (or error) was delivered.
        case finished

        /// Whether moving from this state to `state` is allowed.
        public func canTransition(to state: State) -> Bool {
            switch (self, state) {
            case (.initialized, _): return true
            case (_, .initialized), (.cancelled, _), (.finished, _): return false
            case (.resumed, .cancelled), (.suspended, .cancelled), (.resumed, .suspended), (.suspended, .resumed): return true
            case (.suspended, .suspended), (.resumed, .resumed): return false
            case (_, .finished): return true
            }
        }
    }

    /// What a validation closure returns.
    public typealias ValidationResult = Result<Void, any Error>

    /// The request's identity.
    public let id: UUID
    /// The serial queue on which the request's internal work runs: finishing a download or a
    /// large body, and finishing after a cancel. A data request makes it on first use: most
    /// requests never need it (a small response finishes on the connection's loop), and making
    /// one cost three allocations per request.
    public var underlyingQueue: DispatchQueue {
        queue.withLock { queue in
            switch queue {
            case .made(let made):
                return made
            case .deferred(let label, let target):
                let made = DispatchQueue(label: label, target: target)
                queue = .made(made)
                return made
            }
        }
    }
    /// The queue on which response serializers of the completion-handler API run.
    public let serializationQueue: DispatchQueue
    /// What the request uses of its session (`RequestContext.swift`); the request does not keep
    /// the session alive.
    let context: RequestContext

    /// A response handler; `onWorker` is true when it runs on ``underlyingQueue`` (where blocking
    /// work is fine) and false on the thread the response completed on (a connection's loop) or
    /// on the thread that added it after the request finished.
    package typealias ResponseHandler = @Sendable (_ onWorker: Bool) -> Void

    /// A ``ResponseHandler`` as the state machine holds it. A closure stored as the machine's
    /// generic `Handler` is kept at the generic abstraction, so storing one allocated a
    /// reabstraction thunk per handler; a struct around it is stored as it is.
    struct StoredHandler: Sendable {
        let run: ResponseHandler
        init(_ run: @escaping ResponseHandler) { self.run = run }
        func callAsFunction(_ onWorker: Bool) { run(onWorker) }
    }

    /// The request's state machine, with its exchanges, handlers and follow-ups.
    typealias Machine = RequestStateMachine<Exchange, StoredHandler, FollowUp>

    struct Mutable {
        var machine = Machine()
        /// The request made for the current attempt (after adapters): ``Request/request``, and
        /// the `request` of every response, across redirects (as Alamofire's `lastRequest`).
        var request: URLRequest?
        /// The current follow-up exchange's request (a redirect's or a challenge answer's), `nil`
        /// while the attempt's first exchange runs: the task's `currentRequest` on Apple.
        var hop: URLRequest?
        /// The request of the exchange in flight: the hop's, else the attempt's.
        var inFlight: URLRequest? { hop ?? request }
        var response: HTTPURLResponse?
        var error: AFError?
        /// The task that keeps the last attempt's metrics (``URLSessionTask/recordMetrics(_:replacing:)``),
        /// built when read (``Request/metrics``); `nil` until recorded and after a retry's reset.
        var metricsTask: URLSessionTask?
        /// Metrics of the attempts before the last one (each retry is a new task), oldest first.
        var earlierMetrics: [URLSessionTaskMetrics] = []
        /// When the first exchange started: retries share its resource deadline.
        var firstStart: Deadline?
        /// The request's own interceptor (see `Request+Retry.swift`).
        var interceptor: (any RequestInterceptor)?
        /// HTTP caching (see `Request+Cache.swift`).
        var cache = RequestCacheState()
        /// Redirects and authentication challenges (see `Request+FollowUp.swift`).
        var followUp = FollowUpState()
        /// A `file://` request's exchange and its opened file, streamed when the machine sends
        /// it (`Features/FileURL/Request+FileURL.swift`).
        var file: (exchange: Exchange, source: FileURLSource)?
    }
    let mutable = Mutex(Mutable())
    /// The current exchange's response stages (`ExchangeReceiver.swift`): outside the mutex,
    /// touched only by the thread the exchange reports on, one at a time; replaced by `send`
    /// for each exchange. A held redirect is delivered through it once the redirect handler
    /// declined (`Request+FollowUp.swift`).
    var receiver = ExchangeReceiver()
    /// Attempts, tasks, lifecycle handlers and the request's own monitors (`Request+Lifecycle.swift`).
    let lifecycle = RequestLifecycle()
    /// Upload and download progress (`Request+Progress.swift`); its own lock, as it is touched
    /// for every run of body bytes.
    let progress = Mutex(RequestProgress())

    /// ``underlyingQueue``, or what to make it from.
    enum UnderlyingQueue {
        /// Made (or given).
        case made(DispatchQueue)
        /// Not made yet: a serial queue with this label targeting `target`.
        case deferred(label: String, target: DispatchQueue)
    }
    private let queue: Mutex<UnderlyingQueue>

    /// Creates a request of the session whose `context` is given. Every subclass passes the same
    /// shape: the context, the request's own interceptor and its queue's label.
    /// - Parameters:
    ///   - queueLabel: The label of ``underlyingQueue``, a serial queue targeting the session's root queue.
    ///   - makesQueueNow: Make the queue now (a download always uses it) rather than on first use.
    init(id: UUID = .randomV4(), context: RequestContext, interceptor: (any RequestInterceptor)?,
         queueLabel: String, makesQueueNow: Bool = false) {
        self.id = id
        self.context = context
        if let interceptor { mutable.withLock { $0.interceptor = interceptor } }
        self.queue = Mutex(makesQueueNow ? .made(DispatchQueue(label: queueLabel, target: context.rootQueue))
                                         : .deferred(label: queueLabel, target: context.rootQueue))
        self.serializationQueue = context.serializationQueue
    }

    /// The current state.
    public var state: State { mutable.withLock { $0.machine.publicState } }
    /// Whether the request is initialized and not yet resumed.
    public var isInitialized: Bool { state == .initialized }
    /// Whether the request is running.
    public var isResumed: Bool { state == .resumed }
    /// Whether the request is suspended.
    public var isSuspended: Bool { state == .suspended }
    /// Whether the request was cancelled.
    public var isCancelled: Bool { state == .cancelled }
    /// Whether the request finished.
    public var isFinished: Bool { state == .finished }
    /// The URLRequest that was (or is being) sent, once it was built.
    public var request: URLRequest? { mutable.withLock { $0.request } }
    /// The response head, once received.
    public var response: HTTPURLResponse? { mutable.withLock { $0.response } }
    /// The error the request failed with, if it did.
    public var error: AFError? { mutable.withLock { $0.error } }
    /// Timings and byte counts of the last attempt, once it finished (see `Request+Metrics.swift`).
    public var metrics: URLSessionTaskMetrics? { mutable.withLock { $0.metricsTask?.collectedMetrics ?? $0.earlierMetrics.last } }
    /// How many times a retrier retried the request (Alamofire's count: a retry counts once its
    /// delay elapsed and its new exchange is being built). The transport's own silent retries of
    /// a stale keep-alive connection do not count.
    public var retryCount: Int { mutable.withLock { $0.machine.retryCount } }

    /// Starts the request (or resumes a suspended one). Requests start on their own when the first
    /// response handler is added if the session's `startRequestsImmediately` is true (the default).
    ///
    /// Only one exchange is ever started, whatever mix of `resume()`, `suspend()` and `cancel()`
    /// other threads call meanwhile (see `RequestStateMachine`).
    @discardableResult
    public func resume() -> Self {
        // Started on the caller's thread: building the URLRequest is quick, and the hand-off to
        // the connection's loop follows at once. A hop through `underlyingQueue` first cost one
        // more thread wake-up per request (perf: wake-ups were most of a keep-alive GET's CPU).
        let (action, moved) = mutable.withLock { $0.machine.transition { $0.resume() } }
        if moved == .resumed { didResume() }
        // An exchange that ended while suspended finishes now, on the request's queue.
        if case .complete = action { underlyingQueue.async { self.complete(onWorker: true) } } else { perform(action) }
        return self
    }

    /// Suspends the request: one not sent yet is held unsent; one on the wire stops reading its
    /// response (the connection's read interest is dropped, as `URLSessionTask.suspend()` stops
    /// delivering data), and does not finish until resumed even if its response ends meanwhile.
    @discardableResult
    public func suspend() -> Self {
        let (action, moved) = mutable.withLock { $0.machine.transition { $0.suspend() } }
        if moved == .suspended { didSuspend() }
        perform(action)
        return self
    }

    /// Cancels the request: the connection carrying it is closed and handlers receive
    /// `AFError.explicitlyCancelled`. No effect once the response has completed.
    @discardableResult
    public func cancel() -> Self {
        let (action, cancelled) = mutable.withLock { state in
            let wasCancelled = state.machine.isCancelled
            let action = state.machine.cancel()
            if !wasCancelled, state.machine.isCancelled { state.error = .explicitlyCancelled }
            return (action, !wasCancelled && state.machine.isCancelled)
        }
        if cancelled { didCancel() }
        // Nothing ran yet: handlers run on the request's queue, not on the caller's stack (as
        // Alamofire, which finishes a cancelled request asynchronously).
        if case .complete = action {
            underlyingQueue.async { self.complete(onWorker: true) }
        } else {
            perform(action)
        }
        return self
    }

    /// Its session was released (`RequestContext.sessionReleased()`): a live request finishes with
    /// ``AFError/sessionDeinitialized``, its exchange cancelled on the wire and its task marked
    /// cancelling, as Alamofire's session finishes its requests and invalidates its URLSession.
    /// A request whose outcome is already settled keeps it.
    func sessionReleased() {
        let (action, took) = mutable.withLock { state in
            let wasCancelled = state.machine.isCancelled
            let action = state.machine.cancel()
            let took = !wasCancelled && state.machine.isCancelled
            if took { state.error = .sessionDeinitialized }
            return (action, took)
        }
        guard took else { return }
        if let task, task.state != .completed { task.update { $0.state = .canceling } }
        if case .complete = action {
            underlyingQueue.async { self.complete(onWorker: true) }
        } else {
            perform(action)
        }
    }

    // MARK: Subclass hooks

    /// Builds the URLRequest to send; DataRequest overrides.
    func makeURLRequest() throws -> URLRequest { fatalError("Request subclasses provide makeURLRequest()") }
    /// The body to send instead of `request.httpBody` (UploadRequest overrides); may change the
    /// request's headers (a multipart Content-Type). `nil` sends `httpBody`.
    func makeUploadBody(for request: inout URLRequest) throws -> RequestBody? { nil }
    /// The task URLSession would make for the request: a data task (UploadRequest and
    /// DownloadRequest override).
    func makeTask(identifier: Int, for urlRequest: URLRequest) -> URLSessionTask {
        URLSessionDataTask(taskIdentifier: identifier, request: urlRequest, owner: self)
    }
    /// Whether the request reads from and stores into the session's URLCache (a GET of a
    /// DataRequest; `Request+Cache.swift`). `false` by default.
    var usesURLCache: Bool { false }
    /// The response body offered to the cache once the exchange ended; `nil` (the default):
    /// nothing is stored (DataRequest and DataStreamRequest override).
    func bodyOfferedToCache(for request: URLRequest) -> Data? { nil }
    /// Why the body made by ``makeUploadBody(for:)`` cannot be sent (an upload's missing file):
    /// the exchange is then made refused, failing its task when it runs, as URLSession's
    /// upload task does. `nil` by default.
    var bodyRefusal: TransportError? { nil }
    /// The error handlers see for a transport failure (not a cancel or a trust rejection):
    /// `sessionTaskFailed` with the failure's `URLError` code (UploadRequest overrides for its
    /// ``bodyRefusal``).
    func error(for failure: TransportError, url: URL?) -> AFError {
        .sessionTaskFailed(error: URLError.lariat(failure.urlErrorCode, underlying: failure, url: url))
    }
    /// The uploadable was made and the request is about to be sent (UploadRequest reports it).
    func didCreateUploadable() {}
    /// The uploadable could not be made (UploadRequest reports it).
    func didFailToCreateUploadable(_ error: AFError) {}
    /// The protocol switch the request offers (`WebSocketRequest`'s); `nil`: none.
    func transportUpgrade() -> TransportUpgrade? { nil }
    /// Receives the response head on the thread the transport reports on (a connection's
    /// loop): keep it quick. Overrides call `record(head:)`.
    func didReceive(head: TransportResponseHead) { record(head: head) }
    /// Receives body bytes on the connection's loop, borrowed for the call: copy them.
    func didReceiveBody(_ bytes: UnsafeRawBufferPointer) {}
    /// Whether finishing must leave the transport's thread for ``underlyingQueue``: file work,
    /// or a body too large to serialize on a connection's loop. `false` by default.
    var finishesOnWorker: Bool { false }
    /// Whether `suspend()` of a request on the wire stops its connection reading; `true`
    /// (a stream request's back-pressure owns its reading: a suspend only holds its end).
    var pausesReadingOnSuspend: Bool { true }
    /// Runs first when the request finishes, before validators (DownloadRequest moves its file).
    func didComplete() {}
    /// Runs validators once the exchange ended; DataRequest overrides.
    func runValidators() {}
    /// Forgets the last exchange's body before a retry's exchange is built (on ``underlyingQueue``).
    func prepareForRetry() {}
    /// Forgets a redirect's kept body before the next hop is built (on ``underlyingQueue``);
    /// ``prepareForRetry()`` by default (DownloadRequest also removes the hop's file).
    func prepareForFollowUp() { prepareForRetry() }

    // MARK: Lifecycle

    /// Performs what the state machine decided, outside the lock.
    func perform(_ action: Machine.Action, onWorker: Bool = false) {
        switch action {
        case .none: break
        case .startExchange: if let queue = context.givenRequestQueue { queue.async { self.start() } } else { start() }
        case .executeExchange(let exchange):
            didResumeTask()
            if !serveFromCache(exchange), !serveFromFile(exchange) { context.pool.execute(exchange) }
        case .reportTaskSuspended: didSuspendTask()  // built while suspended: held unsent
        case .pauseExchange(let exchange): didSuspendTask(); if pausesReadingOnSuspend { exchange.pauseReadingFromAnyThread() }
        case .resumeExchange(let exchange): didResumeTask(); if pausesReadingOnSuspend { exchange.resumeReading() }
        case .cancelExchange(let exchange): exchange.cancel(pool: context.pool)
        case .complete: complete(onWorker: onWorker)
        case .askRetrier: askRetrier()
        case .scheduleRetry(let delay): scheduleRetry(after: delay)
        case .restartExchange: if isMonitored(.isRetrying) { emit(.isRetrying) { [self] in $0.requestIsRetrying(self) } }; prepareForRetry(); resetProgress(); start()
        case .runHandlers(let handlers): didFinish(); for handler in handlers { handler(onWorker) }
        case .runSerializer(let serializer, let announcesFinish): if announcesFinish { announceFinish() }; serializer(onWorker)
        case .finishSerializing(let completions): untrack(); for completion in completions { completion(onWorker) }
        case .startFollowUp(let next): startFollowUp(next)
        case .askRedirectHandler(let next): askRedirectHandler(next)
        }
    }

    /// Builds the URLRequest and the exchange on the caller's thread (the machine is `starting`),
    /// then reports to the machine.
    private func start() {
        // A request started after its session was released fails as Alamofire's would.
        if context.isReleased { return startFailed(.sessionDeinitialized) }
        var urlRequest: URLRequest
        do {
            urlRequest = try makeURLRequest()
            try urlRequest.validate()  // a GET or HEAD with a body fails here, before any I/O
        } catch {
            let afError = (error as? AFError) ?? AFError.createURLRequestFailed(error: error)
            if isMonitored(.didFailToCreateURLRequest) { emit(.didFailToCreateURLRequest) { [self] in $0.request(self, didFailToCreateURLRequestWithError: afError) } }
            return startFailed(afError)
        }
        let initialRequest = urlRequest
        if isMonitored(.didCreateInitialURLRequest) { emit(.didCreateInitialURLRequest) { [self] in $0.request(self, didCreateInitialURLRequest: initialRequest) } }
        let uploadBody: RequestBody?
        do {
            uploadBody = try makeUploadBody(for: &urlRequest)
        } catch {
            let afError = (error as? AFError) ?? AFError.createUploadableFailed(error: error)
            didFailToCreateUploadable(afError)
            return startFailed(afError)
        }
        // Recorded before adapting: a failed adaptation leaves the request it was given visible
        // (RetryPolicy reads its method).
        let (firstStart, own) = mutable.withLock { state in
            (state.request, state.hop) = (urlRequest, nil)
            if state.followUp.originalRequest == nil { state.followUp.originalRequest = urlRequest }
            // A retry is a new task for URLSession: its own 16 redirects and its own challenge answer.
            state.followUp.startOver()
            if state.firstStart == nil { state.firstStart = .now() }
            return (state.firstStart!, state.interceptor)
        }
        guard let adapter = context.adapter(combining: own) else {
            return send(urlRequest, uploadBody: uploadBody, firstStart: firstStart, isRecorded: true)
        }
        // As Alamofire: `requests` holds the request as made, then the adapted one
        // (`didCreateURLRequest` appends the latter), so `firstRequest` is the unadapted one.
        lifecycle.state.withLock { $0.requests.append(urlRequest) }
        let requestToAdapt = urlRequest
        // Adapters are user code: they run on the request's queue, not on the thread that
        // called `resume()` (nor a connection's loop, for a retry), as Alamofire's run on its
        // session's queue. Their completion may come from any thread.
        underlyingQueue.async { [self] in
            // Adapters are given the session; one released meanwhile has no request to adapt.
            guard let session = context.session else { return startFailed(.sessionDeinitialized) }
            adapter.adapt(requestToAdapt, using: RequestAdapterState(requestID: id, session: session)) { [self] result in
                // An adapter may add a body to a GET: checked again, failing as the adaptation (Alamofire).
                switch result.flatMap({ adapted in Result { try adapted.validate(); return adapted } }) {
                case .success(let adapted):
                    if isMonitored(.didAdaptInitialRequest) { emit(.didAdaptInitialRequest) { [self] in $0.request(self, didAdaptInitialRequest: requestToAdapt, to: adapted) } }
                    send(adapted, uploadBody: uploadBody, firstStart: firstStart, isRecorded: false)
                case .failure(let error):
                    let afError = AFError.requestAdaptationFailed(error: error)
                    if isMonitored(.didFailToAdaptURLRequest) { emit(.didFailToAdaptURLRequest) { [self] in $0.request(self, didFailToAdaptURLRequest: requestToAdapt, withError: afError) } }
                    startFailed(afError)
                }
            }
        }
    }

    /// Builds the exchange for the (adapted) URLRequest and reports it to the machine;
    /// `isRecorded`: `urlRequest` is already the request's `request` (nothing adapted it), so
    /// the common path takes the lock once.
    /// `isFollowUp`: a redirect's or a challenge answer's exchange, which creates no URLRequest
    /// of the request's own (URLSession's hops never reach Alamofire's `requests` either).
    private func send(_ urlRequest: URLRequest, uploadBody: RequestBody?, firstStart: Deadline, isRecorded: Bool, isFollowUp: Bool = false) {
        // The user's own file:// URL is read locally; a hop's (a server's Location) is refused below.
        if !isFollowUp, let url = urlRequest.url, url.isFileURL {
            return sendFile(urlRequest, url: url, uploadBody: uploadBody, isRecorded: isRecorded)
        }
        var urlRequest = urlRequest
        switch cacheBeforeSend(urlRequest) {
        case .network(let sending): urlRequest = sending
        case .serve: break
        case .unavailable:
            return startFailed(.sessionTaskFailed(error: URLError(.resourceUnavailable, userInfo: urlRequest.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:])))
        }
        if !isRecorded { mutable.withLock { $0.request = urlRequest } }
        if !isFollowUp { didCreateURLRequest(urlRequest) }
        didCreateUploadable()
        var transport: TransportRequest
        do {
            transport = try context.transportRequest(for: urlRequest, uploadBody: uploadBody, start: firstStart)
            if let refusal = bodyRefusal { transport = .refused(refusal) }
            transport.upgrade = transportUpgrade()
        } catch {
            return startFailed((error as? AFError) ?? .createURLRequestFailed(error: error))
        }
        // Every transport event takes one path into the request, synchronously on the thread
        // that reports it: the request as its exchange's receiver (`ExchangeReceiver.swift`),
        // running the response stages in one fixed order, reporting here at head and end. The
        // head, the body and the end of a running exchange all come from its connection's loop,
        // in order; a failure before any connection comes alone from the pool's thread.
        let task = didCreateTask(for: urlRequest)
        // The last exchange has ended (a request's exchanges do not overlap): its stages go.
        receiver = ExchangeReceiver(task: task)
        let exchange = Exchange(request: transport, receiver: self)
        // A request suspended meanwhile holds the exchange unsent: the machine answers
        // `reportTaskSuspended`.
        perform(mutable.withLock { $0.machine.exchangeCreated(exchange) })
    }

    /// Sends a follow-up's request (see `Request+FollowUp.swift`).
    func sendFollowUp(_ urlRequest: URLRequest, uploadBody: RequestBody?, firstStart: Deadline) {
        send(urlRequest, uploadBody: uploadBody, firstStart: firstStart, isRecorded: true, isFollowUp: true)
    }

    /// Ends a follow-up whose request could not be built.
    func failFollowUp(_ error: AFError) { startFailed(error) }

    func startFailed(_ error: AFError) {
        perform(mutable.withLock { state in
            state.error = state.error ?? error
            return state.machine.startFailed()
        })
    }

    /// The receiver's report at the head, after the cache stage: a redirect or a 401 may call
    /// for another exchange (`Request+FollowUp.swift`). Returns where the body goes, `nil` when
    /// the request was cancelled meanwhile (nothing is recorded; the end follows).
    func headArrived(_ head: TransportResponseHead) -> FollowUpRoute.Mode? {
        let decision = judge(head)
        return mutable.withLock { state -> FollowUpRoute.Mode? in
            guard state.machine.transportHeadReceived(decision.kind) == .record else { return nil }
            recordDecision(decision, into: &state)
            return decision.route
        }
    }

    /// The receiver's report at the end of the exchange (its body decoded and checked): the
    /// outcome and the task's completion are recorded now; the end reaches the state machine
    /// now too, unless handler calls handed out before it hold it (``holdsEnd(failed:)``).
    func exchangeEnded(summary: TransportSummary?, failure: TransportError?) {
        record(summary: summary, failure: failure)
        if failure == nil { transferEnded() }
        taskEnded(bytesSent: summary.map { Int64($0.requestBodyBytes) })
        guard !holdsEnd(failed: failure != nil) else { return }
        endReached(failed: failure != nil, onWorker: false)
    }

    /// Whether the exchange's end must wait for handler calls handed out before it (a stream's
    /// chunks; `Core/ExchangeEndGate.swift`): the subclass then calls ``endReleased(failed:)``
    /// once they reported back. `false` by default.
    func holdsEnd(failed: Bool) -> Bool { false }

    /// The last handler call a held end waited for reported back (on that handler's queue): the
    /// end reaches the machine on the request's queue.
    func endReleased(failed: Bool) {
        underlyingQueue.async { self.endReached(failed: failed, onWorker: true) }
    }

    /// The exchange's end reaches the state machine: the request completes, or a follow-up starts.
    private func endReached(failed: Bool, onWorker: Bool) {
        let action = mutable.withLock { $0.machine.transportEnded(failed: failed) }
        guard case .complete = action else { return perform(action, onWorker: onWorker) }
        if onWorker { return complete(onWorker: true) }
        // Two thread hops per request: the response completes on the connection's loop, and a
        // small response finishes right here, so a handler from the async API serializes here and
        // resumes the awaiting task directly (caller → loop → awaiting task). Files and bodies
        // over 64 KiB go to the request's queue, keeping the loop free for other connections.
        if finishesOnWorker {
            underlyingQueue.async { self.complete(onWorker: true) }
        } else {
            complete(onWorker: false)
        }
    }

    /// Stops the exchange on the wire (a follow-up's body too long to drain); its end follows.
    func cancelActiveExchange() {
        mutable.withLock { $0.machine.activeExchange }?.cancel(pool: context.pool)
    }

    /// Records `error` unless an earlier one is recorded.
    func recordError(_ error: AFError) {
        mutable.withLock { $0.error = $0.error ?? error }
    }

    /// The request of the exchange in flight (a follow-up's hop, else ``request``).
    var inFlightRequest: URLRequest? { mutable.withLock { $0.inFlight } }

    /// Finishes the exchange: the subclass's last step, validators, then either every waiting
    /// handler or, for a failure with a retrier, the retrier's decision.
    private func complete(onWorker: Bool) {
        taskEnded(bytesSent: nil)  // no-op unless a held, never-run exchange was cancelled
        closeUnsentFile()
        didComplete()
        storeInCache()
        runValidators()
        reportTaskCompletion()
        let sessionRetries = context.interceptor != nil
        perform(mutable.withLock { state in
            state.machine.outcomeRecorded(failed: state.error != nil, hasRetrier: sessionRetries || state.interceptor != nil)
        }, onWorker: onWorker)
    }

    /// Records the response head. Every hop's head passes here, a redirect's drained one too
    /// (its cookies were stored by the receiver's cookie stage just before).
    func record(head: TransportResponseHead) {
        // A file:// load has no HTTP response (URLSession gives a plain URLResponse; Alamofire's `response` is nil).
        guard let url = mutable.withLock({ $0.inFlight?.url }), !url.isFileURL else { return }
        let headers = HTTPHeaders(received: head.fields)  // decoded when read
        let response = HTTPURLResponse(url: url, statusCode: head.status, httpVersion: head.versionString, headers: headers,
                                       reasonPhrase: head.reason)
        mutable.withLock { $0.response = response }
    }

    /// Records the outcome of the exchange.
    private func record(summary: TransportSummary?, failure: TransportError?) {
        let (request, response) = mutable.withLock { ($0.inFlight, $0.response) }
        if let summary, let request { recordMetrics(TransactionRecord(request: request, response: response, summary: summary), failed: failure != nil) }
        if let failure {
            let afError: AFError
            if failure.kind == .cancelled {
                afError = .explicitlyCancelled
            } else if let trustError = failure.serverTrustEvaluationError {
                afError = trustError
            } else {
                afError = error(for: failure, url: request?.url)
            }
            mutable.withLock { $0.error = $0.error ?? afError }
        }
    }

    /// Stops the exchange on the wire without cancelling the request (a download's local file
    /// failure): `error` is recorded first, so it is what the handlers see.
    func abortExchange(with error: (URLRequest?) -> AFError) {
        let afError = error(mutable.withLock { $0.inFlight })
        let exchange = mutable.withLock { state -> Exchange? in
            state.error = state.error ?? afError
            return state.machine.activeExchange
        }
        exchange?.cancel(pool: context.pool)
    }

    /// Adds a handler that runs once the request finished (at once, on this thread, if it
    /// already has), and starts the request if the session starts requests on the first handler.
    /// `package`: LariatOpenAPI learns of a request that ended before its response head with it.
    /// `serializer`: a response serializer, which must report ``serializerFinished(_:failure:onWorker:deliver:replacingFailure:)``
    /// (`Request+Retry.swift`): serializers run one at a time and may retry the request.
    package func appendResponseHandler(_ handler: @escaping ResponseHandler, serializer: Bool = false) {
        switch mutable.withLock({ $0.machine.handlerAppended(StoredHandler(handler), serializer: serializer) }) {
        case .none:
            if startsOnFirstHandler { resume() }
        case .runHandlers(let ready):
            for handler in ready { handler(false) }
        case let action:
            // A serializer added once finished: its own serializing turn (it may retry). Live
            // again, the session tracks it until it finishes, so cancelAllRequests reaches a retry.
            context.track(self)
            perform(action)
        }
    }

    /// Whether adding the first handler starts the request: the session's
    /// `startRequestsImmediately`, unless the request was made with `shouldAutomaticallyResume`.
    var startsOnFirstHandler: Bool { shouldAutomaticallyResume ?? context.startRequestsImmediately }
}
