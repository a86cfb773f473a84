#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch
import Synchronization
import EventLoop
import Transport

/// A request whose response body is written to a file as it arrives, then moved to the
/// destination you choose.
///
/// Each body chunk is written to a temporary file on the connection's loop before the next read
/// from the socket, so a download of any size holds one receive buffer of it in memory. Without a
/// destination the file stays in the temporary directory (`FileManager.temporaryDirectory`) under
/// a unique name; ``fileURL`` says where.
///
/// A download can be continued later, as URLSession's: `cancel(producingResumeData: true)`, or a
/// transport failure mid-body, keeps the partial file and produces ``resumeData`` (Lariat's
/// format, see `DownloadResumeData`) when the response allows it (a GET, a server that takes byte
/// ranges, an `ETag` or `Last-Modified`); `Session.download(resumingWith:)` continues it. Resuming
/// is in `DownloadRequest+Resume.swift`.
public class DownloadRequest: Request, @unchecked Sendable {
    /// What to do at the destination before the file is moved there.
    public struct Options: OptionSet, Sendable {
        /// Create the destination's missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Remove a file already at the destination (otherwise the move fails).
        public static let removePreviousFile = Options(rawValue: 1 << 1)

        /// The options' bits.
        public let rawValue: Int

        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
    }

    /// Chooses where the finished download goes, from its temporary file and the response.
    public typealias Destination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse)
        -> (destinationURL: URL, options: Options)

    /// A validation closure: return `.success(())` to accept the response.
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse, _ fileURL: URL?) -> ValidationResult

    /// A destination in `directory` of `domain` named after the response's suggested file name
    /// (the URL's last path component when the server suggests none).
    ///
    /// The name is the server's (Content-Disposition, or the last URL after redirects), with any
    /// directory part removed, so this destination never replaces a file: ``Options/removePreviousFile``
    /// is ignored here, and a file (or symbolic link) already of that name makes the download fail
    /// with ``AFError/downloadedFileMoveFailed(error:source:destination:)``. Alamofire honours the
    /// option, which lets a server choose which file in the directory to overwrite; pass your own
    /// destination to replace a file you name.
    /// - Parameters:
    ///   - directory: `.documentDirectory` by default.
    ///   - domain: `.userDomainMask` by default.
    ///   - options: `[]` by default; ``Options/createIntermediateDirectories`` is honoured.
    /// - Returns: The destination; the temporary directory if `directory` does not exist here
    ///   (`~/Documents` often does not on Linux) and `options` lacks
    ///   ``Options/createIntermediateDirectories``.
    public class func suggestedDownloadDestination(
        for directory: FileManager.SearchPathDirectory = .documentDirectory,
        in domain: FileManager.SearchPathDomainMask = .userDomainMask,
        options: Options = []
    ) -> Destination {
        { temporaryURL, response in
            let fileManager = FileManager.default
            let base = fileManager.urls(for: directory, in: domain).first.flatMap { url in
                options.contains(.createIntermediateDirectories) || fileManager.fileExists(atPath: url.path) ? url : nil
            } ?? fileManager.temporaryDirectory
            let name = response.suggestedFilename ?? response.url?.lastPathComponent ?? temporaryURL.lastPathComponent
            return (base.appendingPathComponent(name), options.subtracting(.removePreviousFile))
        }
    }

    /// What the download is made from: a request, or resume data.
    public enum Downloadable: Sendable {
        /// A request to send.
        case request(any URLRequestConvertible)
        /// Resume data of an earlier download (`Session.download(resumingWith:)`).
        case resumeData(Data)
    }

    /// What the request was built from.
    public let convertible: any URLRequestConvertible
    /// What the download is made from.
    public let downloadable: Downloadable
    /// Where the file goes when the download ends; `nil` keeps it at its temporary location.
    public let destination: Destination?
    let fileManager: FileManager
    private let modifier: RequestModifier?
    let sink = DownloadSink()
    /// Resume data this download continues, and what it produces (`DownloadRequest+Resume.swift`).
    let resumption: DownloadResumption
    private let validators = Mutex<[Validation]>([])

    init(convertible: any URLRequestConvertible, modifier: RequestModifier?, destination: Destination?, fileManager: FileManager,
         interceptor: (any RequestInterceptor)? = nil, context: RequestContext, resumingFrom resumeData: Data? = nil) {
        self.resumption = DownloadResumption(resumeData)
        self.downloadable = resumeData.map { .resumeData($0) } ?? .request(convertible)
        self.convertible = convertible
        self.modifier = modifier
        self.destination = destination
        self.fileManager = fileManager
        super.init(context: context, interceptor: interceptor, queueLabel: "org.lariat.download", makesQueueNow: true)
    }

    override func makeTask(identifier: Int, for urlRequest: URLRequest) -> URLSessionTask {
        URLSessionDownloadTask(taskIdentifier: identifier, request: urlRequest, owner: self)
    }

    /// The downloaded file once the download finished and was moved, else `nil`.
    public var fileURL: URL? { sink.finalURL }
    override func makeURLRequest() throws -> URLRequest {
        if let resumed = try resumedURLRequest() { return resumed }
        var request = try convertible.asURLRequest()
        try modifier?(&request)
        return request
    }

    override func didReceive(head: TransportResponseHead) {
        record(head: head)
        if resumedHeadReceived() { return }
        let url = fileManager.temporaryDirectory.appendingPathComponent("Lariat_\(UUID().uuidString).download")
        if let error = sink.open(url) { abort(error, code: .cannotCreateFile) }
    }

    override func didReceiveBody(_ bytes: UnsafeRawBufferPointer) {
        if let error = sink.write(bytes) { return abort(error, code: .cannotWriteToFile) }
        reportDataWritten(Int64(bytes.count))
    }

    /// A download finishes on the request's queue: closing, moving or removing its file is
    /// blocking work that does not belong on a connection's loop.
    override var finishesOnWorker: Bool { true }

    /// Moves the file to its destination, or removes it if the download failed.
    override func didComplete() {
        moveToDestination()
    }

    /// A retry writes a new file. A failed transfer's file was removed when it completed; one
    /// that failed only afterwards (validation, a retried status) was already moved to its
    /// destination, and is removed now: it is this request's own output, and leaving it would
    /// make the retry's move fail without `.removePreviousFile`.
    override func prepareForRetry() {
        if let previous = sink.finalURL { try? fileManager.removeItem(at: previous) }
        sink.reset()
    }

    /// A redirect's body kept for a user's redirect handler is not the download: its file goes.
    override func prepareForFollowUp() {
        sink.discard(fileManager)
        sink.reset()
    }

    /// A local file failure ends the exchange: the error is recorded first, so it is the one the
    /// handlers see (the transport's `.cancelled` that follows does not replace it).
    func abort(_ error: SocketError, code: URLError.Code) {
        abortExchange { request in .sessionTaskFailed(error: URLError.lariat(code, underlying: error, url: request?.url)) }
    }

    /// Closes the file and moves it where ``destination`` says (at once, on the request's queue).
    private func moveToDestination() {
        defer { deliverResumeData() }
        guard let temporary = sink.close() else { return }
        let (failed, response) = mutable.withLock { ($0.error != nil, $0.response) }
        if failed, keepForResuming() { return }
        guard !failed else { return sink.discard(fileManager) }
        didFinishDownloading(to: temporary)
        guard let destination, let response = response ?? localFileResponse() else {
            // Without a destination the file stays where it was written, and that is its
            // destination: monitors hear of it as of any other (Alamofire reports its default one).
            if isMonitored(.didCreateDestinationURL) { emit(.didCreateDestinationURL) { [self] in $0.request(self, didCreateDestinationURL: temporary) } }
            didMoveDownload(.success(temporary))
            return sink.finished(at: temporary)
        }
        let (target, options) = destination(temporary, response)
        if isMonitored(.didCreateDestinationURL) { emit(.didCreateDestinationURL) { [self] in $0.request(self, didCreateDestinationURL: target) } }
        do {
            if options.contains(.removePreviousFile), fileManager.fileExists(atPath: target.path) {
                try fileManager.removeItem(at: target)
            }
            if options.contains(.createIntermediateDirectories) {
                try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            try fileManager.moveItem(at: temporary, to: target)
            sink.finished(at: target)
            didMoveDownload(.success(target))
        } catch {
            let moveError = AFError.downloadedFileMoveFailed(error: error, source: temporary, destination: target)
            mutable.withLock { $0.error = $0.error ?? moveError }
            sink.discard(fileManager)
            didMoveDownload(.failure(moveError))
        }
    }

    override func runValidators() {
        let (request, response, failed) = mutable.withLock { ($0.request, $0.response, $0.error != nil) }
        guard !failed, let response else { return }
        let fileURL = sink.finalURL
        for validation in validators.withLock({ $0 }) {
            let result = validation(request, response, fileURL)
            if isMonitored(.didValidateDownload) { emit(.didValidateDownload) { [self] in $0.request(self, didValidateRequest: request, response: response, fileURL: fileURL, withResult: result) } }
            if case .failure(let error) = result {
                let afError = (error as? AFError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
                mutable.withLock { $0.error = $0.error ?? afError }
                return
            }
        }
    }

    // MARK: Validation

    /// Adds a validation closure, run when the download has ended, in the order added.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        validators.withLock { $0.append(validation) }
        return self
    }

    /// Accepts only status codes in `acceptableStatusCodes`.
    @discardableResult
    public func validate<S: Sequence<Int> & Sendable>(statusCode acceptableStatusCodes: S) -> Self {
        validate { _, response, _ in ResponseValidation.validate(statusCode: acceptableStatusCodes, response: response).mapError { $0 } }
    }

    /// Accepts only responses whose Content-Type matches one of `acceptableContentTypes`; an
    /// empty file is accepted. The file is not read.
    @discardableResult
    public func validate<S: Sequence<String> & Sendable>(contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S) -> Self {
        let sink = self.sink
        return validate { _, response, _ in
            ResponseValidation.validate(contentType: acceptableContentTypes(), response: response, hasContent: sink.bytesWritten > 0).mapError { $0 }
        }
    }

    /// Accepts status codes 200..<300 and a Content-Type matching the request's Accept field.
    @discardableResult
    public func validate() -> Self {
        let sink = self.sink
        return validate { request, response, _ in
            ResponseValidation.validate(request: request, response: response, hasContent: sink.bytesWritten > 0).mapError { $0 }
        }
    }
}

/// The download's file: written on the connection's loop, closed and moved on the request's queue.
final class DownloadSink: Sendable {
    private struct State {
        var file: File?
        var temporaryURL: URL?
        var finalURL: URL?
        var bytesWritten = 0
        /// The open file's device and inode (resume data records them).
        var identity: (device: UInt64, inode: UInt64)?
    }

    private let state = Mutex<State>(State())

    /// Bytes written so far.
    var bytesWritten: Int { state.withLock { $0.bytesWritten } }
    /// Where the file ended up, once finished.
    var finalURL: URL? { state.withLock { $0.finalURL } }

    /// Creates the file at `url` (new, mode 0600); returns the error if it cannot.
    func open(_ url: URL) -> SocketError? {
        state.withLock { state -> SocketError? in
            do throws(SocketError) {
                // Private and new: the temporary directory is shared with other local users.
                let file = try File(path: url.path, mode: .createNewPrivate)
                let identity = try file.identity()
                state.file = file
                state.identity = (identity.device, identity.inode)
                state.temporaryURL = url
                return nil
            } catch {
                return error
            }
        }
    }

    /// Takes a resumed download's partial file, opened for appending (see `DownloadResumeData`).
    func adopt(_ file: File, at url: URL, identity: (device: UInt64, inode: UInt64)) {
        state.withLock { state in
            state.file?.close()
            state.file = file
            state.temporaryURL = url
            state.identity = identity
            state.bytesWritten = 0
        }
    }

    /// Whether a file is open (a resumed download's, before its response).
    var isOpen: Bool { state.withLock { $0.file != nil } }

    /// Empties the open file: a resumed download starts over.
    func truncate() -> SocketError? {
        state.withLock { state -> SocketError? in
            do throws(SocketError) {
                try state.file?.truncate(to: 0)
                return nil
            } catch {
                return error
            }
        }
    }

    /// The (closed) file's temporary URL and identity, forgotten here so nothing removes it:
    /// resume data now owns it.
    func release() -> (url: URL, device: UInt64, inode: UInt64)? {
        state.withLock { state in
            state.file?.close()
            state.file = nil
            defer { state.temporaryURL = nil }
            guard let url = state.temporaryURL, let identity = state.identity else { return nil }
            return (url, identity.device, identity.inode)
        }
    }

    /// Appends `bytes`; returns the error if the write failed (ENOSPC, EIO…).
    func write(_ bytes: UnsafeRawBufferPointer) -> SocketError? {
        state.withLock { state -> SocketError? in
            guard let file = state.file else { return nil }
            do throws(SocketError) {
                try file.write(bytes)
                state.bytesWritten += bytes.count
                return nil
            } catch {
                return error
            }
        }
    }

    /// Closes the file; returns its temporary URL, or nil if none was opened.
    func close() -> URL? {
        state.withLock { state in
            state.file?.close()
            state.file = nil
            return state.temporaryURL
        }
    }

    /// Forgets the last attempt's byte count and final location.
    func reset() {
        state.withLock { $0.bytesWritten = 0; $0.finalURL = nil }
    }

    /// Records where the finished file is.
    func finished(at url: URL) {
        state.withLock { $0.finalURL = url; $0.temporaryURL = nil }
    }

    /// Closes and removes the temporary file (a failed or cancelled download leaves nothing behind).
    func discard(_ fileManager: FileManager) {
        guard let url = close() else { return }
        try? fileManager.removeItem(at: url)
        state.withLock { $0.temporaryURL = nil }
    }
}
