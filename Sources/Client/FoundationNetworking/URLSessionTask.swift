#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

/// Stand-in for Foundation's `URLSessionTask`: one attempt of a ``Request`` (each retry gets a
/// new task), with the members people read from Alamofire's `request.task`.
///
/// Lariat has no URLSession: a task describes the exchange its request runs on Lariat's own
/// transport. ``cancel()``, ``suspend()`` and ``resume()`` act on the request that owns the task
/// while this task is its current one (URLSession's task methods act on the transfer itself).
/// `@unchecked Sendable` because the class is open for Alamofire's subclasses; every mutable
/// field is inside one mutex.
open class URLSessionTask: @unchecked Sendable {
    /// A task's state.
    public enum State: Int, Sendable {
        /// Running, or handed to the connection pool.
        case running = 0
        /// Created, not yet handed to the connection pool, or held by a suspend.
        case suspended = 1
        /// Cancelled; the completion is on its way.
        case canceling = 2
        /// Completed, successfully or not.
        case completed = 3
    }

    struct Progress {
        var state = State.suspended
        var currentRequest: URLRequest?
        var response: URLResponse?
        var error: (any Error)?
        var bytesSent: Int64 = 0
        var bytesExpectedToReceive: Int64 = -1
        var bytesExpectedToSend: Int64 = 0
        var taskDescription: String?
        /// The attempt's metrics (see ``recordMetrics(_:replacing:)``).
        var metrics: TaskMetrics?
    }

    /// A number unique among the tasks of the session that made it.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: URLRequest?
    private let progress: Mutex<Progress>
    /// Body bytes received: written by the exchange's receiver for every run of body bytes,
    /// so an atomic rather than a turn of `progress`'s lock.
    private let bytesReceived = Atomic<Int64>(0)
    /// The request that owns the task, for its cancel/suspend/resume. Strong, not weak: a weak
    /// reference costs the request a side-table allocation. The cycle it closes (request ─▶ its
    /// task list ─▶ task ─▶ request) is broken when the request finishes (`Request.untrack`
    /// calls `releaseOwner()`); a finished request ignores cancel, suspend and resume anyway.
    private let ownerReference: Mutex<Request?>
    /// The request that owns the task, until it finished.
    var owner: Request? { ownerReference.withLock { $0 } }

    init(taskIdentifier: Int, request: URLRequest, owner: Request?) {
        self.taskIdentifier = taskIdentifier
        self.originalRequest = request
        self.ownerReference = Mutex(owner)
        var initial = Progress()
        initial.currentRequest = request
        if let body = request.httpBody { initial.bytesExpectedToSend = Int64(body.count) }
        self.progress = Mutex(initial)
    }

    /// Lets go of the owning request (it finished).
    func releaseOwner() {
        ownerReference.withLock { $0 = nil }
    }

    /// Keeps the attempt's metrics as the transport recorded them (or as built for a monitor).
    /// The task holds them, not its request, so that a response a caller keeps, which reads them
    /// through this task, does not keep the request alive once it finished: the request holds the
    /// caller's interceptor and handlers, and a caller keeping its response would close a cycle.
    ///
    /// - Parameters:
    ///   - metrics:     The metrics.
    ///   - replacing:   Whether metrics already kept are replaced (`false`: kept if any).
    func recordMetrics(_ metrics: TaskMetrics, replacing: Bool = true) {
        progress.withLock { state in
            if replacing || state.metrics == nil { state.metrics = metrics }
        }
    }

    /// The attempt's metrics, built on first read and kept: the request, its response and the
    /// monitors read one object.
    var collectedMetrics: URLSessionTaskMetrics? { progress.withLock { $0.metrics?.build() } }

    /// The task's state.
    public var state: State { progress.withLock { $0.state } }
    /// The request being sent (the original one; Lariat's redirects make a new task).
    public var currentRequest: URLRequest? { progress.withLock { $0.currentRequest } }
    /// The response head, once received.
    public var response: URLResponse? { progress.withLock { $0.response } }
    /// The error the task failed with, if it did (`URLError.cancelled` for a cancelled task).
    public var error: (any Error)? { progress.withLock { $0.error } }
    /// Body bytes received so far.
    public var countOfBytesReceived: Int64 { bytesReceived.load(ordering: .relaxed) }
    /// Body bytes sent (known once the exchange ended; the in-memory body's size until then is in
    /// ``countOfBytesExpectedToSend``).
    public var countOfBytesSent: Int64 { progress.withLock { $0.bytesSent } }
    /// The response's Content-Length once the head arrived; -1 when unknown (URLSession's
    /// `NSURLSessionTransferSizeUnknown`).
    public var countOfBytesExpectedToReceive: Int64 { progress.withLock { $0.bytesExpectedToReceive } }
    /// The size of an in-memory request body; 0 for none or a body streamed from a file.
    public var countOfBytesExpectedToSend: Int64 { progress.withLock { $0.bytesExpectedToSend } }
    /// A description the app may set; `nil` by default.
    public var taskDescription: String? {
        get { progress.withLock { $0.taskDescription } }
        set { progress.withLock { $0.taskDescription = newValue } }
    }

    /// Cancels the owning request if this is its current task; otherwise (an earlier attempt, or
    /// a finished one) does nothing.
    open func cancel() {
        guard let owner, owner.task === self else { return }
        owner.cancel()
    }

    /// Suspends the owning request if this is its current task (a task already on the wire
    /// cannot be paused: see ``Request/suspend()``).
    open func suspend() {
        guard let owner, owner.task === self else { return }
        owner.suspend()
    }

    /// Resumes the owning request if this is its current task.
    open func resume() {
        guard let owner, owner.task === self else { return }
        owner.resume()
    }

    // MARK: Updates from the request

    /// Updates the task's state.
    func update(_ change: (inout Progress) -> Void) { progress.withLock { change(&$0) } }
    /// Sets the count of body bytes received (the exchange's receiver, on the connection's loop).
    func recordBytesReceived(_ count: Int64) { bytesReceived.store(count, ordering: .relaxed) }
}

/// Stand-in for Foundation's `URLSessionDataTask`: a ``DataRequest``'s attempt.
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}

/// Stand-in for Foundation's `URLSessionUploadTask`: an ``UploadRequest``'s attempt.
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {}

/// Stand-in for Foundation's `URLSessionDownloadTask`: a ``DownloadRequest``'s attempt.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable {}
