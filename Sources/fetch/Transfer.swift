// One URL of a run: the request sent through Session as a DataStreamRequest, the response
// written as curl writes it (-i, -I, -D, -o/-O/-J/-o -, --create-dirs, -f/--fail-with-body,
// --max-filesize, --limit-rate, -C/-r, -L's hop heads, --retry), with curl's status and
// one-line message for every failure.
//
// The body is never held whole: each chunk is written where it goes as it arrives, on the
// transfer's serial queue, and the connection reads no faster than the writes go (Client's
// back-pressure), so `--limit-rate` paces the socket itself and a 10 GiB download holds about
// 1 MiB. Two bounded exceptions, both at most 64 KiB:
// - a redirect's body while `-L`'s handler has not answered (held by Client, never written);
// - with `--retry`, a response whose status curl retries: its head and body are kept until the
//   retrier decided, and written only if that attempt turns out to be the last. A body longer
//   than 64 KiB stops being kept: it is written as it arrives (as curl writes every attempt's
//   body to standard output), and a retry then follows it.
// Steps, each a method so small hooks (-v, -w) have one place to go:
//   head(_:)   the response head: -D, -f, --max-filesize by Content-Length, -C's outcome,
//              opening the output (-O/-J name), -i; answers .allow or .cancel (no byte of the
//              body is read before)
//   body(_:)   one chunk: --max-filesize as bytes arrive, the binary-to-terminal check, pacing
//   finish(_:) the completion: close the output, the exit status and message
import Client
import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One URL's transfer; a class so that what happened can be read after `run` (for `-w`).
///
/// `@unchecked Sendable`: while the request runs, its mutable state is touched only by the
/// transfer's serial queue (heads, chunks, completion, in order); the caller touches it before
/// starting and after the completion, which the awaited continuation orders after the queue's work.
final class Transfer: @unchecked Sendable {
    /// The run's options.
    let options: FetchOptions
    /// The request to send (with `-T`'s method and URL).
    let request: PlannedRequest
    /// Its `-o`/`-O`, if one was given for it.
    let output: FetchOptions.Output?
    /// The response head, once one arrived.
    private(set) var response: HTTPURLResponse?
    /// The body's length written so far (all of it once finished).
    private(set) var bodySize = 0
    /// The head's length as written by `-i` (status line, headers, blank line), hops included.
    private(set) var headSize = 0
    /// The heads of the redirects followed, kept when heads are written.
    private let hopHeads = HopHeads()
    /// The last request's URL (after redirects), once a response arrived.
    private(set) var effectiveURL: String?
    /// The last failure's message, empty on success.
    private(set) var errorMessage = ""
    /// When `run` started, and how long it took (seconds).
    private(set) var duration = 0.0
    /// When `run` started.
    private(set) var started: Date?
    /// The request's metrics, for `-w` and `-v`.
    private(set) var metrics: URLSessionTaskMetrics?
    /// `--xattr`: the output file's attributes were written (on the first body bytes, as curl).
    private var xattrsWritten = false
    /// `--trace`/`--trace-ascii`: where this transfer's trace goes, and the body reads kept for it.
    private let trace: (sink: TraceSink, recorder: TraceRecorder)?

    /// `-C`/`-r`: the Range sent and what the response means (`ContinueAt.swift`).
    private var continuePlan: ContinuePlan?
    /// With `--retry`: which statuses the retrier may retry.
    private var retrier: FetchRetrier?
    /// Where the body goes once the head was taken: a file descriptor (1 for standard output).
    private var sink: BodySink?
    /// The output file this transfer created or opened (for `--remove-on-error` and
    /// `%{filename_effective}`).
    private(set) var openedPath: String?
    /// `-Y`/`-y`: the low-speed check, while the request runs.
    private var speedWatchdog: SpeedWatchdog?
    /// What the head decided for the body.
    private var outcome = ContinuePlan.Outcome.write
    /// A retryable response kept until the retrier decided (see the file's comment).
    private var kept: (head: HTTPURLResponse, body: [Data], count: Int)?
    /// An exit status decided while streaming (the request is then cancelled), with its
    /// message (`nil`: nothing to print, as for the binary-output warning).
    private var verdict: (status: Int32, message: String?)?

    /// Most bytes of a retryable response's body kept before it is written as it arrives.
    static let maxKeptBytes = 64 * 1024

    /// With `-Z`: the group's combined meter (instead of this transfer's own).
    let parallelMeter: ParallelMeter?

    /// A transfer of `request` under `options`, writing to `output`.
    init(options: FetchOptions, request: PlannedRequest, output: FetchOptions.Output?, parallelMeter: ParallelMeter? = nil) {
        self.options = options
        self.request = UploadFile.apply(options, to: request)
        self.output = output
        self.parallelMeter = parallelMeter
        self.trace = TraceSink.of(options).map { ($0, TraceRecorder()) }
    }

    /// What `-w` can print about this transfer, given its exit status.
    func writeOutValues(status: Int32) -> WriteOut.Values {
        var values = WriteOut.Values(
            httpCode: response?.statusCode ?? 0, sizeDownload: bodySize, sizeHeader: headSize,
            contentType: response?.headers.value(for: "Content-Type") ?? "", exitCode: status, errorMessage: errorMessage,
            url: request.url, urlEffective: effectiveURL, method: request.method, numHeaders: response?.headers.count ?? 0,
            scheme: request.url.lowercased().hasPrefix("https:") ? "HTTPS" : "HTTP", httpVersion: response == nil ? "0" : "1.1",
            timeTotal: duration)
        values.add(metrics: metrics, response: response, started: started)
        if let openedPath { values.filenameEffective = openedPath } else if case .file(let path) = output { values.filenameEffective = path }
        return values
    }

    /// Whether `http` is an HTTP/0.9 answer (`--http0.9`): no status line, no fields, status 0.
    static func isHTTP09(_ http: HTTPURLResponse) -> Bool { http.httpVersion == "HTTP/0.9" }

    /// A response head as curl writes it for `-i` and `-D` (nothing for HTTP/0.9, which has none).
    static func headText(_ http: HTTPURLResponse) -> String {
        if isHTTP09(http) { return "" }
        // The status line as the server sent it: its version and its own reason phrase.
        var head = "\(http.httpVersion) \(http.statusCode) \(http.reasonPhrase ?? Output.reasonPhrase(http.statusCode))\r\n"
        for header in http.headers { head += "\(header.name): \(header.value)\r\n" }
        return head + "\r\n"
    }

    /// Sends the request, streams the response where it goes; returns curl's status.
    func run(_ session: Session) async -> Int32 {
        var headers = HTTPHeaders()
        // Appended, not replaced: repeated -H lines go out as curl sends them.
        for field in request.headers { headers.appendField(name: field.name, value: field.value) }
        let outputPath: String? = switch output {
        case .file(let path)?: options.extras.placed(path)
        case .remoteName?: Output.remoteName(request.url).map(options.extras.placed)
        case nil: nil
        }
        let plan = ContinuePlan(options: options, outputPath: outputPath)
        if let range = plan.rangeHeader, headers.value(for: "Range") == nil { headers.update(name: "Range", value: range) }
        continuePlan = plan
        var urlRequest: URLRequest
        do {
            urlRequest = try URLRequest(url: request.url, method: HTTPMethod(rawValue: request.method), headers: headers)
        } catch {
            return report(3, "URL using bad/illegal format or missing URL")
        }
        urlRequest.httpBody = request.body
        if let cookie = options.cookies.literalField { urlRequest.headers.add(name: "Cookie", value: cookie) }
        let started = Date()
        self.started = started
        defer { duration = Date().timeIntervalSince(started) }
        let queue = DispatchQueue(label: "fetch.transfer")
        let stream = retrying(session, urlRequest)
        if let file = request.bodyFile, let size = FormParts.regularFileSize(file) { stream.uploadFile(atPath: file, length: size) }
        if let path = options.uploadFile, let failure = UploadFile.attach(path, crlf: options.crlf, http10: options.http10, to: stream) {
            // curl says this even under -s, with its usage hint, before the (26) line.
            if failure.status == 26 { printError("fetch: Can't open '\(path)'!\nfetch: try 'fetch --help' for more information") }
            return report(failure.status, failure.message)
        }
        if let credentials = request.challengeCredentials {
            let colon = credentials.firstIndex(of: ":") ?? credentials.endIndex
            let password = colon < credentials.endIndex ? String(credentials[credentials.index(after: colon)...]) : ""
            // The schemes asked for, on the first origin only unless --location-trusted (curl).
            let methods = options.authMethods
            let scope = CredentialScope(
                methods: Set((methods.contains(.basic) ? [NSURLAuthenticationMethodHTTPBasic] : [])
                    + (methods.contains(.digest) ? [NSURLAuthenticationMethodHTTPDigest] : [])),
                anyOrigin: options.locationTrusted)
            stream.authenticate(with: URLCredential(user: String(credentials[..<colon]), password: password, persistence: .none), scope: scope)
        }
        stream.redirect(using: Self.redirector(options: options, original: urlRequest, hops: hopHeads, signing: request.awsSigning))
        let meter = options.extras.parallel ? nil : ProgressMeter.make(options: options, output: output)
        meter?.start()
        meter?.attach(to: stream)
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
            if let watchdog = SpeedWatchdog.make(options) {
                speedWatchdog = watchdog
                watchdog.start(on: queue) { [self] in
                    _ = stop(28, watchdog.message)
                    stream.cancel()
                }
            }
            stream.resume()
        }
        queue.sync { speedWatchdog?.stop() }
        meter?.finish(downloaded: bodySize, expectedLength: completion.response?.expectedContentLength ?? -1)
        metrics = completion.metrics
        if options.verbose {
            let result: Result<Data, AFError> = completion.error.map { .failure($0) } ?? .success(Data())
            Verbose.report(session: session, response: DataResponse(
                request: completion.request, response: completion.response, data: nil, metrics: completion.metrics,
                serializationDuration: 0, result: result), bodyCount: bodySize, uploadBody: stream.uploadBody)
        }
        let status = finish(completion)
        if let trace {
            let body: TraceRequestBody = if let data = request.body { .bytes(data) }
                else if let file = request.bodyFile ?? options.uploadFile { .file(file) } else { .none }
            trace.sink.report(
                session: session, response: DataResponse(
                    request: completion.request, response: completion.response, data: nil, metrics: completion.metrics,
                    serializationDuration: 0, result: .success(Data())),
                requestBody: body, uploadBody: stream.uploadBody, recorder: trace.recorder, failure: status == 0 ? "" : errorMessage)
        }
        OutputExtras.finished(self, status: status)
        if status != 0 && options.removeOnError, let openedPath { Output.removePartial(openedPath, verbose: options.verbose) }
        return status
    }

    /// The stream request; with `--retry`, with fetch's retrier and the validator that lets it
    /// see curl's retryable statuses.
    private func retrying(_ session: Session, _ urlRequest: URLRequest) -> DataStreamRequest {
        guard options.retry.count > 0 else { return session.streamRequest(urlRequest, shouldAutomaticallyResume: false) }
        let retrier = FetchRetrier(
            options: options.retry, failMode: options.failMode, showsErrors: options.showsErrors, showsWarnings: !options.silent,
            url: self.request.url)
        self.retrier = retrier
        return session.streamRequest(urlRequest, interceptor: Interceptor(retriers: [retrier]), shouldAutomaticallyResume: false)
            .validate { _, response in
                retrier.isRetryableStatus(response.statusCode)
                    ? .failure(AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
                    : .success(())
            }
    }

    // MARK: Steps (on the transfer's queue)

    /// A response head arrived (a retry's head replaces the last attempt's kept one): decides
    /// whether the body is read at all.
    private func head(_ http: HTTPURLResponse) -> Request.ResponseDisposition {
        response = http
        if let retrier, retrier.isRetryableStatus(http.statusCode) {
            // Maybe retried: nothing written until the retrier decided (`finish`).
            kept = (http, [], 0)
            return .allow
        }
        kept = nil
        parallelMeter?.started(expectedLength: http.expectedContentLength)
        return take(http)
    }

    /// Writes what a final head calls for and opens the output.
    private func take(_ http: HTTPURLResponse) -> Request.ResponseDisposition {
        if let scheme = hopHeads.refusedScheme { return stop(1, "Protocol \"\(scheme)\" not supported") }
        // Redirects' heads first (-L with -i, -I or -D), then the final one.
        let head = hopHeads.all.joined() + Self.headText(http)
        headSize = head.utf8.count
        let headBytes = Data(head.utf8)
        if let path = options.dumpHeaderPath {
            let written = path == "-" ? writeAll(1, headBytes) : Output.writeFile(path, headBytes, createDirectories: options.createDirectories)
            if !written { return stop(23, "Failed writing header to \(path)") }
        }
        let failed = http.statusCode >= 400 && options.failMode != .never
        if failed && options.failMode == .withoutBody {
            // curl has written the head already when -i asked for it (where the body would go:
            // standard output or the -o file); the body never.
            if options.includeHeaders || options.headOnly, case .success(let opened) = openSink(for: http, append: false) {
                if !opened.write(headBytes) || !opened.close() { return stop(23, "Failed writing body") }
            }
            return stop(22, "The requested URL returned error: \(http.statusCode)")
        }
        if let max = options.maxFileSize, !options.extras.framing.ignoreContentLength,
           let length = http.headers.value(for: "Content-Length").flatMap(Int.init), length > max {
            return stop(63, "Maximum file size exceeded")
        }
        outcome = continuePlan?.outcome(status: http.statusCode, headers: http.headers) ?? .write
        if outcome == .alreadyComplete { return stop(0, nil) }
        if outcome == .cannotResume { return stop(33, "HTTP server doesn't seem to support byte ranges. Cannot resume.") }
        switch openSink(for: http, append: outcome == .append || outcome == .ignoreBody) {
        case .success(let opened): sink = opened
        case .failure(let error): return stop(23, error.message)
        }
        if options.includeHeaders || options.headOnly {
            guard sink!.write(headBytes) else { return stop(23, sink!.failureMessage) }
        }
        return .allow
    }

    /// One chunk of the body; returns whether to go on.
    private func body(_ data: Data) -> Bool {
        guard verdict == nil else { return false }
        trace?.recorder.received(data)
        if var held = kept {
            held.body.append(data)
            held.count += data.count
            guard held.count > Self.maxKeptBytes else {
                kept = held
                return true
            }
            // Too long to keep: written as it arrives from now on.
            kept = nil
            guard take(held.head) == .allow else { return false }
            return held.body.allSatisfy { write($0) }
        }
        return write(data)
    }

    /// Writes one chunk where the head decided; returns whether to go on.
    private func write(_ data: Data) -> Bool {
        guard verdict == nil, let sink else { return false }
        bodySize += data.count
        parallelMeter?.received(data.count)
        speedWatchdog?.received(data.count)
        if let max = options.maxFileSize, bodySize > max { return stop(63, "Maximum file size exceeded") == .allow }
        if options.headOnly || outcome == .ignoreBody { return true }
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
        if options.xattr && !xattrsWritten, let fd = openedPath.map({ _ in sink.fd }) {
            xattrsWritten = true
            OutputAttributes.write(to: fd, url: request.url, contentType: response?.headers.value(for: "Content-Type"))
        }
        guard sink.write(data) else { return stop(23, sink.failureMessage) == .allow }
        return true
    }

    /// The request ended: writes a kept last attempt, closes the output and decides the exit
    /// status.
    private func finish(_ completion: DataStreamRequest.Completion) -> Int32 {
        // The last hop's URL: a response's `request` is the request made, across redirects.
        if let response = completion.response { effectiveURL = (response.url ?? completion.request?.url)?.absoluteString }
        var error = completion.error
        if case .responseValidationFailed(reason: .unacceptableStatusCode)? = error, completion.response != nil {
            // --retry's own validator after the last retry: the response stands.
            error = nil
            if let held = kept {
                kept = nil
                if take(held.head) == .allow { _ = held.body.allSatisfy { write($0) } }
            }
        }
        let closed = sink?.close() ?? true
        sink = nil
        if let verdict {
            guard let message = verdict.message else { return verdict.status }
            return report(verdict.status, message)
        }
        // --ignore-content-length: curl never read the length, so its message names none.
        let lengthSource = options.extras.framing.ignoreContentLength ? nil : completion.response ?? response
        if let error, let curl = TransferErrors.curlWording(for: error, response: lengthSource, bodySize: bodySize)
            ?? LocalBinding.curlWording(for: error) {
            return report(curl.status, curl.message)
        }
        if let error {
            let status = TransferErrors.exitStatus(for: error, certificateStatusRequired: options.requireCertificateStatus)
            if status == 47 {
                response = completion.response  // curl's -w %{http_code} shows the last redirect's status
                return report(47, "Maximum (\(options.maxRedirects)) redirects followed")
            }
            return report(status, TransferErrors.message(for: error, status: status, url: request.url))
        }
        guard let http = completion.response else { return report(1, "no response") }
        response = http
        if !closed { return report(23, "Failed writing body") }
        if http.statusCode >= 400 && options.failMode != .never { return report(22, "The requested URL returned error: \(http.statusCode)") }
        return 0
    }

    // MARK: Helpers

    /// Records `status` as the transfer's outcome and answers `.cancel`.
    private func stop(_ status: Int32, _ message: String?) -> Request.ResponseDisposition {
        if verdict == nil { verdict = (status, message) }
        return .cancel
    }

    /// Opens where the body goes: `-o FILE`, `-O` (`-J`: the Content-Disposition name), or
    /// standard output; `append` for `-C`. A name from the server is created new, never through
    /// a symbolic link (`Output.FileRule.serverNamed`); `--no-clobber` adds `.N` to any name.
    private func openSink(for http: HTTPURLResponse, append: Bool) -> Result<BodySink, TransferError> {
        var path: String
        var serverNamed = false
        switch output {
        case .file(let given) where given != "-":
            path = given
        case .remoteName:
            let fromHeader = options.remoteHeaderName
                ? RemoteHeaderName.fileName(fromContentDisposition: http.headers.value(for: "Content-Disposition")) : nil
            guard let name = fromHeader ?? Output.remoteName(request.url) else {
                return .failure(TransferError(status: 23, message: "Remote file name has no length!"))
            }
            path = name
            serverNamed = fromHeader != nil
        case .file, nil:
            return .success(BodySink(fd: 1, limitRate: options.limitRate))
        }
        path = options.extras.placed(path)
        let rule = Output.FileRule(
            createDirectories: options.createDirectories, append: append, serverNamed: serverNamed, noClobber: options.noClobber,
            mode: options.extras.createFileMode)
        switch Output.open(path, rule: rule) {
        case .success(let opened):
            openedPath = opened.path
            return .success(BodySink(fd: opened.fd, limitRate: options.limitRate))
        case .failure(let error):
            // curl 7.88: a warning (hidden by -s), then 23; -J opens in its header callback.
            if !options.silent { printError("Warning: Failed to open the file \(path): \(error.reason)") }
            return .failure(TransferError(status: 23, message: serverNamed ? "Failed writing header" : "Failure writing output to destination"))
        }
    }

    /// Prints `fetch: (status) message` unless silenced; returns `status`.
    private func report(_ status: Int32, _ message: String) -> Int32 {
        errorMessage = message
        if options.showsErrors { printError("fetch: (\(status)) \(message)") }
        return status
    }
}

/// Redirect heads collected by the redirect handler (on the request's queue), read on the
/// transfer's queue once the final head arrived.
final class HopHeads: Sendable {
    private let heads = Mutex<[String]>([])
    private let refused = Mutex<String?>(nil)
    /// Records a redirect `--proto`/`--proto-redir` did not allow.
    func refuse(_ scheme: String) { refused.withLock { $0 = scheme } }
    /// The scheme of a refused redirect, if one was.
    var refusedScheme: String? { refused.withLock { $0 } }
    /// Adds one head's text.
    func append(_ head: String) { heads.withLock { $0.append(head) } }
    /// Every head so far, in order.
    var all: [String] { heads.withLock { $0 } }
}
