// Blocking work (waiting for a child process, reading its pipes) run off Swift's cooperative
// thread pool. Swift Testing runs tests on that pool, which has one thread per core: on CI's
// 2-core machine two tests blocked in `waitUntilExit()` stall every async test. CI saw it: while
// the 8 `--libcurl` compiles (77 s, one thread) and the serialized fetch suites (the other) held
// both threads, every async test waited about 70 s, and LariatTransport's cancellation tests
// cancelled after their request's 60 s timeout had already ended it.
//
// The work runs on a Dispatch worker with the thread's signal mask cleared for its duration.
// libdispatch blocks every asynchronous signal on its workers (SIGTERM, SIGINT, SIGHUP, SIGABRT,
// SIGCHLD…), and a child started by `posix_spawn` or `fork` (Foundation's `Process`) inherits
// the mask of the thread that started it: a server started here ignored `terminate()`'s SIGTERM
// and was left running (EventLoopTests.OffPoolSignalMaskTests). The worker's own mask is put
// back before it returns to libdispatch.

import Dispatch
import Glibc

/// Runs `body` on a Dispatch worker thread (not the cooperative pool), with no signal blocked,
/// and returns its result. Child processes it starts begin with an empty signal mask.
///
/// Record expectations after it returns, in the test's own context: `body` runs outside the task.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try withCleanSignalMask(body) })
        }
    }
}

/// Runs `body` with the calling thread's signal mask empty, then restores the mask.
func withCleanSignalMask<T>(_ body: () throws -> T) rethrows -> T {
    var none = sigset_t(), saved = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try body()
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
