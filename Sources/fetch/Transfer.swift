// One URL of a run: the request sent through Session, then the response written as curl
// writes it (-i, -I, -D, -o/-O/-o -, --create-dirs, -f/--fail-with-body, --max-filesize,
// --limit-rate), with curl's status and one-line message for every failure.
import Client
import Synchronization
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One URL's transfer; a class so that what happened can be read after `run` (for `-w`).
final class Transfer {
    /// The run's options.
    let options: FetchOptions
    /// The request to send.
    let request: PlannedRequest
    /// Its `-o`/`-O`, if one was given for it.
    let output: FetchOptions.Output?
    /// The response head, once one arrived.
    private(set) var response: HTTPURLResponse?
    /// The body's length, once it arrived.
    private(set) var bodySize = 0
    /// The head's length as written by `-i` (status line, headers, blank line).
    private(set) var headSize = 0
    /// The heads of the redirects followed, kept when heads are written.
    private let hopHeads = HopHeads()
    /// The last request's URL (after redirects), once a response arrived.
    private(set) var effectiveURL: String?
    /// The last failure's message, empty on success.
    private(set) var errorMessage = ""
    /// When `run` started, and how long it took (seconds).
    private(set) var duration = 0.0
    /// `-C`/`-r`: the Range sent and what the response means (`ContinueAt.swift`).
    private var continuePlan: ContinuePlan?
    private(set) var started: Date?
    /// The request's metrics, for `-w` and `-v`.
    private(set) var metrics: URLSessionTaskMetrics?

    /// A transfer of `request` under `options`, writing to `output`.
    init(options: FetchOptions, request: PlannedRequest, output: FetchOptions.Output?) {
        self.options = options
        self.request = request
        self.output = output
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
        if case .file(let path) = output { values.filenameEffective = path }
        return values
    }

    /// curl's redirect behaviour: none without `-L`; with it, URLSession's rules (credentials
    /// dropped for another host), or with `--location-trusted` the original Authorization and
    /// Cookie sent along wherever the redirect goes.
    /// Each redirect's head is kept in `hops`: written before the final one with `-i`, `-I` and
    /// `-D`, and counted by `%{size_header}`, as curl does.
    static func redirector(options: FetchOptions, original: URLRequest, hops: HopHeads) -> Redirector {
        guard options.followRedirects else { return .doNotFollow }
        let kept = options.locationTrusted
            ? ["Authorization", "Cookie"].compactMap { name in original.value(forHTTPHeaderField: name).map { (name, $0) } } : []
        return .modify { _, request, response in
            hops.append(headText(response))
            var request = request
            for (name, value) in kept where request.value(forHTTPHeaderField: name) == nil { request.setValue(value, forHTTPHeaderField: name) }
            return request
        }
    }

    /// A response head as curl writes it for `-i` and `-D`.
    static func headText(_ http: HTTPURLResponse) -> String {
        // The status line as the server sent it: its version and its own reason phrase.
        var head = "\(http.httpVersion) \(http.statusCode) \(http.reasonPhrase ?? Output.reasonPhrase(http.statusCode))\r\n"
        for header in http.headers { head += "\(header.name): \(header.value)\r\n" }
        return head + "\r\n"
    }

    /// Sends the request and writes the response; returns curl's status.
    func run(_ session: Session) async -> Int32 {
        var headers = HTTPHeaders()
        // Appended, not replaced: repeated -H lines go out as curl sends them.
        for field in request.headers { headers.appendField(name: field.name, value: field.value) }
        let outputPath: String? = switch output {
        case .file(let path)?: path
        case .remoteName?: Output.remoteName(request.url)
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
        let started = Date()
        self.started = started
        defer { duration = Date().timeIntervalSince(started) }
        let everyMethod: Set<HTTPMethod> = [.head, .get, .post, .put, .delete, .patch, .options, HTTPMethod(rawValue: request.method)]
        if let cookie = options.cookies.literalField { urlRequest.headers.add(name: "Cookie", value: cookie) }
        let meter = ProgressMeter.make(options: options, output: output)
        meter?.start()
        let dataRequest = retrying(session, urlRequest)
        if let credentials = request.challengeCredentials {
            let colon = credentials.firstIndex(of: ":") ?? credentials.endIndex
            let password = colon < credentials.endIndex ? String(credentials[credentials.index(after: colon)...]) : ""
            dataRequest.authenticate(username: String(credentials[..<colon]), password: password)
        }
        dataRequest.redirect(using: Self.redirector(options: options, original: urlRequest, hops: hopHeads))
        meter?.attach(to: dataRequest)
        let response = await dataRequest.serializingData(emptyResponseCodes: Set(100...599), emptyRequestMethods: everyMethod).response
        meter?.finish(downloaded: response.data?.count ?? 0, expectedLength: response.response?.expectedContentLength ?? -1)
        metrics = response.metrics
        if options.verbose { Verbose.report(session: session, response: response, bodyCount: response.data?.count ?? 0) }
        switch response.result {
        case .failure(.responseValidationFailed(reason: .unacceptableStatusCode)) where response.response != nil:
            // --retry's own validator (FetchRetry.swift) after the last retry: the response stands.
            guard let http = response.response else { return report(1, "no response") }
            self.response = http
            bodySize = response.data?.count ?? 0
            return write(http, body: response.data ?? Data())
        case .failure(let error):
            let status = TransferErrors.exitStatus(for: error, certificateStatusRequired: options.requireCertificateStatus)
            if status == 47 {
                self.response = response.response  // curl's -w %{http_code} shows the last redirect's status
                return report(47, "Maximum (\(options.maxRedirects)) redirects followed")
            }
            return report(status, TransferErrors.message(for: error, status: status, url: request.url))
        case .success(let body):
            guard let http = response.response else { return report(1, "no response") }
            self.response = http
            effectiveURL = response.request?.url?.absoluteString
            bodySize = body.count
            return write(http, body: body)
        }
    }

    /// With --retry: the request with fetch's retrier and the validator that lets it see
    /// curl's retryable statuses.
    private func retrying(_ session: Session, _ urlRequest: URLRequest) -> DataRequest {
        guard options.retry.count > 0 else { return session.request(urlRequest) }
        let retrier = FetchRetrier(
            options: options.retry, failMode: options.failMode, showsErrors: options.showsErrors, showsWarnings: !options.silent,
            url: self.request.url)
        return session.request(urlRequest, interceptor: Interceptor(retriers: [retrier])).validate { _, response, _ in
            retrier.isRetryableStatus(response.statusCode)
                ? .failure(AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
                : .success(())
        }
    }

    /// Writes a response; returns curl's status.
    private func write(_ http: HTTPURLResponse, body: Data) -> Int32 {
        // Redirects' heads first (-L with -i, -I or -D), then the final one.
        let head = hopHeads.all.joined() + Self.headText(http)
        headSize = head.utf8.count
        if let path = options.dumpHeaderPath {
            let written = path == "-" ? writeAll(1, Data(head.utf8)) : Output.writeFile(path, Data(head.utf8), createDirectories: options.createDirectories)
            if !written { return report(23, "Failed writing header to \(path)") }
        }
        let failed = http.statusCode >= 400 && options.failMode != .never
        if failed && options.failMode == .withoutBody {
            // curl has written the head already when -i asked for it; the body never.
            if options.includeHeaders || options.headOnly { _ = writeAll(1, Data(head.utf8)) }
            return report(22, "The requested URL returned error: \(http.statusCode)")
        }
        if let max = options.maxFileSize, body.count > max {
            return report(63, "Maximum file size exceeded")
        }
        let outcome = continuePlan?.outcome(status: http.statusCode, headers: http.headers) ?? .write
        if outcome == .alreadyComplete { return 0 }
        if outcome == .cannotResume { return report(33, "HTTP server doesn't seem to support byte ranges. Cannot resume.") }
        var bytes = Data()
        if options.includeHeaders || options.headOnly { bytes.append(contentsOf: Array(head.utf8)) }
        if !options.headOnly && outcome != .ignoreBody { bytes.append(body) }
        switch output {
        case .file(let path) where path != "-":
            guard Output.writeFile(path, bytes, createDirectories: options.createDirectories, limitRate: options.limitRate,
                                   append: outcome == .append || outcome == .ignoreBody) else {
                return report(23, "Failed writing body")
            }
        case .remoteName:
            guard let name = Output.remoteName(request.url) else { return report(23, "Remote file name has no length!") }
            guard Output.writeFile(name, bytes, createDirectories: options.createDirectories, limitRate: options.limitRate,
                                   append: outcome == .append || outcome == .ignoreBody) else {
                return report(23, "Failed writing body")
            }
        case .file, nil:
            // curl refuses binary data for a terminal unless asked with `-o -`.
            if output == nil && isatty(1) == 1 && body.contains(0) {
                // A warning, not an error: -s hides it even with -S (as curl).
                if !options.silent {
                    printError("""
                        Warning: Binary output can mess up your terminal. Use "--output -" to tell 
                        Warning: fetch to output it to your terminal anyway, or consider "--output 
                        Warning: <FILE>" to save to a file.
                        """)
                }
                return 23
            }
            guard Output.write(1, bytes, limitRate: options.limitRate) else { return report(23, "Failed writing body") }
        }
        if failed { return report(22, "The requested URL returned error: \(http.statusCode)") }
        return 0
    }

    /// Prints `fetch: (status) message` unless silenced; returns `status`.
    private func report(_ status: Int32, _ message: String) -> Int32 {
        errorMessage = message
        if options.showsErrors { printError("fetch: (\(status)) \(message)") }
        return status
    }
}

/// Redirect heads collected by the redirect handler (on the request's queue), read after the
/// transfer ended.
final class HopHeads: Sendable {
    private let heads = Mutex<[String]>([])
    /// Adds one head's text.
    func append(_ head: String) { heads.withLock { $0.append(head) } }
    /// Every head so far, in order.
    var all: [String] { heads.withLock { $0 } }
}
