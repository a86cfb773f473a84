#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import TLS
import EventLoop

/// The common part of every request: its lifecycle, the URLRequest sent, the response and error.
///
/// A request moves through ``State`` in one direction (see ``State/canTransition(to:)``); an
/// internal state machine (`RequestStateMachine`) decides every transition inside one mutex,
/// and the request acts on its decisions outside it. `Request` is a class for Alamofire's
/// reference semantics; it is `@unchecked Sendable` because every stored mutable property is
/// inside that mutex.
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
    let session: Session

    /// A response handler; `onWorker` is true when it runs on ``underlyingQueue`` (where blocking
    /// work is fine) and false on the thread the response completed on (a connection's loop) or
    /// on the thread that added it after the request finished.
    package typealias ResponseHandler = @Sendable (_ onWorker: Bool) -> Void

    struct Mutable {
        var machine = RequestStateMachine<Exchange, ResponseHandler>()
        var request: URLRequest?
        var response: HTTPURLResponse?
        var error: AFError?
        var metrics: URLSessionTaskMetrics?
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
    }
    let mutable = Mutex(Mutable())
    /// Attempts, tasks, lifecycle handlers and the request's own monitors (`Request+Lifecycle.swift`).
    let lifecycle = RequestLifecycle()
    /// Where the current exchange's body goes (see `Request+FollowUp.swift`).
    let route = BodyRoute()
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
    /// The decoder of a gzip/deflate response body, made by its head (`Request+ContentDecoding.swift`).
    let contentDecoder = Mutex<ContentDecoder?>(nil)

    init(id: UUID = .randomV4(), session: Session, interceptor: (any RequestInterceptor)? = nil,
         underlyingQueue: DispatchQueue, serializationQueue: DispatchQueue) {
        self.id = id
        self.session = session
        mutable.withLock { $0.interceptor = interceptor }
        self.queue = Mutex(.made(underlyingQueue))
        self.serializationQueue = serializationQueue
    }

    /// A request whose ``underlyingQueue`` (label `label`, targeting `target`) is made on first use.
    init(id: UUID = .randomV4(), session: Session, interceptor: (any RequestInterceptor)? = nil,
         underlyingQueueLabel label: String, target: DispatchQueue, serializationQueue: DispatchQueue) {
        self.id = id
        self.session = session
        if let interceptor { mutable.withLock { $0.interceptor = interceptor } }
        self.queue = Mutex(.deferred(label: label, target: target))
        self.serializationQueue = serializationQueue
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
    public var metrics: URLSessionTaskMetrics? { mutable.withLock { $0.metrics ?? $0.earlierMetrics.last } }
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
        perform(action)
        return self
    }

    /// Suspends the request if it has not been sent yet; otherwise has no effect. A request
    /// suspended while it is being built is held, unsent, until resumed.
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

    // MARK: Subclass hooks

    /// Builds the URLRequest to send; DataRequest overrides.
    func makeURLRequest() throws -> URLRequest { fatalError("Request subclasses provide makeURLRequest()") }
    /// The body to send instead of `request.httpBody` (UploadRequest overrides); may change the
    /// request's headers (a multipart Content-Type). `nil` sends `httpBody`.
    func makeUploadBody(for request: inout URLRequest) throws -> RequestBody? { nil }
    /// Receives the response head on the thread the transport reports on (a connection's
    /// loop): keep it quick. Overrides call `record(head:)`.
    func didReceive(head: TransportResponseHead) { record(head: head) }
    /// Receives body bytes on the connection's loop, borrowed for the call: copy them.
    func didReceiveBody(_ bytes: UnsafeRawBufferPointer) {}
    /// Whether finishing must leave the transport's thread for ``underlyingQueue``: file work,
    /// or a body too large to serialize on a connection's loop. `false` by default.
    var finishesOnWorker: Bool { false }
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
    func perform(_ action: RequestStateMachine<Exchange, ResponseHandler>.Action, onWorker: Bool = false) {
        switch action {
        case .none: break
        case .startExchange: if let queue = session.givenRequestQueue { queue.async { self.start() } } else { start() }
        case .executeExchange(let exchange): didResumeTask(); if !serveFromCache(exchange) { session.pool.execute(exchange) }
        case .cancelExchange(let exchange): exchange.cancel(pool: session.pool)
        case .deliverHead: preconditionFailure("deliverHead answers only transportHeadReceived")
        case .complete: complete(onWorker: onWorker)
        case .askRetrier: askRetrier()
        case .scheduleRetry(let delay): scheduleRetry(after: delay)
        case .restartExchange: if isMonitored { emit { [self] in $0.requestIsRetrying(self) } }; prepareForRetry(); resetProgress(); start()
        case .runHandlers(let handlers): didFinish(); for handler in handlers { handler(onWorker) }
        case .startFollowUp: startFollowUp()
        case .askRedirectHandler: askRedirectHandler()
        }
    }

    /// Builds the URLRequest and the exchange on the caller's thread (the machine is `starting`),
    /// then reports to the machine.
    private func start() {
        var urlRequest: URLRequest
        do {
            urlRequest = try makeURLRequest()
            try urlRequest.validate()  // a GET or HEAD with a body fails here, before any I/O
        } catch {
            let afError = (error as? AFError) ?? AFError.createURLRequestFailed(error: error)
            if isMonitored { emit { [self] in $0.request(self, didFailToCreateURLRequestWithError: afError) } }
            return startFailed(afError)
        }
        let initialRequest = urlRequest
        if isMonitored { emit { [self] in $0.request(self, didCreateInitialURLRequest: initialRequest) } }
        let uploadBody: RequestBody?
        do {
            uploadBody = try makeUploadBody(for: &urlRequest)
        } catch {
            let afError = (error as? AFError) ?? AFError.createUploadableFailed(error: error)
            (self as? UploadRequest)?.didFailToCreateUploadable(afError)
            return startFailed(afError)
        }
        // Recorded before adapting: a failed adaptation leaves the request it was given visible
        // (RetryPolicy reads its method).
        let (firstStart, own) = mutable.withLock { state in
            state.request = urlRequest
            if state.followUp.originalRequest == nil { state.followUp.originalRequest = urlRequest }
            // A retry is a new task for URLSession: its own 16 redirects and its own challenge answer.
            state.followUp.startOver()
            if state.firstStart == nil { state.firstStart = .now() }
            return (state.firstStart!, state.interceptor)
        }
        guard let adapter = session.adapter(combining: own) else {
            return send(urlRequest, uploadBody: uploadBody, firstStart: firstStart, isRecorded: true)
        }
        let requestToAdapt = urlRequest
        // Adapters are user code: they run on the request's queue, not on the thread that
        // called `resume()` (nor a connection's loop, for a retry), as Alamofire's run on its
        // session's queue. Their completion may come from any thread.
        underlyingQueue.async { [self] in
            adapter.adapt(requestToAdapt, using: RequestAdapterState(requestID: id, session: session)) { [self] result in
                switch result {
                case .success(let adapted):
                    if isMonitored { emit { [self] in $0.request(self, didAdaptInitialRequest: requestToAdapt, to: adapted) } }
                    send(adapted, uploadBody: uploadBody, firstStart: firstStart, isRecorded: false)
                case .failure(let error):
                    let afError = AFError.requestAdaptationFailed(error: error)
                    if isMonitored { emit { [self] in $0.request(self, didFailToAdaptURLRequest: requestToAdapt, withError: afError) } }
                    startFailed(afError)
                }
            }
        }
    }

    /// Builds the exchange for the (adapted) URLRequest and reports it to the machine;
    /// `isRecorded`: `urlRequest` is already the request's `request` (nothing adapted it), so
    /// the common path takes the lock once.
    private func send(_ urlRequest: URLRequest, uploadBody: RequestBody?, firstStart: Deadline, isRecorded: Bool) {
        var urlRequest = urlRequest
        switch cacheBeforeSend(urlRequest) {
        case .network(let sending): urlRequest = sending
        case .serve: break
        case .unavailable:
            return startFailed(.sessionTaskFailed(error: URLError(.resourceUnavailable, userInfo: urlRequest.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:])))
        }
        if !isRecorded { mutable.withLock { $0.request = urlRequest } }
        didCreateURLRequest(urlRequest)
        (self as? UploadRequest)?.didCreateUploadable()
        let transport: TransportRequest
        do {
            transport = try session.transportRequest(for: urlRequest, uploadBody: uploadBody, start: firstStart)
        } catch {
            return startFailed((error as? AFError) ?? .createURLRequestFailed(error: error))
        }
        // Every transport event takes this one path into the request, synchronously on the
        // thread that reports it: the head, the body and the end of a running exchange all come
        // from its connection's loop, in order; a failure before any connection (refused,
        // cancelled while queued, TLS setup) comes alone from the pool's thread. The state
        // machine decides what each event means. (The end used to hop to `underlyingQueue`
        // while the head stayed on the loop: two paths, and one thread wake-up per request.)
        // The route sends body bytes to the request, or discards them while a redirect or a
        // challenge's answer waits (`Request+FollowUp.swift`).
        route.reset()
        let exchange = Exchange(request: transport, handler: { [weak self] event in
            self?.transportEvent(event)
        }, bodyHandler: { [weak self] bytes in
            guard let self else { return }
            if !route.isDiscarding { taskReceived(bytes); receiveBody(bytes); return bodyReceived(bytes.count) }
            if route.drain(bytes) { mutable.withLock { $0.machine.activeExchange }?.cancel(pool: session.pool) }
        })
        _ = didCreateTask(for: urlRequest)
        let action = mutable.withLock { $0.machine.exchangeCreated(exchange) }
        if case .none = action { didSuspendTask() }  // created while suspended: held unsent
        perform(action)
    }

    /// Sends a follow-up's request (see `Request+FollowUp.swift`).
    func sendFollowUp(_ urlRequest: URLRequest, uploadBody: RequestBody?, firstStart: Deadline) {
        send(urlRequest, uploadBody: uploadBody, firstStart: firstStart, isRecorded: true)
    }

    /// Ends a follow-up whose request could not be built.
    func failFollowUp(_ error: AFError) { startFailed(error) }

    private func startFailed(_ error: AFError) {
        perform(mutable.withLock { state in
            state.error = state.error ?? error
            return state.machine.startFailed()
        })
    }

    /// The one entry for the transport's events; see `start()`.
    private func transportEvent(_ event: TransportEvent) {
        let (summary, failure): (TransportSummary?, TransportError?)
        switch event {
        case .head(let head):
            // A redirect or a 401 may call for another exchange (`Request+FollowUp.swift`).
            let judgement = judge(head)
            let action = mutable.withLock { state in
                let action = state.machine.transportHeadReceived(judgement.kind)
                if case .deliverHead = action { recordJudgement(judgement, into: &state) }
                return action
            }
            guard case .deliverHead = action else { return }
            if judgement.kind == .decided || judgement.error != nil {
                route.discard()  // set before this returns: the body follows on this thread
                record(head: head)
            } else if judgement.kind == .undecided {
                // Held until the user's handler answered; delivered only if it declines.
                route.hold(head)
                record(head: head)
            } else {
                prepareContentDecoding(for: head)
                deliverHeadThroughCache(head)
                expectBody(length: head.contentLength)
                if let response { taskReceived(response, expectedLength: head.contentLength) }
            }
            return
        case .bodySent(let sent, let total):
            return bodySent(sent, of: total)
        case .end(let done): (summary, failure) = (done, nil)
        case .failure(let error, let partial) where error.kind == .cancelled && route.isAbandoned:
            // Closed by us: a follow-up's body was too long to drain. The follow-up goes on.
            (summary, failure) = (partial, nil)
        case .failure(let error, let partial): (summary, failure) = (partial, error)
        }
        finishContentDecoding(complete: failure == nil)
        record(summary: summary, failure: failure)
        if failure == nil { transferEnded() }
        taskEnded(bytesSent: summary.map { Int64($0.requestBodyBytes) })
        let action = mutable.withLock { $0.machine.transportEnded(failed: failure != nil) }
        guard case .complete = action else { return perform(action) }
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

    /// Finishes the exchange: the subclass's last step, validators, then either every waiting
    /// handler or, for a failure with a retrier, the retrier's decision.
    private func complete(onWorker: Bool) {
        taskEnded(bytesSent: nil)  // no-op unless a held, never-run exchange was cancelled
        didComplete()
        storeInCache()
        runValidators()
        reportTaskCompletion()
        let sessionRetries = session.interceptor != nil
        perform(mutable.withLock { state in
            state.machine.outcomeRecorded(failed: state.error != nil, hasRetrier: sessionRetries || state.interceptor != nil)
        }, onWorker: onWorker)
    }

    /// Records the response head. Every hop's head passes here, a redirect's drained one too.
    // MERGE: cookies-retry — store Set-Cookie here so a redirect response's cookies reach the next
    // hop, which is built through `Session.transportRequest` like the first.
    func record(head: TransportResponseHead) {
        guard let urlRequest = request, let url = urlRequest.url else { return }
        var headers = HTTPHeaders()
        headers.reserveCapacity(head.fields.count)
        for field in head.fields { headers.appendField(name: field.name, value: field.value) }
        let response = HTTPURLResponse(url: url, statusCode: head.status, httpVersion: head.versionString, headers: headers,
                                       reasonPhrase: head.reason)
        session.settings.storeCookies(from: head.fields, for: url, request: urlRequest)
        mutable.withLock { $0.response = response }
    }

    /// Records the outcome of the exchange.
    private func record(summary: TransportSummary?, failure: TransportError?) {
        let (request, response) = mutable.withLock { ($0.request, $0.response) }
        if let summary, let request { recordMetrics(TransactionRecord(request: request, response: response, summary: summary), failed: failure != nil) }
        if let failure {
            let afError: AFError
            if failure.kind == .cancelled {
                afError = .explicitlyCancelled
            } else if let trustError = failure.serverTrustEvaluationError {
                afError = trustError
            } else {
                afError = .sessionTaskFailed(error: URLError.lariat(failure.urlErrorCode, underlying: failure, url: request?.url))
            }
            mutable.withLock { $0.error = $0.error ?? afError }
        }
    }

    /// Stops the exchange on the wire without cancelling the request (a download's local file
    /// failure): `error` is recorded first, so it is what the handlers see.
    func abortExchange(with error: (URLRequest?) -> AFError) {
        let afError = error(request)
        let exchange = mutable.withLock { state -> Exchange? in
            state.error = state.error ?? afError
            return state.machine.activeExchange
        }
        exchange?.cancel(pool: session.pool)
    }

    /// Adds a handler that runs once the request finished (at once, on this thread, if it
    /// already has), and starts the request if the session starts requests on the first handler.
    /// `package`: LariatOpenAPI learns of a request that ended before its response head with it.
    package func appendResponseHandler(_ handler: @escaping ResponseHandler) {
        if case .runHandlers(let ready) = mutable.withLock({ $0.machine.handlerAppended(handler) }) {
            for handler in ready { handler(false) }
        } else if startsOnFirstHandler {
            resume()
        }
    }

    /// Whether adding the first handler starts the request: the session's
    /// `startRequestsImmediately`, unless the request was made with `shouldAutomaticallyResume`.
    var startsOnFirstHandler: Bool { shouldAutomaticallyResume ?? session.startRequestsImmediately }
}

extension TransportError {
    /// The `URLError.Code` Apple's URLSession uses for this kind of failure, so RetryPolicy and
    /// user code branching on codes work unchanged.
    var urlErrorCode: URLError.Code {
        switch kind {
        case .connectionRefused: return .cannotConnectToHost
        case .hostNotFound: return .cannotFindHost
        case .timedOut: return .timedOut
        case .connectionLost: return .networkConnectionLost
        case .malformedResponse: return .badServerResponse
        case .tls: return tlsURLErrorCode
        case .invalidRequest: return .badURL
        case .unsupportedURL: return .unsupportedURL
        case .requestBodyUnreadable: return .requestBodyStreamExhausted
        case .cancelled: return .cancelled
        case .unreachable: return .notConnectedToInternet
        case .proxy: return proxyURLErrorCode
        default: return .cannotConnectToHost
        }
    }
}

extension TransportError {
    /// The `AFError.serverTrustEvaluationFailed` a ``ServerTrustManager`` evaluator threw during
    /// the handshake, carried as `TLSError.evaluatorError`; `nil` for any other failure.
    var serverTrustEvaluationError: AFError? {
        guard kind == .tls, let tls = underlying as? TLSError, tls.kind == .evaluatorRejected,
              let error = tls.evaluatorError as? AFError, error.isServerTrustEvaluationError else { return nil }
        return error
    }

    /// Apple's certificate codes for default-evaluation failures, `.secureConnectionFailed` otherwise.
    var tlsURLErrorCode: URLError.Code {
        guard let failure = (underlying as? TLSError)?.trustFailure else { return .secureConnectionFailed }
        switch failure.reason {
        case .expired, .notYetValid: return .serverCertificateHasBadDate
        case .untrustedRoot, .selfSigned, .incompleteChain: return .serverCertificateHasUnknownRoot
        default: return .serverCertificateUntrusted
        }
    }
}

extension UUID {
    /// A random (version 4) UUID from the system generator (`getrandom`, two calls).
    ///
    /// swift-foundation's `UUID()` opens, reads and closes `/dev/urandom` on every call here:
    /// three syscalls per request, seen in `strace -c` and at up to 4% of a keep-alive GET's
    /// samples under perf.
    static func randomV4() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (8 * index)) }
        return UUID(uuid: (
            byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3),
            byte(high, 4), byte(high, 5), byte(high, 6) & 0x0F | 0x40, byte(high, 7),  // version 4
            byte(low, 0) & 0x3F | 0x80, byte(low, 1), byte(low, 2), byte(low, 3),  // RFC 4122 variant
            byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)
        ))
    }
}
