// Deadline: a point on CLOCK_MONOTONIC in nanoseconds, so wall-clock changes never move timers.
internal import CLinux
internal import Glibc

/// A point in time on the monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds.
///
/// Unaffected by wall-clock changes. Arithmetic saturates instead of overflowing, so
/// `Deadline.now() + .seconds(Int64.max)` is simply ``distantFuture``.
public struct Deadline: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary, fixed point (boot, on Linux).
    public let uptimeNanoseconds: Int64

    /// Creates a deadline from a raw monotonic nanosecond count.
    ///
    /// - Parameter uptimeNanoseconds: Nanoseconds on `CLOCK_MONOTONIC`.
    public init(uptimeNanoseconds: Int64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The current time.
    ///
    /// - Returns: `clock_gettime(CLOCK_MONOTONIC)` as a deadline (a vDSO call, no syscall).
    public static func now() -> Deadline {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Deadline(uptimeNanoseconds: Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec))
    }

    /// A deadline later than any reachable time.
    public static let distantFuture = Deadline(uptimeNanoseconds: .max)

    /// A deadline earlier than any reachable time.
    public static let distantPast = Deadline(uptimeNanoseconds: 0)

    /// The deadline `duration` after `deadline`, saturating at ``distantFuture`` / ``distantPast``.
    ///
    /// - Parameters:
    ///   - deadline: The starting point.
    ///   - duration: How far to move; may be negative.
    /// - Returns: The moved deadline.
    public static func + (deadline: Deadline, duration: Duration) -> Deadline {
        let (sum, overflow) = deadline.uptimeNanoseconds.addingReportingOverflow(duration.saturatingNanoseconds)
        if overflow { return duration > .zero ? .distantFuture : .distantPast }
        return Deadline(uptimeNanoseconds: max(sum, 0))
    }

    /// The time from `rhs` to `lhs` (negative if `lhs` is earlier).
    ///
    /// - Parameters:
    ///   - lhs: The later point.
    ///   - rhs: The earlier point.
    /// - Returns: The difference as a `Duration`.
    public static func - (lhs: Deadline, rhs: Deadline) -> Duration {
        let (difference, overflow) = lhs.uptimeNanoseconds.subtractingReportingOverflow(rhs.uptimeNanoseconds)
        if overflow { return lhs > rhs ? .nanoseconds(Int64.max) : .nanoseconds(Int64.min) }
        return .nanoseconds(difference)
    }

    /// Orders deadlines by time.
    ///
    /// - Parameters:
    ///   - lhs: A deadline.
    ///   - rhs: Another deadline.
    /// - Returns: `true` if `lhs` comes first.
    public static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// The raw nanosecond count, for logs.
    public var description: String { "Deadline(\(uptimeNanoseconds)ns)" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds > 0 ? .max : .min }
        return total
    }
}
