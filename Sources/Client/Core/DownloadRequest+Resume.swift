#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Transport

// Resumable downloads, as URLSession's download tasks:
//
// - Producing: `cancel(producingResumeData: true)`, `cancel(byProducingResumeData:)`, or a
//   transport failure after the head (a dropped connection, a timeout) keeps the partial file in
//   the temporary directory and records `DownloadResumeData` when the response can be resumed
//   (`ResumeDecision.validator`). A failure's `URLError` carries it under
//   `NSURLSessionDownloadTaskResumeData`, read by `AFError.downloadResumeData`.
// - Consuming: `Session.download(resumingWith:)` checks the blob and opens the partial file when
//   the request is built (a bad blob fails as `createURLRequestFailed` before any I/O), sends
//   `Range: bytes=N-` and `If-Range`, then `ResumeDecision.decide` says append, start over or
//   refuse. A retry of a resumed download starts from zero: the failed attempt's file is gone.

extension DownloadRequest {
    /// The data to continue this download with `Session.download(resumingWith:)`, once it was
    /// cancelled with `cancel(producingResumeData: true)` or failed mid-body; `nil` otherwise, or
    /// when the server does not allow resuming (no byte ranges, no `ETag`/`Last-Modified`).
    public var resumeData: Data? { resumption.state.withLock { $0.produced } }

    /// Cancels the download; with `shouldProduceResumeData`, keeps the partial file and produces
    /// ``resumeData`` when the response allows resuming.
    /// - Parameter shouldProduceResumeData: Whether to produce resume data.
    /// - Returns: The request.
    @discardableResult
    public func cancel(producingResumeData shouldProduceResumeData: Bool) -> Self {
        if shouldProduceResumeData { resumption.state.withLock { $0.cancelProducesResumeData = true } }
        return cancel()
    }

    /// Cancels the download, keeping the partial file, and calls `completionHandler` on the
    /// request's queue with the resume data (`nil` when the response does not allow resuming, or
    /// nothing had arrived). If the download already finished, the handler receives ``resumeData``.
    /// - Parameter completionHandler: Receives the resume data.
    /// - Returns: The request.
    @discardableResult
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (_ data: Data?) -> Void) -> Self {
        resumption.state.withLock {
            $0.cancelProducesResumeData = true
            $0.handlers.append(completionHandler)
        }
        cancel()
        // Too late to cancel: nothing will produce resume data, so the handler is answered now.
        if !isCancelled { underlyingQueue.async { self.deliverResumeData() } }
        return self
    }

    /// The request to send for a download made from resume data (its first attempt continues the
    /// partial file; a retry starts over); `nil` for an ordinary download.
    /// - Throws: ``ResumeDataError`` when the blob or its file does not check out.
    func resumedURLRequest() throws(ResumeDataError) -> URLRequest? {
        let (source, attempt) = resumption.state.withLock { state in
            defer { state.attempts += 1 }
            return (state.source, state.attempts)
        }
        guard let source else { return nil }
        let blob = try source.get()
        guard attempt == 0 else {
            var fresh = try blob.resumedRequest()
            fresh.headers.remove(name: "Range")
            fresh.headers.remove(name: "If-Range")
            resumption.state.withLock { $0.resumingFrom = nil }
            return fresh
        }
        let (file, url) = try blob.openPartialFile(in: fileManager.temporaryDirectory)
        sink.adopt(file, at: url, identity: (blob.device, blob.inode))
        resumption.state.withLock { state in
            state.resumingFrom = blob
            // Until a head says otherwise, a failure (refused, timed out) can still resume from here.
            state.validator = ResumeValidator(etag: blob.etag, lastModified: blob.lastModified)
            state.baseOffset = blob.offset
        }
        return try blob.resumedRequest()
    }

    /// Handles the head of a resumed request: appends, starts over or refuses; records whether
    /// the response can be resumed later. Returns true when the file is already open.
    func resumedHeadReceived() -> Bool {
        let (request, response) = mutable.withLock { ($0.request, $0.response) }
        let status = response?.statusCode ?? 0
        let headers = response?.headers ?? HTTPHeaders()
        let validator = ResumeDecision.validator(method: request?.method?.rawValue ?? "GET", status: status, headers: headers)
        let resumingFrom = resumption.state.withLock { state in
            state.validator = validator.map { ResumeValidator(etag: $0.etag, lastModified: $0.lastModified) }
            state.baseOffset = 0
            return state.resumingFrom
        }
        guard let resumingFrom, sink.isOpen else { return false }
        switch ResumeDecision.decide(offset: resumingFrom.offset, etag: resumingFrom.etag, status: status, headers: headers) {
        case .append:
            resumption.state.withLock { $0.baseOffset = resumingFrom.offset }
            let total = headers["Content-Range"].flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } } ?? -1
            reportResumed(atOffset: Int64(resumingFrom.offset), expectedTotal: total)
            // Progress spans the whole file, as URLSession's for a resumed download: the bytes
            // already on disk count as done, the total is the representation's length.
            let remaining = response?.expectedContentLength ?? -1
            resumeDownloadProgress(atOffset: Int64(resumingFrom.offset),
                                   total: total >= 0 ? total : remaining >= 0 ? Int64(resumingFrom.offset) + remaining : -1)
        case .restart:
            if let error = sink.truncate() { abort(error, code: .cannotWriteToFile) }
        case .fail(let kind):
            resumption.state.withLock { $0.refused = true }
            abortExchange { request in
                .sessionTaskFailed(error: URLError.lariat(.badServerResponse, underlying: ResumeDataError(kind), url: request?.url))
            }
        }
        return true
    }

    /// On a failure: keeps the closed partial file and records resume data when this failure
    /// produces it (an explicit cancel that asked for it, or a transport failure), and the
    /// response allows it. Returns whether the file was kept.
    func keepForResuming() -> Bool {
        let (request, error) = mutable.withLock { ($0.request, $0.error) }
        let (asked, validator, base, refused) = resumption.state.withLock {
            ($0.cancelProducesResumeData, $0.validator, $0.baseOffset, $0.refused)
        }
        guard let request, let url = request.url, let validator, !refused else { return false }
        switch error {
        case .explicitlyCancelled?: guard asked else { return false }
        case .sessionTaskFailed(let underlying as URLError)?:
            // Our own file errors are not resumable; the transport's are.
            guard underlying.underlyingError is TransportError else { return false }
        default: return false
        }
        let offset = base + sink.bytesWritten
        guard let file = sink.release() else { return false }
        var headers: [[String]] = []
        for header in request.headers where !["range", "if-range"].contains(header.name.lowercased()) {
            headers.append([header.name, header.value])
        }
        let blob = DownloadResumeData(url: url.absoluteString, method: request.method?.rawValue ?? "GET", headers: headers,
                                      file: file.url.lastPathComponent, device: file.device, inode: file.inode,
                                      offset: offset, etag: validator.etag, lastModified: validator.lastModified)
        let data = blob.encoded()
        resumption.state.withLock { $0.produced = data }
        mutable.withLock { state in
            guard case .sessionTaskFailed(let underlying as URLError)? = state.error else { return }
            var userInfo = underlying.userInfo
            userInfo[DownloadResumeData.userInfoKey] = data
            state.error = .sessionTaskFailed(error: URLError(underlying.code, userInfo: userInfo))
        }
        return true
    }

    /// Hands ``resumeData`` to the `cancel(byProducingResumeData:)` handlers waiting for it.
    func deliverResumeData() {
        let (handlers, data) = resumption.state.withLock { state in
            defer { state.handlers = [] }
            return (state.handlers, state.produced)
        }
        for handler in handlers { handler(data) }
    }
}

/// A download's resume bookkeeping, behind one mutex.
final class DownloadResumption: Sendable {
    struct State {
        /// The resume data this download was made from, checked (or why it was refused).
        var source: Result<DownloadResumeData, ResumeDataError>?
        /// Attempts built so far (only the first continues the partial file).
        var attempts = 0
        /// The blob the current attempt continues.
        var resumingFrom: DownloadResumeData?
        /// The last head's `If-Range` validator, when it can be resumed.
        var validator: ResumeValidator?
        /// Bytes of the body already in the file before this attempt's body.
        var baseOffset = 0
        /// The server's answer to a resumed request was refused: no resume data from that.
        var refused = false
        /// A cancel asked for resume data.
        var cancelProducesResumeData = false
        /// The resume data produced.
        var produced: Data?
        /// `cancel(byProducingResumeData:)` handlers waiting for it.
        var handlers: [@Sendable (Data?) -> Void] = []
    }

    let state: Mutex<State>

    /// Bookkeeping for a download made from `resumeData` (checked now), or an ordinary one.
    init(_ resumeData: Data?) {
        var state = State()
        if let resumeData {
            state.source = Result { () throws(ResumeDataError) in try DownloadResumeData.decode(resumeData) }
        }
        self.state = Mutex(state)
    }
}

/// The validator sent as `If-Range` when resuming.
struct ResumeValidator: Sendable, Equatable {
    /// A strong entity tag.
    var etag: String?
    /// The `Last-Modified` date, as the server sent it.
    var lastModified: String?
}

extension AFError {
    /// The resume data a failed download produced (carried by its `URLError`), if any.
    public var downloadResumeData: Data? {
        (underlyingError as? URLError)?.userInfo[DownloadResumeData.userInfoKey] as? Data
    }
}

extension DownloadRequest {
    /// A download task stand-in for the request `data` resumes: Alamofire's hook for making a
    /// resumed download's URLSession task. Lariat's transport makes the task when the request runs
    /// (``Session/download(resumingWith:interceptor:shouldAutomaticallyResume:to:)``); this one
    /// describes the request the resume data sends (`Range`, `If-Range`), or this request's last
    /// URLRequest when `data` is not Lariat's resume data.
    /// - Parameters:
    ///   - data: Resume data from ``resumeData``.
    ///   - session: The stand-in URLSession the task belongs to (it numbers the task).
    /// - Returns: The task; it is not run.
    public func task(forResumeData data: Data, using session: URLSession) -> URLSessionTask {
        let request = (try? DownloadResumeData.decode(data).resumedRequest())
            ?? lastRequest ?? URLRequest(url: URL(string: "about:blank") ?? URL(filePath: "/"))
        return URLSessionDownloadTask(taskIdentifier: session.makeTaskIdentifier(), request: request, owner: self)
    }
}
