// curl's retry options on Client's RequestRetrier (curl 7.88, tool_operate.c):
//   --retry N               retry a transient failure up to N times: a timeout (28) or an
//                           unresolvable host (6), and a response of 408, 429, 500, 502, 503
//                           or 504 (with or without -f);
//   --retry-connrefused     connection refused (7) is transient too;
//   --retry-all-errors      every failure is (a -f status included);
//   --retry-delay S         wait S seconds between attempts; without it (or with 0) the wait
//                           is 1 s, doubling after each retry, at most 10 min;
//   --retry-max-time S      no retry starts once S seconds have passed since the first attempt.
// A retried status's `Retry-After` (delay-seconds; curl also reads an HTTP-date, fetch does not)
// replaces a shorter wait; when it would pass --retry-max-time there is no retry. Each retry prints curl's warning on standard error
// (hidden by -s), after the failed attempt's own error line:
//   Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left.
// A retried attempt's response body is not written (curl writes it to standard output before
// deciding; for -o files it truncates them, as fetch never writes them in the first place).
import Client
import FoundationEssentials
#if FullFoundation
import Foundation
#endif
import Synchronization

/// The retry options of a run.
struct FetchRetryOptions: Sendable, Equatable {
    /// `--retry`: retries allowed per URL; 0 turns retrying off.
    var count = 0
    /// `--retry-delay` in seconds; `nil` or 0 for curl's doubling backoff.
    var delay: Double?
    /// `--retry-max-time` in seconds; `nil` or 0 for no limit.
    var maxTime: Double?
    /// `--retry-connrefused`.
    var connectionRefused = false
    /// `--retry-all-errors`.
    var allErrors = false

    /// curl's transient HTTP statuses.
    static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
}

/// One URL's retry decisions, as curl makes them. A class because the backoff grows across
/// attempts; the mutable part sits in a Mutex.
final class FetchRetrier: RequestRetrier {
    /// Why an attempt is retried, spelled as curl's warning spells it.
    enum Reason: String, Equatable {
        case allErrors = " (retrying all errors)"
        case timeout = " : timeout"
        case connectionRefused = " : connection refused"
        case http = " : HTTP error"
    }

    private let options: FetchRetryOptions
    private let failMode: FetchOptions.FailMode
    private let showsErrors: Bool
    private let showsWarnings: Bool
    private let url: String
    /// The next wait in milliseconds, and when the first attempt started.
    private let state: Mutex<(sleep: Int, start: ContinuousClock.Instant)>

    /// A retrier for one URL's transfer.
    ///
    /// - Parameters:
    ///   - options: The run's `--retry*` options.
    ///   - failMode: `-f`/`--fail-with-body`, which make a status of 400 and above an error.
    ///   - showsErrors: Whether each failed attempt's `fetch: (N) …` line is printed (not `-s` alone).
    ///   - showsWarnings: Whether the `Warning: ` lines are printed (not `-s`).
    ///   - url: The URL, for error messages.
    init(options: FetchRetryOptions, failMode: FetchOptions.FailMode, showsErrors: Bool, showsWarnings: Bool, url: String) {
        self.options = options
        self.failMode = failMode
        self.showsErrors = showsErrors
        self.showsWarnings = showsWarnings
        self.url = url
        let initial = options.delay.map { $0 > 0 ? Int($0 * 1000) : 1000 } ?? 1000
        state = Mutex((initial, .now))
    }

    /// The validator that turns curl's retryable statuses into failures so the retrier sees
    /// them (and, with -f and --retry-all-errors, every status of 400 and above).
    func isRetryableStatus(_ code: Int) -> Bool {
        FetchRetryOptions.transientStatusCodes.contains(code) || (options.allErrors && failMode != .never && code >= 400)
    }

    /// curl's classification of a failed attempt.
    static func reason(for error: AFError, options: FetchRetryOptions) -> Reason? {
        if case .responseValidationFailed(reason: .unacceptableStatusCode(let code)) = error {
            return FetchRetryOptions.transientStatusCodes.contains(code) ? .http : options.allErrors ? .allErrors : nil
        }
        if case .sessionTaskFailed(let underlying) = error, let code = (underlying as? URLError)?.code {
            switch code {
            case .timedOut, .cannotFindHost, .dnsLookupFailed: return .timeout
            case .cannotConnectToHost where options.connectionRefused: return .connectionRefused
            default: break
            }
        }
        if case .explicitlyCancelled = error { return nil }
        return options.allErrors ? .allErrors : nil
    }

    /// curl's decision for a failed attempt: a transient failure with retries left and time
    /// remaining is retried after the current backoff (or a longer `Retry-After`), with the
    /// attempt's error line and curl's warning printed first.
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        let left = options.count - request.retryCount
        guard left > 0, let afError = error.asAFError, let reason = Self.reason(for: afError, options: options) else {
            return completion(.doNotRetry)
        }
        var sleep = state.withLock { $0.sleep }
        let elapsed = state.withLock { ContinuousClock.now - $0.start }
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if let maxTime = options.maxTime, maxTime > 0, elapsedSeconds >= maxTime { return completion(.doNotRetry) }
        // libcurl keeps any response's Retry-After; the tool uses it for an HTTP retry.
        if reason == .http, let text = request.response?.headers.value(for: "Retry-After"),
            let seconds = Int(text.filter { $0 != " " }), seconds > 0
        {
            if seconds * 1000 > sleep { sleep = seconds * 1000 }
            if let maxTime = options.maxTime, maxTime > 0, elapsedSeconds + Double(seconds) > maxTime {
                if showsWarnings {
                    warn("The Retry-After: time would make this command line exceed the maximum allowed time for retries.")
                }
                return completion(.doNotRetry)
            }
        }
        // The failed attempt's own line first (curl reports every attempt's error), then the warning.
        if reason != .http || failMode != .never, showsErrors {
            let status: Int32 = if case .responseValidationFailed(reason: .unacceptableStatusCode(let code)) = afError {
                code >= 400 && failMode != .never ? 22 : 0
            } else {
                TransferErrors.exitStatus(for: afError, certificateStatusRequired: false)
            }
            if status == 22, let code = request.response?.statusCode {
                printError("fetch: (22) The requested URL returned error: \(code)")
            } else if status != 0 {
                printError("fetch: (\(status)) \(TransferErrors.message(for: afError, status: status, url: url))")
            }
        }
        if showsWarnings { warn("Problem\(reason.rawValue). Will retry in \(sleep / 1000) seconds. \(left) retries left.") }
        state.withLock { state in
            // curl doubles only its own backoff, never an explicit --retry-delay.
            if (options.delay ?? 0) <= 0 { state.sleep = min(state.sleep * 2, 600_000) }
        }
        completion(.retryWithDelay(TimeInterval(sleep) / 1000))
    }

    /// curl's `Warning: ` lines: the message wrapped at 79 columns on spaces, every line prefixed.
    static func warningLines(_ message: String) -> [String] {
        let prefix = "Warning: "
        let width = 79 - prefix.count
        var rest = Array(message)
        var lines: [String] = []
        // curl measures the line with its newline, so a message of exactly `width` wraps too.
        while rest.count + 1 > width {
            var cut = width - 1
            while cut > 0 && rest[cut] != " " { cut -= 1 }
            if cut == 0 { cut = width - 1 }
            lines.append(prefix + String(rest[...cut]))
            rest.removeFirst(cut + 1)
        }
        lines.append(prefix + String(rest))
        return lines
    }

    private func warn(_ message: String) {
        Self.warningLines(message).forEach(printError)
    }
}
