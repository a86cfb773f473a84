// One request's journey through the pool and onto a connection, and the only way to cancel it.
//
// Phases (guarded by a mutex, because cancel() may come from any thread):
//
//   created ──▶ queued (waiting for a connection slot) ──▶ connecting ──▶ running ──▶ completed
//      └──────────────────────────────▶ connecting / running ──────────────────────▶ completed
//   any ──cancel()──▶ cancelled: the current holder (pool, connector, connection) ends it
//
// The exchange's I/O bookkeeping (`timings`, `attempt`) is touched by one thread at a time: the
// pool before hand-off, then the connection's loop; each hand-off goes through EventLoop.execute,
// which orders the accesses.

import FoundationEssentials
import Synchronization
import EventLoop

final class Exchange: @unchecked Sendable {
    /// Where the exchange is, for cancellation.
    enum Phase {
        case created
        case queued
        case connecting(ConnectAttempt?)
        case running(LoopBound<HTTP1Connection>)
        case completed
    }

    let request: TransportRequest
    private let handler: @Sendable (TransportEvent) -> Void
    private let bodyHandler: @Sendable (UnsafeRawBufferPointer) -> Void
    private let phase = Mutex<(phase: Phase, cancelled: Bool)>((.created, false))

    /// Timestamps; see the file comment for confinement.
    var timings = TransportTimings()
    /// Silent retries done so far (at most one, on a fresh connection).
    var attempt = 0
    /// Set for a retry: the exchange must not go to a connection that was used before.
    var requiresFreshConnection = false

    /// - Parameters:
    ///   - request: What to send.
    ///   - handler: Gets the head, then the end or failure.
    ///   - bodyHandler: Gets each run of body bytes on the connection's loop, borrowed from the
    ///     receive buffer for the call only: copy what you keep. No `Data` is made per chunk, so a
    ///     body is copied once, into wherever the request keeps it.
    init(request: TransportRequest, handler: @escaping @Sendable (TransportEvent) -> Void,
         bodyHandler: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.request = request
        self.handler = handler
        self.bodyHandler = bodyHandler
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

    /// Delivers the head.
    func deliver(_ event: TransportEvent) {
        if case .completed = phase.withLock({ $0.phase }) { return }
        handler(event)
    }

    /// Hands body bytes to the body handler (borrowed for the call).
    func deliverBody(_ bytes: UnsafeRawBufferPointer) {
        if case .completed = phase.withLock({ $0.phase }) { return }
        bodyHandler(bytes)
    }

    /// Delivers the terminal event exactly once.
    func complete(_ event: TransportEvent) {
        let first = phase.withLock { state -> Bool in
            if case .completed = state.phase { return false }
            state.phase = .completed
            return true
        }
        if first { handler(event) }
    }

    /// Cancels from any thread. Returns what the caller must do outside the lock.
    func cancel(pool: ConnectionPool) {
        let current = phase.withLock { state -> Phase? in
            if case .completed = state.phase { return nil }
            if state.cancelled { return nil }
            state.cancelled = true
            return state.phase
        }
        guard let current else { return }
        switch current {
        case .created, .completed:
            break  // The pool or the connection sees `isCancelled` when it picks the exchange up.
        case .queued:
            if pool.removeWaiter(self) { complete(.failure(TransportError(.cancelled, "cancelled"), nil)) }
        case .connecting(let attempt):
            attempt?.cancel()
        case .running(let connection):
            connection.loop.execute { connection.value.cancel(self) }
        }
    }
}
