// Client's own Progress, compiled only without the FullFoundation trait (Foundation's is used
// otherwise). It covers what Alamofire's progress handlers read: unit counts, the completed
// fraction, and whether the work finished or was cancelled.
#if !FullFoundation
import Synchronization

/// Thread-safe progress of one piece of work, counted in units (bytes, for Lariat's requests).
///
/// A stand-in for Foundation's `Progress` in builds without full Foundation. It has no parent or
/// child progress trees, no KVO and no localized descriptions. All members may be used from any thread.
public final class Progress: Sendable {
    private struct Counts {
        var total: Int64
        var completed: Int64 = 0
        var cancelled = false
    }

    private let counts: Mutex<Counts>

    /// Creates a progress for a known or unknown amount of work.
    ///
    /// - Parameter totalUnitCount: The total; a negative value (the default, `-1`) means unknown.
    public init(totalUnitCount: Int64 = -1) {
        counts = Mutex(Counts(total: totalUnitCount))
    }

    /// Creates a progress with a total, like Foundation's factory of the same name.
    ///
    /// - Parameter totalUnitCount: The total number of units.
    /// - Returns: A new progress.
    public static func discreteProgress(totalUnitCount: Int64) -> Progress {
        Progress(totalUnitCount: totalUnitCount)
    }

    /// The total number of units; negative when unknown.
    public var totalUnitCount: Int64 {
        get { counts.withLock { $0.total } }
        set { counts.withLock { $0.total = newValue } }
    }

    /// The number of units done so far.
    public var completedUnitCount: Int64 {
        get { counts.withLock { $0.completed } }
        set { counts.withLock { $0.completed = newValue } }
    }

    /// `completedUnitCount / totalUnitCount`, clamped to 0...1; 0 while the total is unknown or zero
    /// and nothing is known to be complete.
    public var fractionCompleted: Double {
        counts.withLock { counts in
            guard counts.total > 0 else { return 0 }
            let fraction = Double(counts.completed) / Double(counts.total)
            return Swift.min(Swift.max(fraction, 0), 1)
        }
    }

    /// Whether the total is unknown (negative) or nothing has been counted at all.
    public var isIndeterminate: Bool {
        counts.withLock { $0.total < 0 || ($0.total == 0 && $0.completed == 0) }
    }

    /// Whether the work is done: the total is known and the completed count has reached it.
    public var isFinished: Bool {
        counts.withLock { $0.total >= 0 && $0.completed >= $0.total && !($0.total == 0 && $0.completed == 0) }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        counts.withLock { $0.cancelled }
    }

    /// Marks the work as cancelled. Counts are left as they are.
    public func cancel() {
        counts.withLock { $0.cancelled = true }
    }
}

extension Progress: CustomStringConvertible {
    /// `completed/total (percent)`.
    public var description: String {
        "Progress(\(completedUnitCount)/\(totalUnitCount), \(Int(fractionCompleted * 100))%)"
    }
}
#endif
