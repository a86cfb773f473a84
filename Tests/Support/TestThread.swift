// TestThread: a joinable pthread for the blocking test servers (Glibc only, no Dispatch).
import Glibc

/// A started POSIX thread running one closure; join it exactly once.
package struct TestThread: Sendable {
    let handle: pthread_t

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread; traps if the system cannot create one.
    package static func start(_ body: @escaping @Sendable () -> Void) -> TestThread {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        return TestThread(handle: handle)
    }

    /// Waits for the thread to end.
    package func join() {
        _ = pthread_join(handle, nil)
    }
}
