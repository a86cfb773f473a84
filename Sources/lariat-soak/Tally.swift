// Tally: every request the soak issues and how it ended, plus the watchdog that bounds every wait.
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
import Glibc
import Synchronization

/// How a request must end for the soak to pass.
enum Expectation: Sendable {
    /// A 2xx response with exactly this many body bytes (nginx, no fault).
    case body(Int)
    /// An `AFError` of any kind (a fault from the fault server or a TLS failure).
    case error
    /// A complete response or `AFError.explicitlyCancelled` (a cancel at a random point).
    case bodyOrCancelled(Int)
}

/// Counts issued and ended requests, outcomes by kind, and violated expectations.
final class Tally: Sendable {
    /// Counts and the first violations, under one lock.
    private struct State {
        var issued = 0
        var ended = 0
        var outcomes: [String: Int] = [:]
        var violations = 0
        var firstViolations: [String] = []
    }

    private let state = Mutex(State())

    /// Records a request about to be issued.
    func issue() { state.withLock { $0.issued += 1 } }

    /// Records how a request ended and checks it against `expectation`.
    func end(_ result: Result<Int, AFError>, status: Int?, expected expectation: Expectation, label: String) {
        let kind = Self.kind(of: result)
        let violation: String? = switch (expectation, result) {
        case (.body(let size), .success(let count)), (.bodyOrCancelled(let size), .success(let count)):
            (status.map { (200..<300).contains($0) } ?? false) && count == size
                ? nil : "\(label): status \(status ?? -1), \(count) bytes, wanted \(size)"
        case (.body, .failure(let error)):
            "\(label): \(error)"
        case (.error, .success(let count)):
            "\(label): succeeded (status \(status ?? -1), \(count) bytes) where a fault was expected"
        case (.error, .failure):
            nil
        case (.bodyOrCancelled, .failure(let error)):
            error.isExplicitlyCancelledError ? nil : "\(label): \(error)"
        }
        state.withLock {
            $0.ended += 1
            $0.outcomes[kind, default: 0] += 1
            if let violation {
                $0.violations += 1
                if $0.firstViolations.count < 20 { $0.firstViolations.append(violation) }
            }
        }
    }

    /// Issued and ended so far.
    var progress: (issued: Int, ended: Int) { state.withLock { ($0.issued, $0.ended) } }
    /// Outcome counts by kind (`ok`, `cancelled`, `sessionTaskFailed/timed out`, …).
    var outcomes: [String: Int] { state.withLock { $0.outcomes } }
    /// The number of violated expectations and the first few of them.
    var violations: (count: Int, first: [String]) { state.withLock { ($0.violations, $0.firstViolations) } }

    /// A short, stable name for an outcome: `ok`, `cancelled`, or the AFError case with the
    /// transport's failure kind (`sessionTaskFailed/connection lost`).
    static func kind(of result: Result<Int, AFError>) -> String {
        guard case .failure(let error) = result else { return "ok" }
        if error.isExplicitlyCancelledError { return "cancelled" }
        let name = String(describing: error).prefix { $0 != "(" && $0 != ":" }
        if case .sessionTaskFailed(let underlying) = error, let urlError = underlying as? URLError {
            if let transport = urlError.underlyingError as? TransportError {
                return "sessionTaskFailed/\(transport.kind)"
            }
            return "sessionTaskFailed/URLError \(urlError.code.rawValue)"
        }
        if case .serverTrustEvaluationFailed = error { return "serverTrustEvaluationFailed" }
        return String(name)
    }
}

/// A thread that ends the process (exit 2) if requests are outstanding and none has ended for
/// `limit`: the bound on every wait in the soak. Runs until ``stop()``.
final class Watchdog: Sendable {
    private let tally: Tally
    private let limit: Int
    private let stopping = Atomic<Bool>(false)
    private let handle = Mutex<pthread_t?>(nil)

    /// Starts watching `tally`; `limitSeconds` without progress is a hang.
    init(tally: Tally, limitSeconds: Int) {
        self.tally = tally
        self.limit = limitSeconds
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self)
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<Watchdog>.fromOpaque(raw!).takeRetainedValue().watch()
            return nil
        }, box.toOpaque())
        if created == 0 { handle.withLock { $0 = thread } } else { box.release() }
    }

    /// Stops and joins the thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        if let thread = handle.withLock({ value -> pthread_t? in defer { value = nil }; return value }) {
            pthread_join(thread, nil)
        }
    }

    /// The loop: every 100 ms, compares the ended count with the last one seen.
    private func watch() {
        var lastEnded = -1
        var stuckFor = 0
        while !stopping.load(ordering: .acquiring) {
            usleep(100_000)
            let (issued, ended) = tally.progress
            if issued == ended || ended != lastEnded {
                lastEnded = ended
                stuckFor = 0
                continue
            }
            stuckFor += 1
            if stuckFor >= limit * 10 {
                print("FAIL hang: \(issued - ended) of \(issued) requests have not ended, none ended for \(limit) s")
                fflush(nil)
                exit(2)
            }
        }
    }
}
