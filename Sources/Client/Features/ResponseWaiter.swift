// The bridge from a request's completion to any number of awaiting tasks, without a Task of its
// own.
//
// States: waiting(first, others) ──deliver──▶ done(response). A waiter that arrives after
// `deliver` gets the response at once; each continuation is resumed exactly once, outside the
// lock. The continuations live only inside the `waiting` case (STYLE.md §3).
//
// Why not `Task { await withCheckedContinuation … }` per request: creating and completing that
// task cost two extra thread wake-ups per request (its start and the awaiting task's resumption),
// which perf showed as the largest share of a keep-alive GET's CPU time.
//
// What it allocates (the async API's share of Issue 19's per-request count): nothing but
// itself. The one awaiting task, the usual case, waits in `first`, so no array is made; the
// continuation is an `UnsafeContinuation` (a `CheckedContinuation` allocates a checking object
// per wait: the exactly-once resume is this type's state machine, table-tested in
// `AsyncResponseWaiterTests`); and the continuation carries no value, so an awaiting task's async
// frames hold no copy of the response while it waits: the frames of `value` → `wait` →
// `withTaskCancellationHandler` → `withUnsafeContinuation` stay small (a new task's frames
// beyond its first allocator slab cost a malloc per slab).

import Synchronization

/// `@unchecked Sendable`: not final, so that `InPlaceResponseWaiter` can be both the waiter
/// and its serializer's turn in one object; the mutable state is in the `Mutex`, and the
/// subclass adds only immutable `Sendable` properties.
class ResponseWaiter<Response: Sendable>: @unchecked Sendable {
    /// A task waiting for the response; resumed once it is delivered.
    typealias Continuation = UnsafeContinuation<Void, Never>

    private enum State {
        /// Not finished; these tasks wait for it (`others` only when more than one does).
        /// Exit: `deliver` → `done`.
        case waiting(first: Continuation?, others: [Continuation])
        /// Finished; final.
        case done(Response)
    }

    private let state = Mutex<State>(.waiting(first: nil, others: []))

    /// Creates a waiter with nothing delivered.
    init() {}

    /// Records the response and resumes every waiting task. Later calls are ignored.
    func deliver(_ response: Response) {
        let (first, others) = state.withLock { state -> (Continuation?, [Continuation]) in
            guard case .waiting(let first, let others) = state else { return (nil, []) }
            state = .done(response)
            return (first, others)
        }
        first?.resume()
        for waiter in others { waiter.resume() }
    }

    /// The response, once delivered; cancelling the awaiting task cancels `request` (Alamofire's
    /// `automaticallyCancelling`), or does nothing when it is `nil`. Shared by `DataTask` and
    /// `DownloadTask`.
    func response(cancelling request: Request?) async -> Response {
        await wait(cancelling: request)
        return delivered
    }

    /// Returns once the response is delivered; cancelling the awaiting task cancels `request`,
    /// or does nothing when it is `nil`. Read the response with ``delivered`` afterwards.
    func wait(cancelling request: Request?) async {
        guard let request else { return await withUnsafeContinuation { enqueue($0) } }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { enqueue($0) }
        } onCancel: {
            request.cancel()
        }
    }

    /// The delivered response. Only after ``wait(cancelling:)`` returned (or ``deliver(_:)``
    /// ran): before that there is none, a programming error.
    var delivered: Response {
        let response = state.withLock { state -> Response? in
            guard case .done(let response) = state else { return nil }
            return response
        }
        guard let response else { preconditionFailure("ResponseWaiter read before delivery") }
        return response
    }

    /// How many tasks wait now (tests).
    var waitingCount: Int {
        state.withLock { state in
            guard case .waiting(let first, let others) = state else { return 0 }
            return (first == nil ? 0 : 1) + others.count
        }
    }

    /// Whether the response was delivered.
    var isDelivered: Bool {
        state.withLock { state in
            if case .done = state { return true }
            return false
        }
    }

    /// Adds `continuation` to the waiting tasks, or resumes it at once if the response is in.
    private func enqueue(_ continuation: Continuation) {
        let ready = state.withLock { state -> Bool in
            switch state {
            case .waiting(nil, let others):
                state = .waiting(first: continuation, others: others)
                return false
            case .waiting(let first?, var others):
                // Another task awaits the same response.
                others.append(continuation)
                state = .waiting(first: first, others: others)
                return false
            case .done:
                return true
            }
        }
        if ready { continuation.resume() }
    }
}
