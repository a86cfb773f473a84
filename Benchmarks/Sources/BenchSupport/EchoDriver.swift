// The WebSocket echo row (issue 22): the driver of the `peer-ws-*` executables. A peer opens
// connections its library's way (``EchoClient``); the driver sends 1 KiB binary messages and
// times each round trip (send, then the echoed message received), with the same result line as
// the HTTP peers, so the runner's tables and per-run ratios work unchanged.
//
// `seq`: one connection, `--warmup` round trips, then `--requests` timed ones.
// `concurrent`: `--concurrency` connections, each opened and warmed by one round trip; once all
// are open the clock starts and the workers share `--requests` round trips.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One open WebSocket connection, used by one task at a time.
public protocol EchoConnection {
    /// Sends `payload` as one binary message and waits for the next message.
    /// - Parameter payload: the message.
    /// - Returns: the received message's size in bytes.
    /// - Throws: connection errors.
    mutating func roundTrip(_ payload: [UInt8]) async throws -> Int
}

/// Opens connections to an echo server.
public protocol EchoClient: Sendable {
    /// Opens a connection to `url`, runs `body` with it, then closes it.
    /// - Parameters:
    ///   - url: the `ws://` URL.
    ///   - body: the round trips.
    /// - Throws: connection errors or what `body` threw.
    func withConnection(to url: String, _ body: (inout any EchoConnection) async throws -> Void) async throws
}

/// Size of every echoed message.
public let echoMessageSize = 1024

/// Entry point of a WebSocket echo peer; never returns. Exit codes as ``peerMain(name:arguments:makeClient:)``.
/// - Parameters:
///   - name: the peer's name in the result line.
///   - client: the peer's connector.
public func echoMain(name: String, client: some EchoClient) async -> Never {
    let options: BenchOptions
    do {
        options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        echoFail(2, "\(name): \(error)\n\(BenchOptions.usage)")
    }
    do {
        var result: BenchResult
        switch options.workload {
        case .seq: result = try await echoSequential(client, name: name, options: options)
        case .concurrent: result = try await echoConcurrent(client, name: name, options: options)
        default: echoFail(3, "\(name): unsupported: only seq and concurrent echo")
        }
        result.peakRSSKiB = peakResidentKiB()
        print(result.jsonLine)
        exit(0)
    } catch {
        echoFail(1, "\(name): \(options.workload.rawValue) failed: \(error)")
    }
}

/// The message every peer sends: 1 KiB of a fixed pattern.
private let echoPayload: [UInt8] = (0..<echoMessageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

private func echoOnce(_ connection: inout any EchoConnection) async throws -> Int {
    let received = try await connection.roundTrip(echoPayload)
    guard received == echoMessageSize else { throw ValidationFailure("echoed \(received) bytes, sent \(echoMessageSize)") }
    return received
}

private func echoSequential(_ client: some EchoClient, name: String, options: BenchOptions) async throws -> BenchResult {
    var latencies = LatencyRecorder(capacity: options.requests)
    var bytes = 0
    var seconds = 0.0
    try await client.withConnection(to: options.url) { connection in
        for _ in 0..<max(1, options.warmup) { _ = try await echoOnce(&connection) }
        let start = monotonicNanos()
        for _ in 0..<options.requests {
            let before = monotonicNanos()
            bytes += try await echoOnce(&connection)
            latencies.record(monotonicNanos() - before)
        }
        seconds = Double(monotonicNanos() - start) / 1e9
    }
    return echoSummary(name: name, options: options, latencies: latencies, bytes: bytes, seconds: seconds)
}

/// Holds the workers until all connections are open, then records the start time.
private final class StartGate: Sendable {
    private struct State {
        var arrived = 0
        var start: UInt64 = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let count: Int
    private let next = Atomic<Int>(0)

    init(count: Int) { self.count = count }

    /// Waits until `count` workers arrived.
    func arrive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume: [CheckedContinuation<Void, Never>] = state.withLock { state in
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived == count else { return [] }
                state.start = monotonicNanos()
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in resume { waiter.resume() }
        }
    }

    /// When the last worker arrived.
    var start: UInt64 { state.withLock { $0.start } }
    /// The next round-trip number.
    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}

private func echoConcurrent(_ client: some EchoClient, name: String, options: BenchOptions) async throws -> BenchResult {
    let gate = StartGate(count: options.concurrency)
    let total = options.requests
    let url = options.url
    let (latencies, bytes) = try await withThrowingTaskGroup(of: (LatencyRecorder, Int).self) { group in
        for _ in 0..<options.concurrency {
            group.addTask {
                var local = LatencyRecorder(capacity: total / options.concurrency + 1)
                var bytes = 0
                try await client.withConnection(to: url) { connection in
                    _ = try await echoOnce(&connection)
                    await gate.arrive()
                    while gate.take() < total {
                        let before = monotonicNanos()
                        bytes += try await echoOnce(&connection)
                        local.record(monotonicNanos() - before)
                    }
                }
                return (local, bytes)
            }
        }
        return try await mergeWorkers(&group, capacity: total)
    }
    let seconds = Double(monotonicNanos() - gate.start) / 1e9
    return echoSummary(name: name, options: options, latencies: latencies, bytes: bytes, seconds: seconds)
}

private func echoSummary(name: String, options: BenchOptions, latencies: LatencyRecorder, bytes: Int, seconds: Double) -> BenchResult {
    var result = BenchResult(client: name, workload: options.workload, requests: options.requests, bytes: bytes, seconds: seconds)
    result.rps = Double(options.requests) / seconds
    let percentiles = latencies.percentilesMicros([50, 99])
    if percentiles.count == 2 {
        result.p50Micros = percentiles[0]
        result.p99Micros = percentiles[1]
    }
    return result
}

private func echoFail(_ status: Int32, _ message: String) -> Never {
    var bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress!, $0.count) }
    exit(status)
}
