// fetch: a curl-compatible command-line client built on Lariat's Alamofire API, like any user's
// program. Options are spelled as curl spells them so scripts and healthchecks can switch; the
// parser is OptionTable + ArgumentWalker + ConfigFile, requests come from RequestBuilder and
// RequestBody, bytes go out through Output.
//
// Exit status: curl's. 0 success, 1 unsupported protocol, 2 usage (and options that need Client
// features not there yet), 3 malformed URL or glob, 6 unknown host, 7 connection refused, 8
// malformed response, 18 body shorter than announced, 22 HTTP error with -f, 23 write error, 26
// read error, 27 head over the limit (curl 7.88's), 28 timeout or -Y/-y, 35 TLS handshake, 67
// --disallow-username-in-url,
// 56 connection lost, 58 client certificate, 59 cipher list, 60 untrusted certificate, 63
// --max-filesize exceeded, 77 CA file, 82 CRL file, 90 pinned key mismatch, 91 --cert-status,
// 49 bad --resolve.

import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
#if canImport(Glibc)
import Glibc
#endif

@main
struct Fetch {
    /// Synchronous, so the main thread never ends in `pthread_exit` (as an `async` `main` does,
    /// in `dispatch_main()`): it runs the main queue until `run()` exits (MainQueueLoop.swift).
    static func main() {
        // Before any other OpenSSL call: no OpenSSL cleanup at exit while a loop thread may
        // still be closing a connection (see OpenSSLLibrary).
        OpenSSLLibrary.initializeWithoutExitCleanup()
        // A reader that goes away (`fetch URL | head -c 10`) is a write error, exit 23 with
        // curl's message, not death by SIGPIPE (141).
        signal(SIGPIPE, SIG_IGN)
        // A crash says so in one line (CrashMessage.swift): a scratch image has no backtracer.
        CrashMessage.install()
        MainQueueLoop.run { await run() }
    }

    /// The whole run, on the main actor; ends the process with curl's status.
    @MainActor static func run() async -> Never {
        let invocation: Invocation
        do {
            invocation = try ArgumentWalker.parse(Array(CommandLine.arguments.dropFirst()), defaultConfig: ConfigFile.defaultPath())
        } catch {
            error.lines.forEach(printError)
            exit(error.status)
        }
        let options: FetchOptions
        switch invocation {
        case .help(let category): print(Usage.text(category: category)); exit(0)
        case .version: print(FetchVersion.text); exit(0)
        case .engines: print(SSLEngine.listText); exit(0)
        case .run(let parsed): options = parsed
        }
        if let path = options.extras.stderrPath { redirectStandardError(to: path) }
        var status: Int32 = 0
        // Every group's session lives until the process exits: a session released just before
        // `exit` closes its connections on the loop threads while `exit` runs, a crash in about
        // 1 of 200 processes under load (SIGSEGV or SIGABRT inside OpenSSL).
        var sessions: [Session] = []
        var programGroups: [(options: FetchOptions, requests: [PlannedRequest?])] = []
        // --next groups in order; curl's status is the last transfer's (--fail-early: the first failure's).
        for group in [options] + options.following {
            group.parseWarnings.forEach(printError)
            if let first = group.unsupported.first { fail("fetch: option \(first)", status: 2) }
            let session: Session
            let planned: [PlannedRequest?]
            (status, session, planned) = await runGroup(group)
            sessions.append(session)
            programGroups.append((group, planned))
            if status != 0 && group.extras.failEarly {
                status = writeProgram(options, programGroups, status: status)
                withExtendedLifetime(sessions) { exit(status) }
            }
        }
        status = writeProgram(options, programGroups, status: status)
        if options.endsWithEmptyGroup {
            printError("fetch: no URL specified!")
            withExtendedLifetime(sessions) { fail("fetch: try 'fetch --help' for more information", status: 2) }
        }
        withExtendedLifetime(sessions) { exit(status) }
    }

    /// One `--next` group: its URLs (globbed) through one session, one after another or with
    /// `-Z` at most `--parallel-max` at once; returns curl's status for the group and the
    /// session, which the caller keeps until the process exits.
    static func runGroup(_ options: FetchOptions) async -> (Int32, Session, [PlannedRequest?]) {
        var planned: [PlannedRequest?] = []
        var status: Int32 = 0
        let builder = RequestBuilder()
        var errors: [Int: TransferError] = [:]
        let (jobs, globFailure) = TransferJob.jobs(options)
        for (index, job) in jobs.enumerated() {
            do throws(TransferError) {
                planned.append(try builder.request(job.url, options: options))
            } catch {
                planned.append(nil)
                errors[index] = error
            }
        }
        let dohAddresses = await resolveOverDoH(options, planned: &planned, errors: &errors)
        let session: Session
        do throws(FetchSetupError) {
            session = try makeSession(options, requests: planned.compactMap { $0 }, dohAddresses: dohAddresses)
        } catch {
            planned.forEach { $0?.removeBodyFile() }
            // curl's "(N) message" line, silenced by -s unless -S (as every transfer failure).
            if options.showsErrors { printError("fetch: \(error)") }
            exit(error.status)
        }
        if options.extras.parallel {
            status = await ParallelRun(options: options, session: session, jobs: jobs, planned: planned, errors: errors).run()
        } else {
            var pacer = RatePacer(interval: options.extras.rateInterval)
            for index in planned.indices {
                if planned[index] != nil { await pacer.wait() }
                let result = await runOne(options, session, job: jobs[index], request: planned[index], error: errors[index])
                // As curl: every URL is tried; the status is the last transfer's (with
                // --fail-early, the first failure's, and the rest are not tried).
                status = result
                if result != 0 && options.extras.failEarly { break }
            }
        }
        // A URL that is not a valid glob ends the run where it stands (curl globs each URL as it
        // reaches it: the URLs before it were transferred, none after).
        if let globFailure, status == 0 || !options.extras.failEarly {
            if options.showsErrors { printError("fetch: (3) \(globFailure.1.message(url: globFailure.0))") }
            status = 3
        }
        options.cookies.save(from: session.configuration, showsWarnings: !options.silent)
        return (status, session, planned)
    }

    /// `--libcurl FILE`: writes the run's Swift program (SwiftProgram.swift) after the transfers,
    /// as curl writes its C program; returns the run's status (23 when FILE cannot be written and
    /// the run had succeeded).
    static func writeProgram(_ options: FetchOptions, _ groups: [(options: FetchOptions, requests: [PlannedRequest?])], status: Int32) -> Int32 {
        guard let path = options.extras.libcurlPath else { return status }
        let source = Data(SwiftProgram.source(arguments: Array(CommandLine.arguments.dropFirst()), groups: groups).utf8)
        let written: Bool
        if path == "-" {
            written = writeAll(1, source)
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            written = fd >= 0 && writeAll(fd, source)
            if fd >= 0 { close(fd) }
        }
        guard written else {
            if options.showsErrors { printError("fetch: (23) Failed writing the --libcurl program to \(path)") }
            return status == 0 ? 23 : status
        }
        return status
    }

    /// One transfer (or the error that kept its request from being built), with its `-w`.
    static func runOne(_ options: FetchOptions, _ session: Session, job: TransferJob, request: PlannedRequest?, error: TransferError?,
                       meter: ParallelMeter? = nil) async -> Int32 {
        guard let request else {
            let error = error ?? TransferError(status: 2, message: "")
            if options.showsErrors && !error.message.isEmpty { printError("fetch: (\(error.status)) \(error.message)") }
            if let format = options.writeOut {
                writeOut(format, WriteOut.Values(exitCode: error.status, errorMessage: error.message, url: job.url))
            }
            return error.status
        }
        if WebSocketTransfer.handles(request.url) {
            return await WebSocketTransfer(options: options, request: request).run(session)
        }
        let transfer = Transfer(options: options, request: request, output: job.output, parallelMeter: meter)
        let result = await transfer.run(session)
        request.removeBodyFile()
        if let format = options.writeOut { writeOut(format, transfer.writeOutValues(status: result)) }
        return result
    }

    /// `-w`: the rendered format on standard output; unknown variables warned about (as curl).
    static func writeOut(_ format: String, _ values: WriteOut.Values) {
        let rendered = WriteOut.renderPieces(format, values)
        for name in rendered.unknown { printError("fetch: unknown --write-out variable: '\(name)'") }
        for (stream, text) in rendered.pieces { _ = writeAll(stream == .stdout ? 1 : 2, Data(text.utf8)) }
    }

    /// One session for every URL of the run.
    /// `--doh-url`: the planned requests' host names resolved over DoH (DoHResolver.swift); a
    /// transfer whose host does not resolve becomes curl's 6. Hosts `--resolve` names are left
    /// to it, as curl finds them in its DNS cache first.
    static func resolveOverDoH(_ options: FetchOptions, planned: inout [PlannedRequest?], errors: inout [Int: TransferError]) async -> [String: [String]] {
        guard let doh = DoHResolver(options), options.unixSocket == nil else { return [:] }
        // Through a proxy curl asks DoH for the proxy's name, not the URL's: fetch asks for
        // neither (the proxy's name goes to the system resolver; Documentation/fetch.md).
        let proxies = try? options.proxy.configuration(environment: ProcessInfo.processInfo.environment, bypassed: false)
        if proxies != nil { return [:] }
        let fixed = Set(options.resolveEntries.map { entry in
            String(entry.drop { $0 == "+" }.prefix { $0 != ":" }).lowercased()
        })
        let hosts = Set(planned.compactMap { request in request.map { TransferErrors.hostAndPort($0.url).0 } }
            .filter { DoHResolver.asks($0) && !fixed.contains($0.lowercased()) })
        guard !hosts.isEmpty else { return [:] }
        let session: Session
        do throws(FetchSetupError) {
            session = try doh.session(options)
        } catch {
            if options.showsErrors { printError("fetch: \(error)") }
            exit(error.status)
        }
        let results = await doh.resolve(hosts, with: session)
        for index in planned.indices {
            guard let request = planned[index], case .some(.none) = results[TransferErrors.hostAndPort(request.url).0] else { continue }
            request.removeBodyFile()
            planned[index] = nil
            errors[index] = TransferError(status: 6, message: "Couldn't resolve host name")
        }
        return results.compactMapValues { $0 }
    }

    static func makeSession(_ options: FetchOptions, requests: [PlannedRequest], dohAddresses: [String: [String]] = [:]) throws(FetchSetupError) -> Session {
        // No Alamofire default headers: fetch sends curl's (User-Agent, Accept) itself.
        let configuration = URLSessionConfiguration.default
        configuration.headers = HTTPHeaders()
        // curl decodes only with --compressed (and never with --raw); without it the coded
        // bytes are the output.
        configuration.contentDecoding = options.compressed && !options.extras.framing.raw ? .automatic : .disabled
        configuration.responseReading = options.extras.framing.reading
        if let maxTime = options.maxTime {
            // curl's --max-time bounds the whole transfer, connecting included: the total
            // (resource) deadline. curl has no idle timeout; a silence cannot outlast the total,
            // so the idle limit is raised to match rather than left at 60 s.
            configuration.timeoutIntervalForResource = maxTime
            configuration.timeoutIntervalForRequest = maxTime
        }
        if let connectTimeout = options.connectTimeout { configuration.timeoutIntervalForConnect = connectTimeout }
        configuration.requestTarget = options.requestTarget
        configuration.usesHTTP10 = options.http10
        configuration.socketSetup = try LocalBinding.setup(options)
        configuration.sendsPROXYProtocolHeader = options.haproxyProtocol
        if let engine = options.engine, let failure = SSLEngine.failure(engine) { throw failure }
        var proxies = try options.proxy.configuration(
            environment: ProcessInfo.processInfo.environment, bypassed: options.unixSocket != nil,
            userAgent: options.userAgent ?? RequestBuilder.userAgent)
        if let found = proxies, found.httpProxy?.kind == .https || found.httpsProxy?.kind == .https {
            // curl reads the --proxy-* files only for an https:// proxy; so does fetch.
            let proxyTLS = try options.proxyTLSOptions()
            if proxies?.httpProxy?.kind == .https { proxies?.httpProxy?.tlsOptions = proxyTLS }
            if proxies?.httpsProxy?.kind == .https { proxies?.httpsProxy?.tlsOptions = proxyTLS }
            if options.proxy.tls.insecure && options.showsErrors {
                printError("fetch: warning: --proxy-insecure: the proxy's certificate is NOT verified")
            }
        }
        configuration.proxy = proxies
        options.cookies.configure(configuration)
        // curl's --max-redirs (50 by default, -1 for none); one more is exit 47.
        configuration.httpMaximumRedirects = options.maxRedirects < 0 ? Int.max : options.maxRedirects
        // fetch answers challenges only with -u/URL credentials, never from a shared store.
        configuration.urlCredentialStorage = nil
        if options.insecure && options.showsErrors { printError("fetch: warning: -k/--insecure: the server's certificate is NOT verified") }
        let trustManager: ServerTrustManager?
        do {
            trustManager = try options.serverTrustManager()
        } catch {
            throw FetchSetupError(status: 2, description: "--pinnedpubkey: \(error)")
        }
        // curl reads certificate files only for TLS transfers; so does fetch.
        let usesTLS = requests.contains { $0.url.lowercased().hasPrefix("https:") || $0.url.lowercased().hasPrefix("wss:") }
        let tlsConfiguration = usesTLS ? try options.tlsConfiguration() : TLSConfiguration()
        var resolver = try options.hostResolver()
        for (host, addresses) in dohAddresses.sorted(by: { $0.key < $1.key }) {
            do { try resolver.override(host: host, addresses: addresses) } catch {
                throw FetchSetupError(status: 6, description: "(6) DoH answer for \(host): \(error)")
            }
        }
        try AddressFamilyFilter(options.ipVersion).restrict(&resolver, for: requests.map(\.url))
        // One transfer at a time needs one loop: a second loop thread is only start-up time.
        return Session(
            configuration: configuration, serverTrustManager: trustManager, tlsConfiguration: tlsConfiguration,
            eventLoopGroup: EventLoopGroup(numberOfThreads: 1), resolver: resolver)
    }
}

/// `--stderr FILE`: standard error goes to FILE from now on (`-`: standard output).
func redirectStandardError(to path: String) {
    if path == "-" { dup2(1, 2); return }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }  // curl keeps standard error when the file cannot be opened
    dup2(fd, 2)
    close(fd)
}

/// `--rate`: transfers start at most once per interval.
struct RatePacer {
    /// Seconds between two starts (nil: no pacing).
    var interval: Double?
    /// When the last transfer started (monotonic seconds).
    private var last: Double?

    init(interval: Double?) { self.interval = interval }

    /// Sleeps until the next start is due, then records it.
    mutating func wait() async {
        guard let interval else { return }
        if let last {
            let due = last + interval - Output.monotonicSeconds()
            if due > 0 { try? await Task.sleep(nanoseconds: UInt64(due * 1e9)) }
        }
        last = Output.monotonicSeconds()
    }
}

/// Writes to standard error.
func printError(_ message: String) {
    _ = writeAll(2, Data((message + "\n").utf8))
}

/// Prints `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    printError(message)
    exit(status)
}
