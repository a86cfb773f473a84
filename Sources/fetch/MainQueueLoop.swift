// fetch's main thread: it runs the main queue (and so the main actor) itself until the run calls
// `exit`, instead of handing the queue to `dispatch_main()`.
//
// Why: an `async` `main` ends its synchronous part in `dispatch_main()`, which ends the main thread
// with `pthread_exit`. glibc's `pthread_exit` is a forced unwind through the thread's frames, and
// that unwind needs `.eh_frame`: the container build (scripts/build-container-fetch.sh) drops
// those tables (2.3 MB), and with them an `async` `main` ended every run in SIGSEGV. With this
// loop no thread of fetch ever unwinds: every path ends in `exit`.
//
// The loop is libdispatch's own foreign-run-loop hook, the one CoreFoundation's run loop uses:
// wait until the main queue's eventfd is readable, then let libdispatch run what is queued.
// Nothing changes for the code that runs: `Fetch.run()` is still `@MainActor`, and a handler
// Client calls on `DispatchQueue.main` (its default queue) still runs, on the main thread.

import CDispatchMain
#if canImport(Glibc)
import Glibc
#endif

enum MainQueueLoop {
    /// Starts `body` on the main actor and runs the main queue on this thread, forever: `body`
    /// ends the process (`exit`). Call once, from the synchronous `main`, on the main thread.
    static func run(_ body: @escaping @MainActor @Sendable () async -> Never) -> Never {
        // The handle first: libdispatch binds it on first use, and the main queue's wake-ups
        // (the Task's first job among them) write to it from then on.
        let wakeUp = _dispatch_get_main_queue_handle_4CF()
        Task { @MainActor in await body() }
        var descriptor = pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0)
        while true {
            // EINTR (a signal fetch handles elsewhere) only means: wait again.
            guard poll(&descriptor, 1, -1) > 0 else { continue }
            // Consume the wake-up before draining: work queued during the drain writes again.
            var count: UInt64 = 0
            _ = read(wakeUp, &count, MemoryLayout<UInt64>.size)
            _dispatch_main_queue_callback_4CF(nil)
        }
    }
}
