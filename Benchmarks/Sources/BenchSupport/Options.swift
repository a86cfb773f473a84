// The command-line contract every peer shares (README.md, "Peer contract").
//
//   <peer> --workload NAME --url URL [--requests N] [--concurrency C] [--connections C]
//          [--warmup W] [--out FILE] [--file FILE] [--cacert FILE] [--no-resume]
//
// Parsing is hand-written (no ArgumentParser) so a peer links nothing beyond its client.

/// One of the measured workloads; the raw value is the `--workload` spelling.
public enum Workload: String, CaseIterable, Sendable {
    /// N sequential GETs on one keep-alive connection: req/s, p50/p99 latency.
    case seq
    /// N GETs in total, C in flight over up to C connections: req/s, latency, peak RSS.
    case concurrent
    /// N GETs (1 by default) with the body kept in memory: MB/s, peak RSS.
    case downloadMemory = "download-memory"
    /// N GETs (1 by default) streamed to `--out`: MB/s, peak RSS.
    case downloadFile = "download-file"
    /// N POSTs (1 by default) of the file given by `--file`: MB/s.
    case upload
    /// N sequential GETs, each decoded with `JSONDecoder` into ``BenchDocument``: req/s.
    case json
    /// N sequential GETs, each on a new connection (`Connection: close`): connections/s in `rps`.
    case httpsNewConn = "https-new-conn"
    /// N GETs (1 by default) whose body is consumed chunk by chunk and dropped: MB/s, peak RSS.
    case stream

    /// The request count used when `--requests` is absent.
    public var defaultRequests: Int {
        switch self {
        case .seq, .json: return 5_000
        case .concurrent: return 20_000
        case .downloadMemory, .downloadFile, .upload, .stream: return 1
        case .httpsNewConn: return 500
        }
    }

    /// The untimed warm-up request count used when `--warmup` is absent.
    ///
    /// Sequential workloads warm up with a few requests so the first connection (and, for
    /// TLS, the first handshake) is not in the latency distribution; `concurrent` warms up
    /// with one wave of `--concurrency` requests so its connections exist before timing;
    /// bulk transfers do not warm up, one connection setup is noise next to 100 MiB.
    public func defaultWarmup(concurrency: Int) -> Int {
        switch self {
        case .seq, .json: return 10
        case .concurrent: return concurrency
        case .httpsNewConn: return 1
        case .downloadMemory, .downloadFile, .upload, .stream: return 0
        }
    }
}

/// Parsed command line of a peer.
public struct BenchOptions: Sendable, Equatable {
    /// The workload to run.
    public var workload: Workload
    /// The URL every request goes to (for `upload`, the endpoint that receives the POST).
    public var url: String
    /// Timed requests; the workload's ``Workload/defaultRequests`` when absent. Always > 0.
    public var requests: Int
    /// Requests in flight at once (`concurrent` only); 1 by default, 64 for `concurrent`.
    public var concurrency: Int
    /// Maximum connections to the host; equal to ``concurrency`` when absent.
    public var connections: Int
    /// Untimed warm-up requests before the measurement; see ``Workload/defaultWarmup(concurrency:)``.
    public var warmup: Int
    /// Destination file for `download-file`; required there, ignored elsewhere.
    public var out: String?
    /// Source file for `upload`; required there, ignored elsewhere.
    public var file: String?
    /// PEM file with the CA that signed the server's certificate; nil trusts the system roots.
    public var cacert: String?
    /// `false` when `--no-resume` asks for a full TLS handshake on every new connection.
    public var tlsResumption: Bool

    /// Parses a peer's arguments (without the program name).
    /// - Parameter arguments: e.g. `["--workload", "seq", "--url", "http://127.0.0.1:8080/1k.bin"]`.
    /// - Returns: the options, with per-workload defaults filled in.
    /// - Throws: ``UsageError`` naming the offending argument.
    public static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--no-resume":
                flags.insert(argument)
                index += 1
            case "--workload", "--url", "--requests", "--concurrency", "--connections",
                "--warmup", "--out", "--file", "--cacert":
                guard index + 1 < arguments.count else {
                    throw UsageError("\(argument) needs a value")
                }
                values[argument] = arguments[index + 1]
                index += 2
            default:
                throw UsageError("unknown argument '\(argument)'")
            }
        }
        guard let workloadName = values["--workload"] else { throw UsageError("--workload is required") }
        guard let workload = Workload(rawValue: workloadName) else {
            let known = Workload.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("unknown workload '\(workloadName)' (known: \(known))")
        }
        guard let url = values["--url"], url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("ws://") else {
            throw UsageError("--url is required and must be http://, https:// or (the WebSocket echo peers) ws://")
        }
        let concurrency = try positive(values["--concurrency"], name: "--concurrency")
            ?? (workload == .concurrent ? 64 : 1)
        var options = BenchOptions(
            workload: workload,
            url: url,
            requests: try positive(values["--requests"], name: "--requests") ?? workload.defaultRequests,
            concurrency: concurrency,
            connections: try positive(values["--connections"], name: "--connections") ?? concurrency,
            warmup: workload.defaultWarmup(concurrency: concurrency),
            out: values["--out"],
            file: values["--file"],
            cacert: values["--cacert"],
            tlsResumption: !flags.contains("--no-resume")
        )
        if let warmup = values["--warmup"] {
            guard let value = Int(warmup), value >= 0 else { throw UsageError("--warmup must be >= 0") }
            options.warmup = value
        }
        if workload == .downloadFile, options.out == nil { throw UsageError("download-file needs --out") }
        if workload == .upload, options.file == nil { throw UsageError("upload needs --file") }
        return options
    }

    private static func positive(_ text: String?, name: String) throws(UsageError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), value > 0 else { throw UsageError("\(name) must be a positive integer") }
        return value
    }

    /// One-paragraph usage text printed on a usage error.
    public static let usage = """
        usage: <peer> --workload seq|concurrent|download-memory|download-file|upload|json|https-new-conn|stream
                      --url URL [--requests N] [--concurrency C] [--connections C] [--warmup W]
                      [--out FILE] [--file FILE] [--cacert FILE] [--no-resume]
        Prints exactly one JSON line on stdout. Exit status: 0 ok, 1 failure, 2 usage, 3 unsupported.
        """
}

/// A malformed command line; `message` says which argument and why.
public struct UsageError: Error, CustomStringConvertible {
    /// Human-readable reason.
    public let message: String
    /// Creates the error.
    /// - Parameter message: which argument is wrong and why.
    public init(_ message: String) { self.message = message }
    /// Same as ``message``.
    public var description: String { message }
}
