// EventLoop: one thread, one epoll instance, one timer heap, two task queues.
//
// Design
// - Threads: an EventLoopGroup owns a fixed number of loops (default: online cores), one
//   pthread each. A Socket lives on one loop for life; every callback for it runs there.
// - Triggering: LEVEL-triggered epoll. Consumers read into their own bounded buffers and may
//   stop early (back-pressure, TLS records); with level triggering unread data is simply
//   reported again, so nothing is lost and nobody must drain to EAGAIN. That also saves a
//   syscall per response: a handler that got a short read can return without the extra
//   `read` -> EAGAIN that edge triggering requires. The price is an `epoll_ctl(MOD)` when write
//   interest toggles, which only happens when the kernel send buffer is full.
// - Wake-ups: one eventfd per loop. `execute` from the loop thread appends to a loop-local
//   queue (no lock, no syscall). From other threads it appends under a Mutex and writes the
//   eventfd only if no wake-up is already pending since the loop last drained the queue. The
//   write happens AFTER the lock is released: under it, the woken loop thread (often scheduled
//   at once on the waker's CPU) found the lock held by a preempted waker and spun in
//   `_MutexHandle._lockSlow`, 10% of a keep-alive GET's CPU under perf with one CPU. A waker
//   registers itself (`wakersInFlight`) under the lock, and teardown waits for registered
//   wakers before it closes the eventfd, so a write never hits a closed or reused fd.
// - Timers: an indexed min-heap (TimerHeap.swift) whose earliest deadline sets epoll_wait's
//   timeout, rounded UP to whole milliseconds so the loop never wakes early and spins.
//   Timers therefore fire 0-1 ms late; fine for connect, idle and request deadlines.
//   `rescheduleTimer` moves a pending timer in O(log n) without a new closure allocation.
// - Swift tasks: the loop is also a `TaskExecutor` (EventLoop+TaskExecutor.swift). A job travels
//   the same two queues as a closure task, stored as `LoopWork.job` so it costs no allocation.
// - Iteration order: epoll_wait -> socket events -> remote tasks (if woken) -> due timers ->
//   local tasks. Tasks queued while running go to the next iteration (epoll timeout 0).
// - Ownership: the Selector table holds each open Socket strongly until `close()`; a socket
//   holds its handler until close. Shutdown tells every still-open socket's handler
//   (`socketHungUp(error: .eventLoopShutdown)`), closes the socket, drops timers and closes
//   the epoll fd and eventfd; tasks submitted after that are discarded.
internal import CLinux
internal import Glibc
import Synchronization

/// A single-threaded event loop: runs tasks, timers and socket readiness callbacks on its thread.
///
/// Get one from an ``EventLoopGroup`` (``EventLoopGroup/next()``). ``execute(_:)`` is safe from any
/// thread; everything marked *loop-only* traps when called from another thread.
public final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: the shared state is `remote` (a Mutex) and `loopThread` (an Atomic);
    // every other stored var is confined to the loop thread, checked by `preconditionInEventLoop`.

    /// State shared with other threads, guarded by `remote`.
    private struct RemoteState {
        enum Phase { case running, stopping, stopped }
        var tasks: [RemoteWork] = []
        /// An eventfd write happened since the loop last drained `tasks`.
        var wakeupPending = false
        var phase = Phase.running
    }

    private let remote = Mutex(RemoteState())
    private let loopThread = Atomic<UInt>(0)
    /// Threads between deciding to write the eventfd (under `remote`) and writing it.
    private let wakersInFlight = Atomic<Int>(0)
    let selector = Selector()
    /// A name such as `lariat-loop-0`, for thread names and logs.
    public let name: String

    // Loop-confined state.
    private var localTasks: [LocalWork] = []
    private var runningTasks: [LocalWork] = []
    private var remoteBatch: [RemoteWork] = []
    private var timers = TimerHeap()
    /// Scratch iovecs for `Socket.writev`, so a write never allocates.
    let iovecs: UnsafeMutablePointer<iovec>
    static let iovecCapacity = 64

    init(name: String) {
        self.name = name
        self.iovecs = .allocate(capacity: Self.iovecCapacity)
    }

    deinit {
        iovecs.deallocate()
    }

    // MARK: threads

    /// `true` when called on this loop's thread.
    public var inEventLoop: Bool {
        loopThread.load(ordering: .relaxed) == LoopThread.currentHandle
    }

    /// Traps unless called on this loop's thread.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for the trap message (defaults to the call site).
    ///   - line: The caller's line (defaults to the call site).
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "must be called on event loop \(name)", file: file, line: line)
    }

    // MARK: tasks

    /// Runs `task` on this loop soon, after the current iteration's events. Safe from any thread.
    ///
    /// From the loop thread this is a plain append (no lock, no syscall). From elsewhere it takes
    /// a lock and writes the loop's eventfd only if no wake-up is already pending. Tasks run in
    /// submission order per submitting thread. After the loop has shut down, `task` is discarded.
    /// - Parameter task: The work to run on the loop.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        if inEventLoop {
            localTasks.append(.task(task))
            return
        }
        _ = enqueueRemote(.task(task))
    }

    /// Appends `work` to the remote queue and wakes the loop if needed. Any thread but the loop's.
    ///
    /// - Parameter work: What to run on the loop.
    /// - Returns: `false` if the loop has stopped, so `work` was not queued.
    func enqueueRemote(_ work: RemoteWork) -> Bool {
        let queued = remote.withLock { state -> (queued: Bool, mustWake: Bool) in
            guard state.phase != .stopped else { return (false, false) }
            state.tasks.append(work)
            guard !state.wakeupPending else { return (true, false) }
            state.wakeupPending = true
            wakersInFlight.add(1, ordering: .relaxed)  // visible to teardown through the lock
            return (true, true)
        }
        if queued.mustWake { wakeOutsideLock() }
        return queued.queued
    }

    /// Writes the eventfd for a waker registered under the lock, then deregisters it.
    private func wakeOutsideLock() {
        selector.wake()
        wakersInFlight.subtract(1, ordering: .releasing)
    }

    /// Queues a loop-confined task for the next iteration. Loop-only.
    func executeLocal(_ task: @escaping () -> Void) {
        preconditionInEventLoop()
        localTasks.append(.task(task))
    }

    /// Queues a Swift job for the next iteration: a plain append. Loop-only (unchecked: the
    /// executor's caller already tested ``inEventLoop``).
    func enqueueLocal(_ job: UnownedJob) {
        localTasks.append(.job(job))
    }

    // MARK: timers

    /// Runs `body` on the loop once `deadline` has passed (0-1 ms late). Loop-only.
    ///
    /// Timers with equal deadlines fire in the order they were scheduled. A deadline in the past
    /// fires on the next iteration.
    /// - Parameters:
    ///   - deadline: When to fire, on the monotonic clock.
    ///   - body: The work to run; it runs on the loop thread.
    /// - Returns: An ID for ``cancelTimer(_:)``.
    @discardableResult
    public func scheduleTimer(at deadline: Deadline, _ body: @escaping () -> Void) -> TimerID {
        preconditionInEventLoop()
        return timers.schedule(at: deadline, body)
    }

    /// Runs `body` on the loop after `delay`. Loop-only.
    ///
    /// - Parameters:
    ///   - delay: How long from now; zero or negative fires on the next iteration.
    ///   - body: The work to run; it runs on the loop thread.
    /// - Returns: An ID for ``cancelTimer(_:)``.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ body: @escaping () -> Void) -> TimerID {
        scheduleTimer(at: .now() + delay, body)
    }

    /// Moves a pending timer to a new deadline without re-creating its closure. Loop-only.
    ///
    /// Lets a connection keep one long-lived timer (for example an idle-or-request deadline that
    /// its body interprets from the connection's state) and move it on every request with no
    /// allocation, instead of cancelling and scheduling a new closure each time.
    /// - Parameters:
    ///   - id: The ID returned by ``scheduleTimer(at:_:)``.
    ///   - deadline: The new deadline.
    /// - Returns: `true` if the timer was pending and moved; `false` if it already fired or was
    ///   cancelled (schedule a new one then).
    @discardableResult
    public func rescheduleTimer(_ id: TimerID, at deadline: Deadline) -> Bool {
        preconditionInEventLoop()
        return timers.reschedule(id, at: deadline)
    }

    /// Cancels a pending timer so its body never runs. Loop-only.
    ///
    /// Cancelling a timer that already fired or was cancelled does nothing.
    /// - Parameter id: The ID returned by ``scheduleTimer(at:_:)``.
    public func cancelTimer(_ id: TimerID) {
        preconditionInEventLoop()
        timers.cancel(id)
    }

    // MARK: running (called by EventLoopGroup)

    /// The loop body; returns after ``beginShutdown()`` once the final tasks have run.
    func run() {
        loopThread.store(LoopThread.currentHandle, ordering: .relaxed)
        var stopping = false
        while !stopping {
            let count = selector.wait(timeoutMilliseconds: nextTimeout())
            var woken = false
            for index in 0..<count {
                switch selector.event(at: index) {
                case .wakeup: woken = true
                case .socket(let socket, let mask): socket.handleEvents(mask)
                case .stale: continue
                }
            }
            if woken {
                selector.drainWakeup()
                stopping = runRemoteTasks()
            }
            fireDueTimers()
            runLocalTasks()
        }
        tearDown()
    }

    /// Asks the loop to stop after running the tasks already queued. Any thread; idempotent.
    func beginShutdown() {
        let mustWake = remote.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            state.phase = .stopping
            guard !state.wakeupPending else { return false }
            state.wakeupPending = true
            wakersInFlight.add(1, ordering: .relaxed)
            return true
        }
        if mustWake { wakeOutsideLock() }
    }

    /// The `epoll_wait` timeout: 0 if tasks are queued, the next timer rounded up, or -1.
    private func nextTimeout() -> Int32 {
        if !localTasks.isEmpty { return 0 }
        guard let deadline = timers.earliestDeadline else { return -1 }
        return Self.pollTimeout(until: deadline, now: .now())
    }

    /// The `epoll_wait` timeout that sleeps until `deadline`: milliseconds rounded up (so the
    /// loop never wakes just before a timer is due), `0` if it is due, clamped to `Int32.max`.
    ///
    /// No intermediate can overflow: the remaining time is divided before it is rounded up (a
    /// timer at ``Deadline/distantFuture`` used to overflow `remaining + 999_999`).
    /// - Parameters:
    ///   - deadline: The earliest timer's deadline.
    ///   - now: The current time.
    /// - Returns: Milliseconds to wait.
    static func pollTimeout(until deadline: Deadline, now: Deadline) -> Int32 {
        let remaining = deadline - now
        guard remaining > .zero else { return 0 }
        let nanoseconds = remaining.saturatingNanoseconds
        let (milliseconds, leftover) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return Int32(clamping: leftover > 0 ? milliseconds + 1 : milliseconds)
    }

    /// Runs the tasks other threads queued. Returns `true` if the loop must stop.
    private func runRemoteTasks() -> Bool {
        let stop = remote.withLock { state -> Bool in
            swap(&state.tasks, &remoteBatch)
            state.wakeupPending = false
            guard state.phase == .stopping else { return false }
            state.phase = .stopped
            return true
        }
        for work in remoteBatch { run(work) }
        remoteBatch.removeAll(keepingCapacity: true)
        return stop
    }

    /// Runs the tasks queued on the loop before this call; later ones wait for the next iteration.
    private func runLocalTasks() {
        guard !localTasks.isEmpty else { return }
        swap(&localTasks, &runningTasks)
        for work in runningTasks { run(work) }
        runningTasks.removeAll(keepingCapacity: true)
    }

    /// Fires every timer due now that existed when this pass started.
    private func fireDueTimers() {
        guard timers.count > 0 else { return }
        let now = Deadline.now()
        let limit = timers.nextSequence
        while let body = timers.popExpired(now: now, sequenceLimit: limit) {
            body()
        }
    }

    /// Closes what is left after the loop stopped; see the file header.
    private func tearDown() {
        for socket in selector.registeredSockets {
            socket.closeForShutdown()
        }
        timers.removeAll()
        // Handlers told about the shutdown may queue follow-up work; give it a bounded chance to run.
        var passes = 0
        while !localTasks.isEmpty && passes < 16 {
            runLocalTasks()
            passes += 1
        }
        // Jobs still queued are suspended Swift tasks: dropping them would hang their awaiters
        // forever, so they move to the global executor (EventLoop+TaskExecutor.swift).
        for case .job(let job) in localTasks { Self.runElsewhere(job) }
        localTasks.removeAll()
        // `phase` is `.stopped` (set under the lock), so no new waker registers; wait for the
        // registered ones to finish their eventfd write before the fd is closed.
        remote.withLock { $0.tasks.removeAll() }
        while wakersInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
        selector.closeDescriptors()
        // The thread is about to exit and its pthread_t may be reused by a new thread, which
        // must not pass for this loop's (its `execute` would append to a queue nobody runs).
        loopThread.store(0, ordering: .relaxed)
    }
}

/// Work queued from the loop's own thread: a closure task or a Swift job.
enum LocalWork {
    case task(() -> Void)
    case job(UnownedJob)
}

/// Work queued from other threads: a sendable closure task or a Swift job.
enum RemoteWork: Sendable {
    case task(@Sendable () -> Void)
    case job(UnownedJob)
}

extension EventLoop {
    /// Runs one queued item on the loop thread.
    private func run(_ work: LocalWork) {
        switch work {
        case .task(let task): task()
        case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Runs one item from the remote queue on the loop thread.
    private func run(_ work: RemoteWork) {
        switch work {
        case .task(let task): task()
        case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
