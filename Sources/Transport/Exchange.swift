// One request's journey through the pool and onto a connection, and the only way to cancel it.
//
// Phases (guarded by a mutex, because cancel() may come from any thread):
//
//   created ──▶ running (a connection entered it) ──▶ completed
//      └──────────────────────────────────────────────▶ completed (the pool failed it)
// Queued and connecting are phases of the pool's state machine, per request ID.
//   any ──cancel()──▶ cancelled: the flag is set, then the pool is told; the pool's state machine
//                     knows where the request is (queued, connecting on N, running on N) and ends
//                     it there. A cancel before the pool has the request is seen by `execute`,
//                     which reads the flag under the pool's lock; a cancel racing a hand-off to a
//                     connection is seen by the connection's `enter(.running)`.
//
// The exchange's I/O bookkeeping (`timings`, `attempt`) is touched by one thread at a time: the
// pool before hand-off, then the connection's loop; each hand-off goes through EventLoop.execute,
// which orders the accesses.

import FoundationEssentials
import Synchronization
import EventLoop

/// Receives one exchange's events on the thread that reports them: the head, body runs and the
/// end of a running exchange from its connection's loop, in order; a failure before any
/// connection from the pool's thread. One object per exchange (the request's
/// `ExchangeReceiver`): no closure contexts per exchange.
package protocol ExchangeEventReceiver: AnyObject, Sendable {
    /// The head, upload progress, or the end or failure.
    func exchangeEvent(_ event: TransportEvent)
    /// A run of body bytes, borrowed from the receive buffer for the call only.
    func exchangeBody(_ bytes: UnsafeRawBufferPointer)
}

/// Adapts two closures to ``ExchangeEventReceiver`` (tests, and callers with no receiver type).
private final class ClosureEventReceiver: ExchangeEventReceiver {
    let handler: @Sendable (TransportEvent) -> Void
    let bodyHandler: @Sendable (UnsafeRawBufferPointer) -> Void
    package init(_ handler: @escaping @Sendable (TransportEvent) -> Void, _ bodyHandler: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        (self.handler, self.bodyHandler) = (handler, bodyHandler)
    }
    func exchangeEvent(_ event: TransportEvent) { handler(event) }
    func exchangeBody(_ bytes: UnsafeRawBufferPointer) { bodyHandler(bytes) }
}

// @unchecked Sendable: its phase lives in a mutex; the rest is touched by the pool before hand-off
// and by the connection's loop after it, each hand-off through EventLoop.execute (which orders them).
package final class Exchange: @unchecked Sendable {
    /// Where the exchange is. Cancellation no longer reads it: the pool's state machine tracks
    /// queued, connecting and running per request ID (`ConnectionPool.cancel`). What matters
    /// here is `completed` (deliver nothing after the end) and `enter`'s answer (cancelled?).
    enum Phase {
        /// Made, not yet on a connection.
        case created
        /// Waiting for a connection slot (not entered by the pool any more; kept for callers).
        case queued
        /// A connection is being opened for it (likewise).
        case connecting(ConnectAttempt?)
        /// On a connection, which entered it.
        case running(LoopBound<HTTP1Connection>)
        /// The terminal event was delivered.
        case completed
    }

    /// Numbers exchanges for the pool's state machine (kept across silent retries).
    private static let nextID = Atomic<Int>(0)

    /// The exchange's ID in the pool.
    let id: Int
    let request: TransportRequest
    private let receiver: any ExchangeEventReceiver
    private let phase = Mutex<(phase: Phase, cancelled: Bool)>((.created, false))
    /// `phase` is `.completed`: read without the lock for every head and body run (set under
    /// it, once, before the terminal event is delivered).
    private let completed = Atomic<Bool>(false)

    /// Timestamps; see the file comment for confinement.
    package var timings = TransportTimings()
    /// Silent retries done so far (at most one, on a fresh connection).
    var attempt = 0
    /// Set for a retry: the exchange must not go to a connection that was used before.
    var requiresFreshConnection = false
    /// The loop of the thread that first submitted the exchange, if it was one of the pool's
    /// (a task preferring that loop): a connection opened for it goes there, so the whole
    /// exchange stays on the caller's thread. Set by `ConnectionPool.execute`.
    var preferredLoop: EventLoop?

    /// - Parameters:
    ///   - request: What to send.
    ///   - handler: Gets the head, then the end or failure.
    ///   - bodyHandler: Gets each run of body bytes on the connection's loop, borrowed from the
    ///     receive buffer for the call only: copy what you keep. No `Data` is made per chunk, so a
    ///     body is copied once, into wherever the request keeps it.
    package convenience init(request: TransportRequest, handler: @escaping @Sendable (TransportEvent) -> Void,
                     bodyHandler: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.init(request: request, receiver: ClosureEventReceiver(handler, bodyHandler))
    }

    /// - Parameters:
    ///   - request: What to send.
    ///   - receiver: Gets the head, body runs (borrowed for the call), then the end or failure.
    package init(request: TransportRequest, receiver: any ExchangeEventReceiver) {
        self.id = Self.nextID.add(1, ordering: .relaxed).newValue
        self.request = request
        self.receiver = receiver
    }

    /// Whether cancel() was called.
    var isCancelled: Bool { phase.withLock { $0.cancelled } }

    /// Records the phase; returns false if the exchange was cancelled meanwhile (the caller then
    /// ends it with `.cancelled`).
    func enter(_ next: Phase) -> Bool {
        phase.withLock { state in
            if case .completed = state.phase { return false }
            state.phase = next
            return !state.cancelled
        }
    }

    /// The connection running the exchange, if one entered it and it has not completed
    /// (back-pressure reaches the connection through it).
    var runningConnection: LoopBound<HTTP1Connection>? {
        phase.withLock { if case .running(let connection) = $0.phase { connection } else { nil } }
    }

    /// Delivers the head.
    package func deliver(_ event: TransportEvent) {
        if completed.load(ordering: .acquiring) { return }
        receiver.exchangeEvent(event)
    }

    /// Hands body bytes to the body handler (borrowed for the call).
    package func deliverBody(_ bytes: UnsafeRawBufferPointer) {
        if completed.load(ordering: .acquiring) { return }
        receiver.exchangeBody(bytes)
    }

    /// Delivers the terminal event exactly once.
    package func complete(_ event: TransportEvent) {
        let first = phase.withLock { state -> Bool in
            if case .completed = state.phase { return false }
            state.phase = .completed
            completed.store(true, ordering: .releasing)
            return true
        }
        if first { receiver.exchangeEvent(event) }
    }

    /// Cancels from any thread: sets the flag, then lets the pool end the exchange wherever it
    /// is (queued, connecting, handshaking or running).
    ///
    /// - Parameter pool: The pool the exchange was (or is about to be) submitted to.
    package func cancel(pool: ConnectionPool) {
        let first = phase.withLock { state -> Bool in
            if case .completed = state.phase { return false }
            if state.cancelled { return false }
            state.cancelled = true
            return true
        }
        if first { pool.cancel(self) }
    }
}
