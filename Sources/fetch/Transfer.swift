// One URL of a run: the request sent through Session as a DataStreamRequest, the response
// written as curl writes it (-i, -I, -D, -o/-O/-J/-o -, --create-dirs, -f/--fail-with-body,
// --max-filesize, --limit-rate), with curl's status and one-line message for every failure.
//
// The body is never held whole: each chunk is written where it goes as it arrives, on the
// transfer's serial queue, and the connection reads no faster than the writes go (Client's
// back-pressure), so `--limit-rate` paces the socket itself and a 10 GiB download holds about
// 1 MiB. Steps, each a method so small hooks (-v, -w) have one place to go:
//   head(_:)   the response head: -D, -f, --max-filesize by Content-Length, opening the output
//              (-O/-J name), -i; answers .allow or .cancel (no byte of the body is read before)
//   body(_:)   one chunk: --max-filesize as bytes arrive, the binary-to-terminal check, pacing
//   finish(_:) the completion: close the output, the exit status and message
import Client
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One URL's transfer; a class so that what happened can be read after `run` (for `-w`).
///
/// `@unchecked Sendable`: while the request runs, its mutable state is touched only by the
/// transfer's serial queue (head, chunks, completion, in order); the caller touches it before
/// starting and after the completion, which the awaited continuation orders after the queue's work.
final class Transfer: @unchecked Sendable {
    /// The run's options.
    let options: FetchOptions
    /// The request to send.
    let request: PlannedRequest
    /// Its `-o`/`-O`, if one was given for it.
    let output: FetchOptions.Output?
    /// The response head, once one arrived.
    private(set) var response: HTTPURLResponse?
    /// The body's length so far (all of it once finished).
    private(set) var bodySize = 0
    /// The head's length as written by `-i` (status line, headers, blank line).
    private(set) var headSize = 0
    /// The last failure's message, empty on success.
    private(set) var errorMessage = ""
    /// When `run` started, and how long it took (seconds).
    private(set) var duration = 0.0

    /// Where the body goes once the head arrived: a file descriptor (1 for standard output).
    private var sink: BodySink?
    /// An exit status decided while streaming (the request is then cancelled), with its
    /// message (`nil`: nothing to print, as for the binary-output warning).
    private var verdict: (status: Int32, message: String?)?

    /// A transfer of `request` under `options`, writing to `output`.
    init(options: FetchOptions, request: PlannedRequest, output: FetchOptions.Output?) {
        self.options = options
        self.request = UploadFile.apply(options, to: request)
        self.output = output
    }

    /// What `-w` can print about this transfer, given its exit status.
    func writeOutValues(status: Int32) -> WriteOut.Values {
        WriteOut.Values(
            httpCode: response?.statusCode ?? 0, sizeDownload: bodySize, sizeHeader: headSize,
            contentType: response?.headers.value(for: "Content-Type") ?? "", exitCode: status, errorMessage: errorMessage,
            url: request.url, method: request.method, numHeaders: response?.headers.count ?? 0,
            scheme: request.url.lowercased().hasPrefix("https:") ? "HTTPS" : "HTTP", httpVersion: response == nil ? "0" : "1.1",
            timeTotal: duration)
    }

    /// Sends the request, streams the response where it goes; returns curl's status.
    func run(_ session: Session) async -> Int32 {
        var headers = HTTPHeaders()
        // Appended, not replaced: repeated -H lines go out as curl sends them.
        for field in request.headers { headers.appendField(name: field.name, value: field.value) }
        var urlRequest: URLRequest
        do {
            urlRequest = try URLRequest(url: request.url, method: HTTPMethod(rawValue: request.method), headers: headers)
        } catch {
            return report(3, "URL using bad/illegal format or missing URL")
        }
        urlRequest.httpBody = request.body
        let started = Date()
        defer { duration = Date().timeIntervalSince(started) }
        let queue = DispatchQueue(label: "fetch.transfer")
        let stream = session.streamRequest(urlRequest, shouldAutomaticallyResume: false)
        if let path = options.uploadFile, let failure = UploadFile.attach(path, to: stream) {
            // curl says this even under -s, with its usage hint, before the (26) line.
            printError("fetch: Can't open '\(path)'!\nfetch: try 'fetch --help' for more information")
            return report(failure.status, failure.message)
        }
        stream.onHTTPResponse(on: queue) { [self] response, decide in decide(head(response)) }
        let completion = await withCheckedContinuation { (continuation: CheckedContinuation<DataStreamRequest.Completion, Never>) in
            stream.responseStream(on: queue) { [self] event in
                switch event.event {
                case .stream(.success(let data)):
                    if !body(data) { event.cancel() }
                case .complete(let completion):
                    continuation.resume(returning: completion)
                }
            }
            stream.resume()
        }
        if options.verbose {
            let result: Result<Data, AFError> = completion.error.map { .failure($0) } ?? .success(Data())
            TransferErrors.printVerbose(request: completion.request, response: DataResponse(
                request: completion.request, response: completion.response, data: nil, metrics: completion.metrics,
                serializationDuration: 0, result: result), started: started)
        }
        return finish(completion)
    }

    // MARK: Steps (on the transfer's queue)

    /// The response head arrived: decides whether the body is read at all.
    private func head(_ http: HTTPURLResponse) -> Request.ResponseDisposition {
        response = http
        var head = "HTTP/1.1 \(http.statusCode) \(Output.reasonPhrase(http.statusCode))\r\n"
        for header in http.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        headSize = head.utf8.count
        let headBytes = Data(head.utf8)
        if let path = options.dumpHeaderPath {
            let written = path == "-" ? writeAll(1, headBytes) : Output.writeFile(path, headBytes, createDirectories: options.createDirectories)
            if !written { return stop(23, "Failed writing header to \(path)") }
        }
        let failed = http.statusCode >= 400 && options.failMode != .never
        if failed && options.failMode == .withoutBody {
            // curl has written the head already when -i asked for it; the body never.
            if options.includeHeaders || options.headOnly { _ = writeAll(1, headBytes) }
            return stop(22, "The requested URL returned error: \(http.statusCode)")
        }
        if let max = options.maxFileSize, let length = http.headers.value(for: "Content-Length").flatMap(Int.init), length > max {
            return stop(63, "Maximum file size exceeded")
        }
        switch openSink(for: http) {
        case .success(let opened): sink = opened
        case .failure(let error): return stop(23, error.message)
        }
        if options.includeHeaders || options.headOnly {
            guard sink!.write(headBytes) else { return stop(23, "Failed writing body") }
        }
        return .allow
    }

    /// One chunk of the body; returns whether to go on.
    private func body(_ data: Data) -> Bool {
        guard verdict == nil, let sink else { return false }
        bodySize += data.count
        if let max = options.maxFileSize, bodySize > max { return stop(63, "Maximum file size exceeded") == .allow }
        if options.headOnly { return true }
        // curl refuses binary data for a terminal unless asked with `-o -`.
        if sink.isTerminal && output == nil && data.contains(0) {
            // A warning, not an error: -s hides it even with -S (as curl).
            if !options.silent {
                printError("""
                    Warning: Binary output can mess up your terminal. Use "--output -" to tell 
                    Warning: fetch to output it to your terminal anyway, or consider "--output 
                    Warning: <FILE>" to save to a file.
                    """)
            }
            verdict = (23, nil)
            return false
        }
        guard sink.write(data) else { return stop(23, "Failed writing body") == .allow }
        return true
    }

    /// The request ended: closes the output and decides the exit status.
    private func finish(_ completion: DataStreamRequest.Completion) -> Int32 {
        let closed = sink?.close() ?? true
        sink = nil
        if let verdict {
            guard let message = verdict.message else { return verdict.status }
            return report(verdict.status, message)
        }
        if let error = completion.error {
            let status = TransferErrors.exitStatus(for: error, certificateStatusRequired: options.requireCertificateStatus)
            return report(status, TransferErrors.message(for: error, status: status, url: request.url))
        }
        guard let http = completion.response else { return report(1, "no response") }
        if !closed { return report(23, "Failed writing body") }
        if http.statusCode >= 400 && options.failMode != .never { return report(22, "The requested URL returned error: \(http.statusCode)") }
        return 0
    }

    // MARK: Helpers

    /// Records `status` as the transfer's outcome and answers `.cancel`.
    private func stop(_ status: Int32, _ message: String) -> Request.ResponseDisposition {
        if verdict == nil { verdict = (status, message) }
        return .cancel
    }

    /// Opens where the body goes: `-o FILE`, `-O` (`-J`: the Content-Disposition name), or
    /// standard output.
    private func openSink(for http: HTTPURLResponse) -> Result<BodySink, TransferError> {
        let path: String
        switch output {
        case .file(let given) where given != "-":
            path = given
        case .remoteName:
            let fromHeader = options.remoteHeaderName ? RemoteHeaderName.fileName(fromContentDisposition: http.headers.value(for: "Content-Disposition")) : nil
            guard let name = fromHeader ?? Output.remoteName(request.url) else {
                return .failure(TransferError(status: 23, message: "Remote file name has no length!"))
            }
            path = name
        case .file, nil:
            return .success(BodySink(fd: 1, limitRate: options.limitRate))
        }
        guard let fd = Output.openFile(path, createDirectories: options.createDirectories) else {
            return .failure(TransferError(status: 23, message: "Failed writing body"))
        }
        return .success(BodySink(fd: fd, limitRate: options.limitRate))
    }

    /// Prints `fetch: (status) message` unless silenced; returns `status`.
    private func report(_ status: Int32, _ message: String) -> Int32 {
        errorMessage = message
        if options.showsErrors { printError("fetch: (\(status)) \(message)") }
        return status
    }
}

/// Where a transfer's body goes: a descriptor, written chunk by chunk, at most `limitRate`
/// bytes a second (sleeping on the transfer's queue, which holds the connection's reads back).
final class BodySink {
    /// The descriptor (1: standard output, not closed).
    let fd: Int32
    private let limitRate: Int?
    private var written = 0
    private var start: Double?
    private var failed = false

    init(fd: Int32, limitRate: Int?) {
        self.fd = fd
        self.limitRate = limitRate
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(fd) == 1 }

    /// Writes every byte of `data`, paced; false on an error.
    func write(_ data: Data) -> Bool {
        guard let limitRate, limitRate > 0 else {
            if !writeAll(fd, data) { failed = true }
            return !failed
        }
        let begin = start ?? Output.monotonicSeconds()
        start = begin
        let piece = max(1, min(limitRate, 16 * 1024))
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + piece, data.endIndex)
            guard writeAll(fd, data[offset..<end]) else { failed = true; return false }
            written += end - offset
            offset = end
            // Sleep until the bytes written so far are on schedule.
            let due = Double(written) / Double(limitRate) - (Output.monotonicSeconds() - begin)
            if due > 0 { usleep(UInt32(due * 1_000_000)) }
        }
        return true
    }

    /// Closes a file (not standard output); false when a write or the close failed.
    func close() -> Bool {
        if fd == 1 { return !failed }
        return Glibc.close(fd) == 0 && !failed
    }
}
