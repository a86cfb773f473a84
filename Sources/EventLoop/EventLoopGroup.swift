// EventLoopGroup: a fixed set of loops, one thread each, handed out round-robin.
internal import CLinux
internal import Glibc
import Synchronization

/// A fixed number of ``EventLoop``s, each on its own thread.
///
/// Connections spread over the loops with ``next()``; a connection then stays on its loop.
/// Create one per process (or use ``shared``) and ``shutdown()`` it when done: a group that is
/// never shut down keeps its threads until the process exits.
public final class EventLoopGroup: Sendable {
    /// The loops, in the order ``next()`` hands them out.
    public let loops: [EventLoop]
    private let threads: [LoopThread]
    private let cursor = Atomic<Int>(0)
    private let isShutDown = Atomic<Bool>(false)
    private let isShared: Bool

    /// The number of CPU cores online (at least 1), the default thread count.
    public static var coreCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// A process-wide group with ``coreCount`` loops, started on first use and never shut down.
    public static let shared = EventLoopGroup(numberOfThreads: coreCount, isShared: true)

    /// Starts `numberOfThreads` loops, each on its own thread named `lariat-loop-N`.
    ///
    /// - Parameter numberOfThreads: How many loops; at least 1. Defaults to ``coreCount``.
    public convenience init(numberOfThreads: Int = EventLoopGroup.coreCount) {
        self.init(numberOfThreads: numberOfThreads, isShared: false)
    }

    private init(numberOfThreads: Int, isShared: Bool) {
        precondition(numberOfThreads >= 1, "an EventLoopGroup needs at least one thread")
        let loops = (0..<numberOfThreads).map { EventLoop(name: "lariat-loop-\($0)") }
        self.loops = loops
        self.threads = loops.map { loop in LoopThread.start(name: loop.name) { loop.run() } }
        self.isShared = isShared
    }

    /// The next loop in round-robin order. Any thread.
    ///
    /// - Returns: One of ``loops``.
    public func next() -> EventLoop {
        let index = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(UInt(bitPattern: index) % UInt(loops.count))]
    }

    /// The loop whose thread is the caller's, if any.
    ///
    /// - Returns: The current loop, or nil off this group's threads.
    public func currentLoop() -> EventLoop? {
        loops.first { $0.inEventLoop }
    }

    /// Stops every loop and joins its thread. Idempotent; must not be called on one of the
    /// group's own threads, and not on ``shared``.
    ///
    /// Tasks already queued run first. Then each loop tells its still-open sockets' handlers
    /// (``SocketHandler/socketHungUp(_:error:)`` with ``SocketError/Kind/eventLoopShutdown``),
    /// closes them, drops pending timers and closes its own descriptors. Later tasks are discarded.
    public func shutdown() {
        precondition(!isShared, "EventLoopGroup.shared lives for the whole process")
        precondition(currentLoop() == nil, "EventLoopGroup.shutdown() called on one of its own loops")
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for loop in loops { loop.beginShutdown() }
        for thread in threads { thread.join() }
    }

    deinit {
        // A group dropped without shutdown(): let its loops stop on their own (they still hold
        // themselves through their threads) and let the threads go without joining.
        if !isShutDown.load(ordering: .acquiring) {
            for loop in loops { loop.beginShutdown() }
            for thread in threads { thread.detach() }
        }
    }
}
