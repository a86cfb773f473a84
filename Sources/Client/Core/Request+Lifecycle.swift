#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

// What a request remembers about its attempts (URLRequests and task stand-ins), the handlers
// waiting for them, its own event monitors, and the hooks `Request` calls to report events.
// Event order: see the header of `EventMonitor.swift`.

/// A request's attempts and lifecycle handlers, in one mutex. Stored inline in its request
/// (noncopyable, as `BodyBuffer`): no allocation of its own per request.
struct RequestLifecycle: ~Copyable, Sendable {
    /// The last task's progress towards its two completion events, each reported once.
    ///
    /// `running` ─taskEnded─▶ `completed(error)` ─reportTaskCompletion─▶ `reported`; a new
    /// attempt's task starts again at `running`. `taskEnded` in
    /// `completed` or `reported`, and `reportTaskCompletion` in `running` or `reported`, do
    /// nothing: a cancel and the transport's end may both try to end the task, and only the
    /// first counts.
    enum TaskPhase: Sendable {
        /// Created (at `since`), or not yet created; the transport has not ended it. `metrics`:
        /// the attempt's metrics, once its last exchange was recorded; reported when the task
        /// ends (`didFinishCollecting`, `didGatherMetrics`, just before `didCompleteWithError`,
        /// as URLSession orders them). A task that ends without them (cancelled before any
        /// exchange was recorded) reports metrics without transactions, as URLSession reports
        /// metrics for every task. Exit: taskEnded → completed.
        case running(since: Date, metrics: TaskMetrics?)
        /// Ended (`urlSession(_:task:didCompleteWithError:)` was reported), with the error it
        /// ended with before validators, as `request(_:didCompleteTask:with:)` will report it.
        /// Exit: reportTaskCompletion → reported.
        case completed(AFError?)
        /// `request(_:didCompleteTask:with:)` was reported. Exit: the next attempt's task → running.
        case reported
    }

    /// A handler and the queue to call it on.
    struct Queued<Value>: Sendable {
        let queue: DispatchQueue
        let handler: @Sendable (Value) -> Void
        func call(_ value: Value) where Value: Sendable { queue.async { handler(value) } }
    }

    struct State: Sendable {
        /// Every URLRequest created (after adapters), one per attempt.
        var requests = AttemptList<URLRequest>()
        /// Every task, one per attempt.
        var tasks = AttemptList<URLSessionTask>()
        /// Where the last task is between its creation and `didCompleteTask` (see ``TaskPhase``).
        var taskPhase = TaskPhase.running(since: Date(timeIntervalSinceReferenceDate: 0), metrics: nil)
        /// The request's own monitors (``Request/eventMonitor(_:)``), after the session's.
        var monitors: [any EventMonitor] = []
        var urlRequestHandlers: [Queued<URLRequest>] = []
        var taskHandlers: [Queued<URLSessionTask>] = []
        var cURLHandlers: [Queued<String>] = []
        /// `shouldAutomaticallyResume:` given when the request was made; `nil`: the session's rule.
        var shouldAutomaticallyResume: Bool?
        /// In the session's set of live requests.
        var isTracked = false
        /// The current attempt's exchanges a follow-up continued, oldest first (its metrics' earlier transactions).
        var earlierHops: [TransactionRecord] = []
        /// The current exchange's body after content decoding, when a decoder ran.
        var decodedBodyBytes: Int64?
        /// The user info of the request's notifications (``AlamofireNotifications``), built once.
        var notificationUserInfo = NotificationUserInfo.notBuilt
    }

    let state = Mutex(State())
    /// Whether body chunks are reported to the session's monitors (a copy of each chunk):
    /// decided when the attempt's task is created, read on the connection's loop for every chunk.
    let reportsChunks = Atomic<Bool>(false)
    /// Whether the request has monitors of its own (``Request/eventMonitor(_:)``).
    let hasOwnMonitors = Atomic<Bool>(false)
}

extension Request: Equatable, Hashable, CustomStringConvertible {
    /// Requests are equal when they are the same request (same ``id``).
    public static func == (lhs: Request, rhs: Request) -> Bool { lhs.id == rhs.id }

    /// Hashes the request's ``id``.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The method and URL of the last URLRequest, and the status code once a response arrived:
    /// `GET https://example.com/get (200)`; `No request created yet.` before the first attempt.
    public var description: String {
        guard let request = lastRequest, let url = request.url, let method = request.httpMethod else {
            return "No request created yet."
        }
        let text = "\(method) \(url.absoluteString)"
        return response.map { "\(text) (\($0.statusCode))" } ?? text
    }
}

extension Request {
    // MARK: Attempts

    /// Every URLRequest the request created, one per attempt (after adapters).
    public var requests: [URLRequest] { lifecycle.state.withLock { $0.requests.all } }
    /// The first URLRequest created.
    public var firstRequest: URLRequest? { lifecycle.state.withLock { $0.requests.first } }
    /// The last URLRequest created.
    public var lastRequest: URLRequest? { lifecycle.state.withLock { $0.requests.last } }
    /// The URLRequests each task sent (its `currentRequest`).
    public var performedRequests: [URLRequest] { tasks.compactMap(\.currentRequest) }
    /// Every task, one per attempt.
    public var tasks: [URLSessionTask] { lifecycle.state.withLock { $0.tasks.all } }
    /// The first task.
    public var firstTask: URLSessionTask? { lifecycle.state.withLock { $0.tasks.first } }
    /// The last task.
    public var lastTask: URLSessionTask? { lifecycle.state.withLock { $0.tasks.last } }
    /// The current (last) task, once the first attempt created one.
    public var task: URLSessionTask? { lifecycle.state.withLock { $0.tasks.last } }

    /// Whether the request starts when its first response handler is added: the value given to
    /// the session's request method, `nil` when none was (the session's `startRequestsImmediately` decides).
    public var shouldAutomaticallyResume: Bool? { lifecycle.state.withLock { $0.shouldAutomaticallyResume } }

    /// Sets ``shouldAutomaticallyResume`` and, for a session with `.eager` request setup, builds
    /// the URLRequest and the task now, unsent (the session's request methods call it right
    /// after creating the request, so every creation path gets the session's setup).
    func automaticallyResuming(_ value: Bool?) -> Self {
        if let value { lifecycle.state.withLock { $0.shouldAutomaticallyResume = value } }
        if context.requestSetup == .eager {
            trackIfNeeded()
            perform(mutable.withLock { $0.machine.prepare() })
        }
        return self
    }


    /// The session that made the request, as Alamofire's `RequestDelegate`; `nil` once it was
    /// released (a request does not keep its session alive).
    public var delegate: (any RequestDelegate)? { context.session }

    // MARK: Handlers

    /// Calls `handler` on `queue` with every URLRequest the request creates (one per attempt,
    /// after adapters), and at once with the last one if one exists.
    /// - Parameters:
    ///   - queue: `.main` by default.
    ///   - handler: Receives the URLRequest.
    @discardableResult
    public func onURLRequestCreation(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (URLRequest) -> Void) -> Self {
        let entry = RequestLifecycle.Queued(queue: queue, handler: handler)
        let existing = lifecycle.state.withLock { state in
            state.urlRequestHandlers.append(entry)
            return state.requests.last
        }
        if let existing { entry.call(existing) }
        return self
    }

    /// Calls `handler` on `queue` with every task the request creates (one per attempt), and
    /// at once with the current one if one exists.
    /// - Parameters:
    ///   - queue: `.main` by default.
    ///   - handler: Receives the task.
    @discardableResult
    public func onURLSessionTaskCreation(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (URLSessionTask) -> Void) -> Self {
        let entry = RequestLifecycle.Queued(queue: queue, handler: handler)
        let existing = lifecycle.state.withLock { state in
            state.taskHandlers.append(entry)
            return state.tasks.last
        }
        if let existing { entry.call(existing) }
        return self
    }

    /// Adds a monitor that receives this request's events, after the session's monitors.
    @discardableResult
    public func eventMonitor(_ eventMonitor: any EventMonitor) -> Self {
        lifecycle.state.withLock { $0.monitors.append(eventMonitor) }
        lifecycle.hasOwnMonitors.store(true, ordering: .relaxed)
        return self
    }

    /// The monitors this request's events go to: the session's, then the request's own.
    public var eventMonitor: (any EventMonitor)? {
        let own = lifecycle.state.withLock { $0.monitors }
        return own.isEmpty ? context.eventMonitor : CompositeEventMonitor(monitors: [context.eventMonitor] + own)
    }

    // MARK: Reporting events (called by Request and its subclasses)

    /// Whether any monitor wants `event`, besides ``AlamofireNotifications`` for the events it
    /// posts. Callers test it before building the event (`if isMonitored(.x) { emit(.x) { … } }`):
    /// with the default monitors, or monitors that implement other events only
    /// (`SelectiveEventMonitor`), the closure is never made, which was an allocation per event
    /// per request.
    func isMonitored(_ event: MonitoredEvents) -> Bool {
        lifecycle.hasOwnMonitors.load(ordering: .relaxed) || context.eventMonitor.wants(event)
    }

    /// Whether the session's monitors want URLSession's task event `event` (the `urlSession(…)`
    /// methods: response, data, metrics, completion, redirects, cache), built only then. Those
    /// go to the session's monitors alone; a request's own monitors hear the request's events,
    /// as in Alamofire, where task events come through the session's delegate.
    func isTaskMonitored(_ event: MonitoredEvents) -> Bool { context.eventMonitor.wants(event) }

    /// Sends a URLSession task event, of kind `kind`, to the session's monitors that want it.
    func emitTaskEvent(_ kind: MonitoredEvents, _ event: @escaping @Sendable (any EventMonitor) -> Void) {
        context.eventMonitor.performEvent(kind, event)
    }

    /// Sends `event`, of kind `kind`, to the session's monitors and the request's own that want
    /// it, each on its queue (``AlamofireNotifications`` at once, for the events it posts).
    func emit(_ kind: MonitoredEvents, _ event: @escaping @Sendable (any EventMonitor) -> Void) {
        context.eventMonitor.performEvent(kind, event)
        let own = lifecycle.state.withLock { $0.monitors }
        for monitor in own { MonitorRoute(monitor).deliver(kind, event) }
    }

    /// A task event (`didResumeTask`, `didCompleteTask`…) when no monitor but
    /// ``AlamofireNotifications`` hears it (`!isMonitored(event)`, the default session): posts `name`
    /// for every such monitor without building the event's closure, which captures the task and
    /// was an allocation per event per request. The same posts, on the same thread, as `emit`.
    func postNotification(_ name: Notification.Name) {
        context.eventMonitor.postNotification(name, for: self)
    }

    /// Records a moved-on state: the session tracks requests from their first resume, suspend
    /// or cancel until they finish.
    func trackIfNeeded() {
        let isNew = lifecycle.state.withLock { state in
            defer { state.isTracked = true }
            return !state.isTracked
        }
        if isNew { context.track(self) }
    }

    /// The attempt's URLRequest (after adapters) was created.
    func didCreateURLRequest(_ urlRequest: URLRequest) {
        let (handlers, cURLHandlers) = lifecycle.state.withLock { state in
            state.requests.append(urlRequest)
            return (state.urlRequestHandlers, state.cURLHandlers)
        }
        if isMonitored(.didCreateURLRequest) { emit(.didCreateURLRequest) { [self] in $0.request(self, didCreateURLRequest: urlRequest) } }
        for handler in handlers { handler.call(urlRequest) }
        if !cURLHandlers.isEmpty {
            let text = cURLDescription()
            for handler in cURLHandlers { handler.call(text) }
        }
    }

    /// Creates the attempt's task and reports it.
    func didCreateTask(for urlRequest: URLRequest) -> URLSessionTask {
        let task = makeTask(identifier: context.urlSession.makeTaskIdentifier(), for: urlRequest)
        let handlers = lifecycle.state.withLock { state in
            state.tasks.append(task)
            state.taskPhase = .running(since: Date(), metrics: nil)
            return state.taskHandlers
        }
        lifecycle.reportsChunks.store(context.eventMonitor.wantsAny(of: .chunks), ordering: .relaxed)
        if isMonitored(.didCreateTask) { emit(.didCreateTask) { [self] in $0.request(self, didCreateTask: task) } }
        for handler in handlers { handler.call(task) }
        return task
    }

    /// The current task was handed to the connection pool.
    func didResumeTask() {
        guard let task else { return }
        task.update { $0.state = .running }
        if isMonitored(.didResumeTask) { emit(.didResumeTask) { [self] in $0.request(self, didResumeTask: task) } } else { postNotification(Request.didResumeTaskNotification) }
    }

    /// The current task was created while the request was suspended: it is held unsent.
    func didSuspendTask() {
        guard let task else { return }
        task.update { $0.state = .suspended }
        if isMonitored(.didSuspendTask) { emit(.didSuspendTask) { [self] in $0.request(self, didSuspendTask: task) } } else { postNotification(Request.didSuspendTaskNotification) }
    }

    /// `cancel()` took effect: reports it, and the task's cancel if one is not completed.
    func didCancel() {
        trackIfNeeded()
        emit(.didCancel) { [self] in $0.requestDidCancel(self) }
        guard let task, task.state != .completed else { return }
        task.update { $0.state = .canceling }
        if isMonitored(.didCancelTask) { emit(.didCancelTask) { [self] in $0.request(self, didCancelTask: task) } } else { postNotification(Request.didCancelTaskNotification) }
    }

    /// The response head arrived on the current task.
    func taskReceived(_ response: HTTPURLResponse, expectedLength: Int?, task: URLSessionTask?) {
        guard let task else { return }
        task.update {
            $0.response = response
            $0.bytesExpectedToReceive = expectedLength.map(Int64.init) ?? -1
        }
        if let dataTask = task as? URLSessionDataTask {
            if isTaskMonitored(.dataTaskDidReceiveResponse) { emitTaskEvent(.dataTaskDidReceiveResponse) { [self] in $0.urlSession(context.urlSession, dataTask: dataTask, didReceive: response) } }
        }
    }

    /// Body bytes arrived on `task` (on the connection's loop; the receiver counted them).
    func taskReceived(_ bytes: UnsafeRawBufferPointer, task: URLSessionTask?) {
        guard lifecycle.reportsChunks.load(ordering: .relaxed), let dataTask = task as? URLSessionDataTask else { return }
        let data = Data(bytes)
        if isTaskMonitored(.dataTaskDidReceiveData) { emitTaskEvent(.dataTaskDidReceiveData) { [self] in $0.urlSession(context.urlSession, dataTask: dataTask, didReceive: data) } }
    }

    /// The current attempt ended (the transport's end, or a cancel with no exchange on the
    /// wire): marks the task completed and reports `urlSession(_:task:didCompleteWithError:)`.
    /// Returns the task if this call completed it.
    @discardableResult
    func taskEnded(bytesSent: Int64?) -> URLSessionTask? {
        let error = self.error
        let ended = lifecycle.state.withLock { state -> (task: URLSessionTask, since: Date, metrics: TaskMetrics?, isHop: Bool)? in
            guard case .running(let since, let metrics) = state.taskPhase, let task = state.tasks.last else { return nil }
            state.taskPhase = .completed(error)
            return (task, since, metrics, !state.earlierHops.isEmpty)
        }
        guard let ended else { return nil }
        let (task, since, metrics, isHop) = ended
        // URLSession's order: willCacheResponse, the metrics, then the completion.
        reportWillCacheResponse()
        if let metrics {
            reportMetrics(metrics, for: task)
        } else if !isHop {  // a hop a follow-up continues is reported with the attempt's last exchange
            reportMetricsWithoutTransactions(for: task, since: since)
        }
        let taskError: (any Error)? = error.map { $0.underlyingError ?? URLError(.cancelled) }
        task.update {
            $0.state = .completed
            $0.error = taskError
            if let bytesSent { $0.bytesSent = bytesSent }
        }
        if isTaskMonitored(.taskDidComplete) { emitTaskEvent(.taskDidComplete) { [self] in $0.urlSession(context.urlSession, task: task, didCompleteWithError: taskError) } }
        return task
    }

    /// Validators ran: reports `request(_:didCompleteTask:with:)` for the attempt that ended,
    /// once, with the error the task ended with (a validation failure is not the task's, as in
    /// Alamofire).
    func reportTaskCompletion() {
        let (task, error) = lifecycle.state.withLock { state -> (URLSessionTask?, AFError?) in
            guard case .completed(let error) = state.taskPhase, let task = state.tasks.last else { return (nil, nil) }
            state.taskPhase = .reported
            return (task, error)
        }
        guard let task else { return }
        guard isMonitored(.didCompleteTask) else { return postNotification(Request.didCompleteTaskNotification) }
        emit(.didCompleteTask) { [self] in $0.request(self, didCompleteTask: task, with: error) }
    }

    /// `resume()` moved the request to `.resumed`.
    func didResume() {
        trackIfNeeded()
        emit(.didResume) { [self] in $0.requestDidResume(self) }
    }

    /// `suspend()` moved the request to `.suspended`.
    func didSuspend() {
        trackIfNeeded()
        emit(.didSuspend) { [self] in $0.requestDidSuspend(self) }
    }

    /// The request finished: no further attempt follows.
    func didFinish() {
        announceFinish()
        untrack()
    }

    /// The request finished: the session stops tracking it, and the notifications' cached user
    /// info and its tasks, which hold the request, let go of it.
    func untrack() {
        let tasks = lifecycle.state.withLock { $0.tasks }
        dropNotificationUserInfo()
        tasks.forEach { $0.releaseOwner() }
        context.untrack(self)
    }

    /// Reports `requestDidFinish`: the attempt's outcome stands and its serializers run (once per
    /// attempt that reaches them, as Alamofire; a serializer's retry may follow).
    func announceFinish() {
        emit(.didFinish) { [self] in $0.requestDidFinish(self) }
    }
}

extension RequestStateMachine {
    /// Runs `change` and returns its action with the public state it moved to (`nil`: unchanged),
    /// which decides the monitor event (`requestDidResume`, `requestDidSuspend`).
    mutating func transition(_ change: (inout Self) -> Action) -> (Action, Request.State?) {
        let before = publicState
        let action = change(&self)
        let after = publicState
        return (action, after == before ? nil : after)
    }
}

extension DownloadRequest {
    /// The file is complete at `location` (before it is moved to the destination).
    func didFinishDownloading(to location: URL) {
        guard let task = task as? URLSessionDownloadTask else { return }
        if isTaskMonitored(.downloadTaskDidFinishDownloading) { emitTaskEvent(.downloadTaskDidFinishDownloading) { [self] in $0.urlSession(context.urlSession, downloadTask: task, didFinishDownloadingTo: location) } }
    }

    /// The file was moved to its destination (or left where it was written), or the move failed.
    func didMoveDownload(_ result: Result<URL, AFError>) {
        guard let task else { return }
        if isMonitored(.didFinishDownloadingUsing) { emit(.didFinishDownloadingUsing) { [self] in $0.request(self, didFinishDownloadingUsing: task, with: result) } }
    }
}
