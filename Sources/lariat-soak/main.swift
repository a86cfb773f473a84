// lariat-soak: many requests and faults through `Session` in one process, then the checks of
// issue 14's soak (scripts/soak.sh runs it against scripts/nginx.sh):
//
//   - every request ended with a response or a typed `AFError` (issued == ended; a watchdog ends
//     the process if none ends for 30 s while some are outstanding), and each ended as expected
//     (nginx: the whole body; fault: an error; random cancel: the body or `explicitlyCancelled`);
//   - file descriptors (`/proc/self/fd`) back to their count after warm-up;
//   - RSS (`/proc/self/statm`) less than 1 MiB above its value after warm-up;
//   - threads (`/proc/self/task`) back to at most their count after warm-up.
//
// Usage: lariat-soak --http URL --https URL --cacert FILE [--keep-alive N] [--new-connections M]
//        [--tls K] [--fault-every F] [--concurrency C] [--batch B]
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
import Glibc

/// The command line.
struct Options {
    /// nginx's base URLs (`--http`, `--https`) and the CA it is signed by (`--cacert`).
    var http = "", https = "", cacert = ""
    /// Requests per phase (`--keep-alive`, `--new-connections`, `--tls`); the defaults are the CI size.
    var keepAlive = 8_000, newConnections = 1_500, tls = 250
    /// Every `faultEvery`-th request is a fault (0: none); `concurrency` requests run at once;
    /// new-connection and TLS phases use a new session every `batch` requests.
    var faultEvery = 25, concurrency = 8, batch = 500

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String]) throws(SoakError) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw SoakError("\(flag) needs a value") }
            let number = Int(value)
            switch (flag, number) {
            case ("--http", _): http = value
            case ("--https", _): https = value
            case ("--cacert", _): cacert = value
            case ("--keep-alive", let n?): keepAlive = n
            case ("--new-connections", let n?): newConnections = n
            case ("--tls", let n?): tls = n
            case ("--fault-every", let n?): faultEvery = n
            case ("--concurrency", let n?): concurrency = n
            case ("--batch", let n?): batch = max(1, n)
            default: throw SoakError("unknown option or bad value: \(flag) \(value)")
            }
        }
        if http.isEmpty || https.isEmpty || cacert.isEmpty { throw SoakError("--http, --https and --cacert are required") }
    }
}

/// Runs one phase of `count` requests of `kind` in batches of `options.batch`: a new session every
/// batch for new connections and TLS, one session throughout for keep-alive. Unless `quiet`, prints
/// RSS after every fifth of the phase (the trend shows a leak apart from allocator noise) and the
/// phase's time.
func runPhase(_ kind: PhaseKind, count: Int, options: Options, targets: Targets, tally: Tally, quiet: Bool) async {
    let start = ContinuousClock.now
    let before = tally.outcomes
    let configuration = URLSessionConfiguration.af.default
    configuration.httpMaximumConnectionsPerHost = options.concurrency
    configuration.timeoutIntervalForRequest = 10
    configuration.urlCache = nil  // every request must reach nginx: nginx's files have validators
    var tlsConfiguration = TLSConfiguration()
    tlsConfiguration.trustRoots = .file(options.cacert)
    tlsConfiguration.sessionResumption = false
    let makeSession = { Session(configuration: configuration, tlsConfiguration: tlsConfiguration) }
    var session = makeSession()
    let faultEvery = options.faultEvery
    var first = 0
    var reported = 0
    while first < count {
        let end = min(count, first + options.batch)
        if kind != .keepAlive && first > 0 { session = makeSession() }
        await runRequests(first..<end, session: session, concurrency: options.concurrency, tally: tally) { index in
            Planned.make(index: index, kind: kind, targets: targets, faultEvery: faultEvery)
        }
        first = end
        if !quiet && first * 5 / count > reported {
            reported = first * 5 / count
            print("  \(kind.rawValue) \(first): rss=\(settledSnapshot().residentBytes / 1024)KiB")
        }
    }
    if quiet { return }
    let elapsed = start.duration(to: .now).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    let errors = tally.outcomes.filter { $0.key != "ok" }.reduce(0) { $0 + $1.value } -
        before.filter { $0.key != "ok" }.reduce(0) { $0 + $1.value }
    print("phase \(kind.rawValue): \(count) requests in \(Double(Int(seconds * 10)) / 10) s " +
          "(\(Int(Double(count) / max(seconds, 0.001))) req/s), \(errors) ended in errors")
}

/// The soak: warm-up, baseline, phases, checks. Returns the process's exit status.
func soak() async -> Int32 {
    let options: Options
    do { options = try Options(Array(CommandLine.arguments.dropFirst())) } catch {
        print("lariat-soak: \(error)")
        return 64
    }
    let initial = Snapshot.take()
    let faultServer: FaultServer
    do { faultServer = try FaultServer() } catch {
        print("lariat-soak: \(error)")
        return 1
    }
    let targets = Targets(http: options.http, https: options.https,
                          fault: "http://127.0.0.1:\(faultServer.port)", faultTLS: "https://127.0.0.1:\(faultServer.port)")
    let tally = Tally()
    let watchdog = Watchdog(tally: tally, limitSeconds: 30)
    print("start: \(initial)")

    // Warm-up: a tenth of each phase (at least a few batches), so the shared event loops, the TLS
    // context, dispatch's threads and the allocator's arenas exist before the baseline.
    let warmUp = ContinuousClock.now
    await runPhase(.keepAlive, count: max(2_000, options.keepAlive / 10), options: options, targets: targets, tally: tally, quiet: true)
    await runPhase(.newConnection, count: max(1_000, options.newConnections / 10), options: options, targets: targets, tally: tally, quiet: true)
    await runPhase(.tls, count: max(100, options.tls / 10), options: options, targets: targets, tally: tally, quiet: true)
    try? await Task.sleep(for: .seconds(1))
    let baseline = settledSnapshot()
    let warmUpRequests = tally.progress.ended
    print("after warm-up (\(warmUpRequests) requests, \(warmUp.duration(to: .now))): \(baseline)")

    let start = ContinuousClock.now
    await runPhase(.keepAlive, count: options.keepAlive, options: options, targets: targets, tally: tally, quiet: false)
    await runPhase(.newConnection, count: options.newConnections, options: options, targets: targets, tally: tally, quiet: false)
    await runPhase(.tls, count: options.tls, options: options, targets: targets, tally: tally, quiet: false)
    let elapsed = start.duration(to: .now)

    // Sessions are gone; their idle connections close on the loops, and dispatch's idle worker
    // threads exit after a few seconds. Wait (bounded) for both.
    let settled = await eventually(within: .seconds(20)) {
        let now = Snapshot.take()
        return now.descriptors <= baseline.descriptors && now.threads <= baseline.threads
    }
    let final = settledSnapshot()
    let (issued, ended) = tally.progress
    var failures: [String] = []
    if issued != ended { failures.append("issued \(issued) != ended \(ended)") }
    if final.descriptors != baseline.descriptors {
        failures.append("descriptors \(final.descriptors), \(baseline.descriptors) after warm-up")
    }
    let growth = final.residentBytes - baseline.residentBytes
    if growth >= 1 << 20 { failures.append("RSS grew \(growth / 1024) KiB (limit 1024 KiB)") }
    if final.threads > baseline.threads { failures.append("threads \(final.threads), \(baseline.threads) after warm-up") }
    let violations = tally.violations
    if violations.count > 0 {
        failures.append("\(violations.count) requests did not end as expected; first: " + violations.first.joined(separator: "; "))
    }
    watchdog.stop()
    faultServer.stop()

    print("end (settled: \(settled)): \(final); RSS growth \(growth / 1024) KiB")
    print("measured: \(issued - warmUpRequests) requests in \(elapsed), issued \(issued) ended \(ended) (warm-up included)")
    print("outcomes (warm-up included):")
    for (kind, count) in tally.outcomes.sorted(by: { $0.value > $1.value }) { print("  \(count)\t\(kind)") }
    if failures.isEmpty {
        print("PASS")
        return 0
    }
    for failure in failures { print("FAIL \(failure)") }
    return 1
}

exit(await soak())
