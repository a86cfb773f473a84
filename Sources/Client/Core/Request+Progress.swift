// Upload and download progress, as Alamofire reports it on Apple platforms:
//
//   - download: `totalUnitCount` is the Content-Length once the head arrived, `-1` when the body
//     has none (chunked or until-close: Apple's `NSURLSessionTransferSizeUnknown`);
//     `completedUnitCount` counts body bytes as they arrive. When an unknown-length body ends,
//     the total becomes the count received, so the last value reads 100% (Apple's final
//     `didReceive` leaves it indeterminate; Alamofire users mostly draw `fractionCompleted`).
//   - upload: body bytes taken by the socket (or the TLS engine) out of the body's length, from
//     the transport's `.bodySent` events; multipart and file bodies alike.
//   - both start at 0/0 and go back there before a retry (Alamofire's `reset()`).
//
// Delivery: the handler runs on its queue with the request's `Progress` object. While a delivery
// is queued and has not run, further byte counts only update the numbers: one queued closure at
// a time, so a fast body cannot flood a slow queue (Apple coalesces `didReceive` similarly; a
// 10 MB loopback body arrives in ~160 reads and reaches the handler a few dozen times).
//
// Every request kind has these (they live on Request, as in Alamofire).
// DataStreamRequest inherits `downloadProgress`: its body bytes pass through the exchange's body
// handler in `Request.send` like every request's (WiredEventsTests checks the count).
//
// Cost when nobody asks: no `Progress` object is made (Foundation's costs several allocations),
// the counts are two integers under an uncontended lock per run of body bytes.

#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

/// Progress of one direction of a request.
struct ProgressCounter {
    /// The total, `-1` when unknown, `0` before anything is known.
    var total: Int64 = 0
    /// Units done.
    var completed: Int64 = 0
    /// The public `Progress`, made on first read or when a handler is set.
    var object: Progress?
    /// Where to report.
    var handler: (handler: Request.ProgressHandler, queue: DispatchQueue)?
    /// A delivery is queued and has not read the numbers yet: do not queue another.
    var deliveryPending = false

    /// The public object, made now if needed, with the current numbers.
    mutating func progressObject() -> Progress {
        if let object { return object }
        let made = Progress(totalUnitCount: total)
        made.completedUnitCount = completed
        object = made
        return made
    }

    /// Records new numbers; returns what to apply outside the lock.
    mutating func update(completed: Int64, total: Int64?) -> ProgressStep {
        self.completed = completed
        if let total { self.total = total }
        var step = ProgressStep(object: object, total: self.total, completed: completed)
        guard let handler, !deliveryPending else { return step }
        deliveryPending = true
        step.delivery = handler
        return step
    }
}

/// Numbers to copy into a `Progress` object outside the lock, and a delivery to queue.
struct ProgressStep {
    /// The public object, if one was made.
    var object: Progress?
    /// The numbers at the update.
    var total: Int64 = 0
    var completed: Int64 = 0
    /// The handler and queue, when a delivery must be queued.
    var delivery: (handler: Request.ProgressHandler, queue: DispatchQueue)?
}

/// Both directions; inside `Request.progress`.
struct RequestProgress {
    var upload = ProgressCounter()
    var download = ProgressCounter()
}

extension Request {
    /// A closure receiving a request's progress (its ``uploadProgress`` or ``downloadProgress`` object).
    public typealias ProgressHandler = @Sendable (_ progress: Progress) -> Void

    /// Which way the bytes go.
    enum ProgressDirection: Sendable {
        case upload, download

        var path: WritableKeyPath<RequestProgress, ProgressCounter> {
            switch self {
            case .upload: \.upload
            case .download: \.download
            }
        }
    }

    /// Progress of sending the request body: bytes written of the body's length.
    public var uploadProgress: Progress { progress.withLock { $0.upload.progressObject() } }

    /// Progress of receiving the response body: bytes received of the Content-Length (`-1`
    /// total while unknown).
    public var downloadProgress: Progress { progress.withLock { $0.download.progressObject() } }

    /// The closure set by ``uploadProgress(queue:closure:)`` and its queue, if any.
    public internal(set) var uploadProgressHandler: (handler: ProgressHandler, queue: DispatchQueue)? {
        get { progress.withLock { $0.upload.handler } }
        set { setProgressHandler(newValue, for: .upload) }
    }

    /// The closure set by ``downloadProgress(queue:closure:)`` and its queue, if any.
    public internal(set) var downloadProgressHandler: (handler: ProgressHandler, queue: DispatchQueue)? {
        get { progress.withLock { $0.download.handler } }
        set { setProgressHandler(newValue, for: .download) }
    }

    /// Sets the closure called as the request body is sent; replaces any earlier one.
    ///
    /// - Parameters:
    ///   - queue:   Where `closure` runs. `.main` by default.
    ///   - closure: Receives ``uploadProgress`` each time bytes went out (coalesced while a call
    ///     is queued and has not run).
    /// - Returns: The request.
    @discardableResult
    public func uploadProgress(queue: DispatchQueue = .main, closure: @escaping ProgressHandler) -> Self {
        uploadProgressHandler = (closure, queue)
        return self
    }

    /// Sets the closure called as the response body arrives (for a download, as it is written to
    /// its file); replaces any earlier one.
    ///
    /// - Parameters:
    ///   - queue:   Where `closure` runs. `.main` by default.
    ///   - closure: Receives ``downloadProgress`` each time bytes came in (coalesced while a call
    ///     is queued and has not run), the last time with the final numbers.
    /// - Returns: The request.
    @discardableResult
    public func downloadProgress(queue: DispatchQueue = .main, closure: @escaping ProgressHandler) -> Self {
        downloadProgressHandler = (closure, queue)
        return self
    }

    /// Stores a handler; the `Progress` object must exist from now on, so updates reach it.
    private func setProgressHandler(_ handler: (handler: ProgressHandler, queue: DispatchQueue)?, for direction: ProgressDirection) {
        progress.withLock { state in
            _ = state[keyPath: direction.path].progressObject()
            state[keyPath: direction.path].handler = handler
        }
    }

    // MARK: Transport hooks (connection's loop)

    /// The head arrived: the download total is its Content-Length, or unknown.
    func expectBody(length: Int?) {
        let object = progress.withLock { state -> Progress? in
            state.download.total = length.map(Int64.init) ?? -1
            return state.download.object
        }
        object?.totalUnitCount = length.map(Int64.init) ?? -1
    }

    /// A resumed download continues at `offset` of a representation of `total` bytes (`-1`:
    /// unknown): the bytes already received count as done (after ``expectBody(length:)``).
    func resumeDownloadProgress(atOffset offset: Int64, total: Int64) {
        let step = progress.withLock { state in
            state.download.update(completed: state.download.completed + offset, total: total)
        }
        apply(step, .download)
    }

    /// `count` more body bytes arrived.
    func bodyReceived(_ count: Int) {
        let step = progress.withLock { state in
            state.download.update(completed: state.download.completed + Int64(count), total: nil)
        }
        apply(step, .download)
    }

    /// `sent` of `total` request body bytes are out.
    func bodySent(_ sent: Int64, of total: Int64) {
        let (step, previous) = progress.withLock { state in
            let previous = state.upload.completed
            return (state.upload.update(completed: sent, total: total), previous)
        }
        apply(step, .upload)
        reportBodySent(sent - previous, totalBytesSent: sent, totalBytesExpectedToSend: total)
    }

    /// The exchange ended with a response: an unknown download total becomes what arrived (one
    /// last delivery says 100%).
    func transferEnded() {
        let step = progress.withLock { state -> ProgressStep in
            guard state.download.total < 0, state.download.completed > 0 else { return ProgressStep() }
            return state.download.update(completed: state.download.completed, total: state.download.completed)
        }
        apply(step, .download)
    }

    /// Back to 0/0 before a retry's exchange, as Alamofire's `reset()`.
    func resetProgress() {
        let (upload, download) = progress.withLock { state in
            state.upload.total = 0
            state.upload.completed = 0
            state.download.total = 0
            state.download.completed = 0
            return (state.upload.object, state.download.object)
        }
        for object in [upload, download].compactMap({ $0 }) {
            object.totalUnitCount = 0
            object.completedUnitCount = 0
        }
    }

    /// Copies the numbers into the object (outside the lock: Foundation's `Progress` may notify
    /// observers) and queues a delivery if `update` asked for one. Takes no lock: a run of body
    /// bytes costs one turn of `progress`'s, in `update`.
    private func apply(_ step: ProgressStep, _ direction: ProgressDirection) {
        if let object = step.object {
            object.totalUnitCount = step.total
            object.completedUnitCount = step.completed
        }
        guard let (handler, queue) = step.delivery else { return }
        queue.async { [self] in
            let object = progress.withLock { state in
                state[keyPath: direction.path].deliveryPending = false
                return state[keyPath: direction.path].progressObject()
            }
            handler(object)
        }
    }
}

// MARK: Async streams

extension Request {
    /// The upload progress as an async sequence, ending when the request finishes.
    ///
    /// Replaces any closure set by ``uploadProgress(queue:closure:)`` (a request has one upload
    /// progress handler, as in Alamofire). Values are the request's ``uploadProgress`` object.
    ///
    /// - Parameter bufferingPolicy: How many unread values to keep. `.unbounded` by default.
    /// - Returns: The stream.
    public func uploadProgress(bufferingPolicy: StreamOf<Progress>.BufferingPolicy = .unbounded) -> StreamOf<Progress> {
        progressStream(.upload, bufferingPolicy: bufferingPolicy)
    }

    /// The download progress as an async sequence, ending when the request finishes.
    ///
    /// Replaces any closure set by ``downloadProgress(queue:closure:)``. Values are the
    /// request's ``downloadProgress`` object.
    ///
    /// - Parameter bufferingPolicy: How many unread values to keep. `.unbounded` by default.
    /// - Returns: The stream.
    public func downloadProgress(bufferingPolicy: StreamOf<Progress>.BufferingPolicy = .unbounded) -> StreamOf<Progress> {
        progressStream(.download, bufferingPolicy: bufferingPolicy)
    }

    /// Yields on ``underlyingQueue`` and finishes there too, after the last queued delivery
    /// (the queue is serial), once the request finished, retries included.
    private func progressStream(_ direction: ProgressDirection, bufferingPolicy: StreamOf<Progress>.BufferingPolicy) -> StreamOf<Progress> {
        StreamOf(bufferingPolicy: bufferingPolicy) { [self] continuation in
            let queue = underlyingQueue
            setProgressHandler(({ continuation.yield($0) }, queue), for: direction)
            whenFinished { queue.async { continuation.finish() } }
        }
    }
}
