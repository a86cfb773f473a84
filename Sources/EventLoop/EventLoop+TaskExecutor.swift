// EventLoop as a Swift TaskExecutor: a task that prefers a loop runs its code on the loop thread.
//
// Design
// - Path of a job: `enqueue` from the loop thread appends to the loop-local queue (no lock, no
//   syscall, no allocation: the queue stores `LocalWork.job`, not a closure). From any other
//   thread it goes through the remote queue, which writes the eventfd only when no wake-up is
//   already pending, so a burst of jobs from one thread costs one wake-up.
// - When it runs: like `execute`, on the next pass of the loop after the current one's socket
//   events, in FIFO order per enqueuing thread. A task that awaits something completed by a
//   socket callback on the same loop is resumed on the loop with no other thread involved.
// - Priorities are ignored: the loop has one FIFO; a job's `priority` changes nothing. A loop
//   is for short non-blocking work, so there is nothing to reorder for.
// - Shutdown: a job is a suspended Swift task; dropping it would leave whoever awaits that task
//   waiting forever. Jobs enqueued after the loop stopped, and jobs still queued locally when the
//   loop tears down, are handed to Swift's global concurrent executor instead: the task keeps
//   running, off the loop (`inEventLoop` is then false in it), and each later hop of that task
//   takes the same path. Closure tasks (`execute`) are still discarded after shutdown.
// - Not a SerialExecutor (for now): a SerialExecutor lets an actor use the loop as its
//   isolation domain, which no Lariat type needs, and the two roles share one `enqueue` that
//   could not tell a task-preference job from an actor job. Loop-confined state already has
//   its own checked model (`preconditionInEventLoop`, `LoopBound`). If actors on the loop become
//   useful, a separate small SerialExecutor object per loop can forward to the same queues.

/// An ``EventLoop`` is a Swift `TaskExecutor`: prefer it and a task runs on the loop thread.
///
/// ```swift
/// let loop = EventLoopGroup.shared.next()
/// let status = await withTaskExecutorPreference(loop) {
///     // Runs on the loop thread: `loop.inEventLoop == true` here, and every nonisolated async
///     // function called from here too. A response completed by the loop resumes this code
///     // on the loop, with no hop to another thread.
///     await fetchStatus()
/// }
/// ```
///
/// Code that runs with the preference must not block (no `sleep`, no blocking file or lock
/// waits): it holds up every connection on the loop. Actor-isolated code still runs on its
/// actor's executor, and `@MainActor` code on the main thread; the preference applies to
/// nonisolated code (see SE-0417).
///
/// Jobs run in FIFO order per enqueuing thread; task priorities are ignored. After the loop has
/// stopped (its group shut down), jobs are handed to Swift's global concurrent executor instead
/// of being dropped, so preferring a stopped loop runs the task off the loop rather than hanging it.
extension EventLoop: TaskExecutor {
    /// Runs `job` on this loop thread soon. Any thread; called by the Swift runtime.
    ///
    /// From the loop thread this is an append to the local queue; from another thread it goes
    /// through the locked remote queue and wakes the loop at most once per drain.
    /// - Parameter job: The partial task to run.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if inEventLoop {
            enqueueLocal(job)
            return
        }
        if !enqueueRemote(.job(job)) {
            Self.runElsewhere(job)
        }
    }

    /// This loop as an unowned task executor, for the runtime and `runSynchronously(on:)`.
    ///
    /// - Returns: An unowned reference to `self`.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Hands a job the loop can no longer run to Swift's global concurrent executor.
    ///
    /// - Parameter job: A job enqueued after shutdown, or left in the local queue at teardown.
    static func runElsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
