// Runs a workload against a peer's client and builds the result line.
//
// The driver owns timing, warm-up, concurrency and validation; a peer only implements
// ``PeerClient`` with its library's idiomatic calls. Keeping the loop here means every peer
// is measured by the same code.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What one request produced: the status and the body size the client delivered.
public struct Fetched: Sendable {
    /// HTTP status code.
    public var status: Int
    /// Body bytes received (for `upload`: bytes of the response body, usually 0).
    public var bodyBytes: Int

    /// Creates a value.
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - bodyBytes: body bytes received.
    public init(status: Int, bodyBytes: Int) {
        self.status = status
        self.bodyBytes = bodyBytes
    }
}

/// The operations a peer provides, each done the way its library's documentation suggests.
///
/// Methods may be called concurrently (by the `concurrent` workload).
public protocol PeerClient: Sendable {
    /// GET `url` with the body collected in memory in the library's usual type.
    /// - Parameters:
    ///   - url: absolute URL.
    ///   - closeConnection: send `Connection: close` so the next request needs a new connection.
    /// - Returns: status and body size.
    /// - Throws: any transport error.
    func get(_ url: String, closeConnection: Bool) async throws -> Fetched

    /// GET `url` and decode the body with `JSONDecoder` into ``BenchDocument``.
    /// - Parameter url: absolute URL of the JSON document.
    /// - Returns: the decoded document.
    /// - Throws: transport or decoding errors.
    func getJSON(_ url: String) async throws -> BenchDocument

    /// GET `url`, streaming the body into the file at `path` (created or truncated).
    /// - Parameters:
    ///   - url: absolute URL.
    ///   - path: destination file.
    /// - Returns: status and bytes written.
    /// - Throws: transport or file errors.
    func download(_ url: String, to path: String) async throws -> Fetched

    /// POST the file at `path` (streamed, `Content-Length` known) to `url`.
    /// - Parameters:
    ///   - path: source file.
    ///   - size: its size in bytes.
    ///   - url: absolute URL of the upload endpoint.
    /// - Returns: status and response body size.
    /// - Throws: transport or file errors.
    func upload(file path: String, size: Int, to url: String) async throws -> Fetched

    /// GET `url` and consume the body chunk by chunk as it arrives, keeping none of it.
    ///
    /// The default implementation throws ``Unsupported`` (the peer then reports `n/a`).
    /// - Parameter url: absolute URL.
    /// - Returns: status and the sum of the chunk sizes.
    /// - Throws: transport errors.
    func stream(_ url: String) async throws -> Fetched

    /// Releases the client (connection pools, threads). Called once, after the run.
    /// - Throws: shutdown errors.
    func shutdown() async throws
}

extension PeerClient {
    /// Throws ``Unsupported``: a peer without a streaming API answers `n/a` for `stream`.
    public func stream(_ url: String) async throws -> Fetched {
        throw Unsupported("no streaming body API")
    }
}

/// A peer cannot honour an option (for example `--no-resume`); the peer exits with status 3.
public struct Unsupported: Error, CustomStringConvertible {
    /// What is unsupported and why.
    public let description: String
    /// Creates the error.
    /// - Parameter description: what is unsupported and why.
    public init(_ description: String) { self.description = description }
}

/// A response that is not what the workload expects (status, size or decoded content).
public struct ValidationFailure: Error, CustomStringConvertible {
    /// What did not match.
    public let description: String
    /// Creates the error.
    /// - Parameter description: what did not match.
    public init(_ description: String) { self.description = description }
}

/// Runs `options.workload` with `client` and returns the measured result.
/// - Parameters:
///   - client: the peer's client.
///   - name: peer name for the result line.
///   - options: parsed command line.
///   - tlsResumption: what the peer really does about TLS session resumption for this run
///     (`"on"`/`"off"`), reported for `https://` URLs; nil if unknown.
/// - Returns: the result.
/// - Throws: transport errors or ``ValidationFailure``.
public func runWorkload<Client: PeerClient>(
    _ client: Client, name: String, options: BenchOptions, tlsResumption: String?
) async throws -> BenchResult {
    var result: BenchResult
    switch options.workload {
    case .seq, .httpsNewConn:
        let close = options.workload == .httpsNewConn
        result = try await sequential(name: name, options: options) {
            try check(await client.get(options.url, closeConnection: close))
        }
    case .json:
        result = try await sequential(name: name, options: options) {
            let document = try await client.getJSON(options.url)
            guard document.matchesFixture else { throw ValidationFailure("decoded document differs from the fixture") }
            return 0
        }
    case .concurrent:
        result = try await concurrent(client, name: name, options: options)
    case .downloadMemory:
        result = try await bulk(name: name, options: options) {
            try check(await client.get(options.url, closeConnection: false))
        }
    case .stream:
        result = try await bulk(name: name, options: options) {
            try check(await client.stream(options.url))
        }
    case .downloadFile:
        let out = options.out ?? ""
        result = try await bulk(name: name, options: options) {
            let written = try check(await client.download(options.url, to: out))
            guard fileSize(out) == written else { throw ValidationFailure("\(out) does not hold the \(written) bytes received") }
            return written
        }
    case .upload:
        let path = options.file ?? ""
        guard let size = fileSize(path) else { throw ValidationFailure("cannot stat --file \(path)") }
        result = try await bulk(name: name, options: options) {
            _ = try check(await client.upload(file: path, size: size, to: options.url))
            return size
        }
    }
    result.peakRSSKiB = peakResidentKiB()
    if options.url.hasPrefix("https://") { result.tlsResumption = tlsResumption }
    return result
}

/// Accepts 2xx and returns the body size; anything else is a ``ValidationFailure``.
private func check(_ fetched: Fetched) throws -> Int {
    guard (200..<300).contains(fetched.status) else { throw ValidationFailure("unexpected status \(fetched.status)") }
    return fetched.bodyBytes
}

/// Warm-up, then `requests` timed calls one after another, recording each latency.
private func sequential(
    name: String, options: BenchOptions, _ request: () async throws -> Int
) async throws -> BenchResult {
    for _ in 0..<options.warmup { _ = try await request() }
    var latencies = LatencyRecorder(capacity: options.requests)
    var bytes = 0
    let start = monotonicNanos()
    for _ in 0..<options.requests {
        let before = monotonicNanos()
        bytes += try await request()
        latencies.record(monotonicNanos() - before)
    }
    let seconds = Double(monotonicNanos() - start) / 1e9
    return summarize(name: name, options: options, latencies: latencies, bytes: bytes, seconds: seconds)
}

/// Hands out request numbers to the concurrent workers.
private final class Ticket: Sendable {
    private let next = Atomic<Int>(0)
    /// Returns the next request number.
    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}

/// Warm-up wave, then `concurrency` workers share `requests` requests.
private func concurrent<Client: PeerClient>(
    _ client: Client, name: String, options: BenchOptions
) async throws -> BenchResult {
    let url = options.url
    // One warm-up wave in parallel, so the pool has opened its connections before timing.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<options.warmup {
            group.addTask { _ = try check(await client.get(url, closeConnection: false)) }
        }
        try await group.waitForAll()
    }
    let tickets = Ticket()
    let total = options.requests
    let perWorker = total / options.concurrency + 1
    let start = monotonicNanos()
    let (latencies, bytes) = try await withThrowingTaskGroup(of: (LatencyRecorder, Int).self) { group in
        for _ in 0..<options.concurrency {
            group.addTask {
                var local = LatencyRecorder(capacity: perWorker)
                var bytes = 0
                while tickets.take() < total {
                    let before = monotonicNanos()
                    bytes += try check(await client.get(url, closeConnection: false))
                    local.record(monotonicNanos() - before)
                }
                return (local, bytes)
            }
        }
        return try await mergeWorkers(&group, capacity: total)
    }
    let seconds = Double(monotonicNanos() - start) / 1e9
    return summarize(name: name, options: options, latencies: latencies, bytes: bytes, seconds: seconds)
}

/// `requests` transfers one after another; throughput only.
private func bulk(
    name: String, options: BenchOptions, _ transfer: () async throws -> Int
) async throws -> BenchResult {
    for _ in 0..<options.warmup { _ = try await transfer() }
    var bytes = 0
    let start = monotonicNanos()
    for _ in 0..<options.requests { bytes += try await transfer() }
    let seconds = Double(monotonicNanos() - start) / 1e9
    var result = BenchResult(
        client: name, workload: options.workload, requests: options.requests, bytes: bytes, seconds: seconds)
    result.mbps = Double(bytes) / seconds / 1e6
    return result
}

private func summarize(
    name: String, options: BenchOptions, latencies: LatencyRecorder, bytes: Int, seconds: Double
) -> BenchResult {
    var result = BenchResult(
        client: name, workload: options.workload, requests: options.requests, bytes: bytes, seconds: seconds)
    result.rps = Double(options.requests) / seconds
    let percentiles = latencies.percentilesMicros([50, 99])
    if percentiles.count == 2 {
        result.p50Micros = percentiles[0]
        result.p99Micros = percentiles[1]
    }
    return result
}

/// Merges the workers' latencies and byte counts as each worker finishes.
func mergeWorkers(
    _ group: inout ThrowingTaskGroup<(LatencyRecorder, Int), any Error>, capacity: Int
) async throws -> (LatencyRecorder, Int) {
    var merged = LatencyRecorder(capacity: capacity)
    var bytes = 0
    for try await (local, workerBytes) in group {
        merged.merge(local)
        bytes += workerBytes
    }
    return (merged, bytes)
}
