// TimeoutLimit: one rule for turning URLSession's `TimeInterval` timeouts into the transport's
// limits, so no value a user can set traps (`Int64(.infinity * 1000)` used to).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

/// A URLSession-style timeout setting converted for the transport.
///
/// | value | meaning |
/// |---|---|
/// | `.infinity`, or more than `Int64.max` nanoseconds (about 292 years) | no limit (`nil`) |
/// | any other positive value, however small | that limit, rounded up to whole nanoseconds |
/// | `0`, negative, `-.infinity` or NaN | invalid: the request fails before connecting with `URLError.timedOut` |
///
/// Apple documents none of the invalid values, and its behaviour cannot be observed from Linux,
/// so Lariat does not imitate a guess: it fails the request at once, with a `TransportError`
/// under the `URLError` naming the setting and its value. A zero budget is read literally:
/// the time is already up.
enum TimeoutLimit {
    /// The longest representable limit, in seconds: `Int64.max` nanoseconds.
    static let longestSeconds: TimeInterval = 9_223_372_036

    /// The transport's limit for `seconds`.
    ///
    /// - Parameters:
    ///   - seconds: The setting's value.
    ///   - setting: Its name, for the error (`"timeoutIntervalForRequest"`).
    ///   - url: The request's URL, for the error.
    /// - Returns: The limit, or `nil` for none.
    /// - Throws: `AFError.sessionTaskFailed` with `URLError.timedOut` for zero, negative or NaN.
    static func duration(_ seconds: TimeInterval, setting: String, url: URL?) throws -> Duration? {
        switch classify(seconds) {
        case .unlimited: return nil
        case .limit(let duration): return duration
        case .invalid:
            let error = TransportError(.timedOut, "\(setting) is \(seconds): a timeout must be a positive number of seconds, or .infinity for none")
            throw AFError.sessionTaskFailed(error: URLError.lariat(.timedOut, underlying: error, url: url))
        }
    }

    /// What a value means, without the error (for table tests).
    enum Meaning: Equatable {
        /// No limit.
        case unlimited
        /// This limit.
        case limit(Duration)
        /// Zero, negative or NaN.
        case invalid
    }

    /// Classifies `seconds` by the table above.
    ///
    /// - Parameter seconds: A `TimeInterval`.
    /// - Returns: Its meaning.
    static func classify(_ seconds: TimeInterval) -> Meaning {
        guard !seconds.isNaN, seconds > 0 else { return .invalid }
        guard seconds < longestSeconds else { return .unlimited }
        let whole = seconds.rounded(.down)
        // Whole seconds and the fraction separately: `seconds * 1e9` loses nanoseconds to rounding
        // for large values. The fraction rounds up so a tiny positive value is never zero.
        let nanoseconds = Int64(((seconds - whole) * 1_000_000_000).rounded(.up))
        return .limit(.seconds(Int64(whole)) + .nanoseconds(nanoseconds))
    }
}
