// LoopThread: a joinable pthread running one closure (the loop body, or a resolver worker).
internal import CLinux
internal import Glibc

/// A started POSIX thread that can be joined once.
struct LoopThread: Sendable {
    /// The thread's `pthread_t` (an integer on Linux).
    let handle: pthread_t

    /// Boxes the closure so it can cross `pthread_create`'s `void *` argument.
    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a thread named `name` (truncated to the kernel's 15 bytes) running `body`.
    ///
    /// Traps if the system cannot create a thread: nothing could run without one.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> LoopThread {
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            _ = lariat_set_thread_name(box.name)
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        return LoopThread(handle: handle)
    }

    /// Waits for the thread to finish. Call at most once, never from the thread itself.
    func join() {
        let result = pthread_join(handle, nil)
        precondition(result == 0, "pthread_join failed: \(result)")
    }

    /// Lets the thread's resources go when it exits, without joining.
    func detach() {
        _ = pthread_detach(handle)
    }

    /// The calling thread's `pthread_t` as an integer.
    static var currentHandle: UInt { UInt(pthread_self()) }
}
