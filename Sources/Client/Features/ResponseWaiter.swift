// The bridge from a request's completion to any number of awaiting tasks, without a Task of its
// own.
//
// States: waiting(continuations) ──deliver──▶ done(response). A waiter that arrives after
// `deliver` gets the response at once; each continuation is resumed exactly once, outside the
// lock. The continuations live only inside the `waiting` case (STYLE.md §3).
//
// Why not `Task { await withCheckedContinuation … }` per request: creating and completing that
// task cost two extra thread wake-ups per request (its start and the awaiting task's resumption),
// which perf showed as the largest share of a keep-alive GET's CPU time.

import Synchronization

final class ResponseWaiter<Response: Sendable>: Sendable {
    private enum State {
        /// Not finished; these tasks wait for it. Exit: `deliver` → `done`.
        case waiting([CheckedContinuation<Response, Never>])
        /// Finished; final.
        case done(Response)
    }

    private let state = Mutex<State>(.waiting([]))

    /// Records the response and resumes every waiting task. Later calls are ignored.
    func deliver(_ response: Response) {
        let waiters = state.withLock { state -> [CheckedContinuation<Response, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .done(response)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: response) }
    }

    /// The response, once delivered; cancelling the awaiting task cancels `request` (Alamofire's
    /// `automaticallyCancelling`), or does nothing when it is `nil`. Shared by `DataTask` and
    /// `DownloadTask`.
    func response(cancelling request: Request?) async -> Response {
        guard let request else { return await response }
        return await withTaskCancellationHandler {
            await response
        } onCancel: {
            request.cancel()
        }
    }

    /// The response, once delivered.
    var response: Response {
        get async {
            if case .done(let response) = state.withLock({ $0 }) { return response }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Response? in
                    switch state {
                    case .waiting(var waiters):
                        waiters.append(continuation)
                        state = .waiting(waiters)
                        return nil
                    case .done(let response):
                        return response
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
