#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization
import Transport
import Wire

// `file://` URLs, as URLSession loads them: only the URL the user asked for (a redirect's or an
// authentication hop's `Location: file:///…` stays `unsupportedURL`: a server never names a
// local file), never with a body (no upload to a file URL). The file is opened read-only with
// `O_NOFOLLOW | O_CLOEXEC` and must be a regular file: a symbolic link as the last component
// fails with `URLError(.cannotOpenFile)` saying so (see `FileURLSource.open`), while
// the directories on the way are the user's own path and are followed. Its bytes go through the
// exchange's receiver like a response body (progress, the buffer, the stream sink or the
// download's file, monitors, metrics), in chunks, from a worker thread. As URLSession gives a
// `URLResponse` (not an `HTTPURLResponse`) for a file, ``Request/response`` stays `nil`.

/// A regular file opened for a `file://` request.
struct FileURLSource: Sendable {
    /// Bytes read per chunk.
    static let chunkSize = 64 * 1024

    let descriptor: Int32
    let size: Int

    /// Opens `path` read-only without following a final symbolic link; a directory, a device or
    /// any other non-regular file is refused.
    static func open(_ url: URL) -> Result<FileURLSource, URLError> {
        let path = url.path
        func failure(_ code: URLError.Code) -> Result<FileURLSource, URLError> {
            .failure(URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: describe(code, path)]))
        }
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return failure(.fileDoesNotExist)
            case EACCES, EPERM: return failure(.noPermissionsToReadFile)
            case ELOOP: return failure(.cannotOpenFile)  // O_NOFOLLOW: the last component is a symbolic link
            case EISDIR: return failure(.fileIsDirectory)
            default: return failure(.cannotOpenFile)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { close(fd); return failure(.cannotOpenFile) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: close(fd); return failure(.fileIsDirectory)
        default: close(fd); return failure(.cannotOpenFile)  // a FIFO, socket or device: not a file to load
        }
        // Regular files never block; the flag only kept open() from hanging on a FIFO.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(FileURLSource(descriptor: fd, size: Int(info.st_size)))
    }

    private static func describe(_ code: URLError.Code, _ path: String) -> String {
        if code == .cannotOpenFile, (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
            return "\(path) is a symbolic link: a file:// request opens only the file named, never a link's target."
        }
        switch code {
        case .fileDoesNotExist: return "The file \(path) does not exist."
        case .noPermissionsToReadFile: return "The file \(path) cannot be read: permission denied."
        case .fileIsDirectory: return "\(path) is a directory, not a file."
        default: return "\(path) is not a regular file that can be opened."
        }
    }

    /// The head a file's bytes are delivered under (the receiver's stages read its length).
    func head(for url: URL) -> TransportResponseHead {
        let mime = MultipartFormData.mimeType(forPathExtension: url.pathExtension)
        return TransportResponseHead(status: 200, version: .http11, reason: "OK",
                                     fields: FieldBlock([("Content-Type", mime), ("Content-Length", String(size))]),
                                     contentLength: size)
    }

    /// Reads the file in chunks into `exchange` on a worker thread, then ends it (a cancel
    /// between chunks ends it as cancelled, a read error as `cannotOpenFile`'s transport kind).
    func stream(into exchange: Exchange, url: URL, isCancelled: @escaping @Sendable () -> Bool) {
        DispatchQueue.global().async {
            defer { close(descriptor) }
            exchange.deliver(.head(head(for: url)))
            var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
            while true {
                if isCancelled() {
                    return exchange.complete(.failure(TransportError(.cancelled, "cancelled"), nil))
                }
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    return exchange.complete(.failure(TransportError(.requestBodyUnreadable, "reading \(url.path) failed (errno \(errno))"), nil))
                }
                if count == 0 { break }
                chunk.withUnsafeBytes { exchange.deliverBody(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
            exchange.complete(.end(TransportSummary(timings: exchange.timings, isReusedConnection: false)))
        }
    }
}

extension Request {
    /// Starts a `file://` request's exchange (from `send`, for the user's own URL only): opens
    /// the file, creates the task and an exchange that never reaches the pool; the machine's
    /// `executeExchange` streams it (``serveFromFile(_:)``).
    func sendFile(_ urlRequest: URLRequest, url: URL, uploadBody: RequestBody?, isRecorded: Bool) {
        if !isRecorded { mutable.withLock { $0.request = urlRequest } }
        didCreateURLRequest(urlRequest)
        didCreateUploadable()
        // No upload to a file URL (URLSession's upload tasks refuse one as well).
        if uploadBody != nil || urlRequest.httpBody != nil {
            return startFailed(.sessionTaskFailed(error: URLError(.unsupportedURL, userInfo: [NSURLErrorFailingURLErrorKey: url])))
        }
        let source: FileURLSource
        switch FileURLSource.open(url) {
        case .success(let opened): source = opened
        case .failure(let error): return startFailed(.sessionTaskFailed(error: error))
        }
        let task = didCreateTask(for: urlRequest)
        receiver = ExchangeReceiver(task: task)
        // Never handed to the pool: `serveFromFile` feeds it. Refused, should it ever be sent.
        let exchange = Exchange(request: .refused(TransportError(.unsupportedURL, "file:// is served locally")), receiver: self)
        perform(mutable.withLock { state in
            state.file = (exchange, source)
            return state.machine.exchangeCreated(exchange)
        })
    }

    /// The machine's `executeExchange` for a file's exchange: streams the file into it. `false`
    /// for any other exchange.
    func serveFromFile(_ exchange: Exchange) -> Bool {
        // Taken out: the stream owns the descriptor from here and closes it.
        let taken = mutable.withLock { state -> (FileURLSource, URL?)? in
            guard let file = state.file, file.exchange === exchange else { return nil }
            state.file = nil
            return (file.source, state.request?.url)
        }
        guard let (source, url) = taken else { return false }
        source.stream(into: exchange, url: url ?? URL(fileURLWithPath: "/")) { [weak self] in self?.isCancelled ?? true }
        return true
    }

    /// Closes a file whose exchange was never sent (cancelled while held or before resume).
    func closeUnsentFile() {
        if let file = mutable.withLock({ state in defer { state.file = nil }; return state.file }) { close(file.source.descriptor) }
    }
}

extension DownloadRequest {
    /// What a destination closure is given for a `file://` download, which has no HTTP
    /// response: a 200 for the file's URL with no fields (``Request/response`` stays `nil`).
    func localFileResponse() -> HTTPURLResponse? {
        guard let url = mutable.withLock({ $0.request?.url }), url.isFileURL else { return nil }
        return HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headers: HTTPHeaders(), reasonPhrase: "OK")
    }
}
