// Blocking work (waiting for a child process, reading its pipes) run off Swift's cooperative
// thread pool. Swift Testing runs tests on that pool, which has one thread per core: on CI's
// 2-core machine two tests blocked in `waitUntilExit()` stall every async test. CI saw it: while
// the 8 `--libcurl` compiles (77 s, one thread) and the serialized fetch suites (the other) held
// both threads, every async test waited about 70 s, and LariatTransport's cancellation tests
// cancelled after their request's 60 s timeout had already ended it.

import Dispatch

/// Runs `body` on a Dispatch worker thread (not the cooperative pool) and returns its result.
///
/// Record expectations after it returns, in the test's own context: `body` runs outside the task.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// A value handed to ``offPool(_:)`` that is not `Sendable` (a `Process`, its `Pipe`).
///
/// `@unchecked Sendable`: the caller gives the value to the off-pool closure and touches it
/// again only after awaiting that closure, so it is never used from two threads at once.
public struct HandedOff<Value>: @unchecked Sendable {
    /// The value.
    public let value: Value
    /// Wraps `value` for one hand-off.
    public init(_ value: Value) { self.value = value }
}
