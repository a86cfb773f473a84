// HTTP1ConnectionStateMachine's timer and cancel transitions. States and the other transitions:
// HTTP1ConnectionStateMachine.swift.

import EventLoop

extension HTTP1ConnectionStateMachine {
    // MARK: Timer and cancel

    /// The driver's timer fired at `now`.
    mutating func timerFired(now: Deadline) -> Action {
        switch state {
        case .handshaking(_, let until):
            guard now >= until else { return .none }
            return fail(.handshakeTimeout, retryable: false)
        case .awaitingHandshake, .idle, .closed, .upgraded:
            return .none
        case .active(var active):
            if now >= active.request.deadline { return fail(.deadline, retryable: false) }
            if now >= active.idleDeadline, !active.reading.isPaused, let idle = active.request.idleTimeout {
                return fail(.idleTimeout(idle), retryable: false)
            }
            if case .awaitingContinue(let until) = active.writing, now >= until {
                // No 100 Continue in time: send the body anyway (RFC 9110 §10.1.1).
                active.writing = .sending
                state = .active(active)
                return .write
            }
            return .none  // fired early (rescheduled meanwhile): the driver re-arms
        }
    }

    /// The request was cancelled.
    mutating func cancelled() -> Action {
        switch state {
        case .closed, .upgraded: return .none
        case .idle, .awaitingHandshake:
            state = .closed
            return .close
        case .handshaking, .active: return fail(.cancelled, retryable: false)
        }
    }

    /// The driver closes the connection for a reason of its own (the pool retires it, session
    /// teardown). Idempotent; an upgraded connection stays upgraded (its socket is not ours).
    mutating func closed() {
        if case .upgraded = state { return }
        state = .closed
    }
}
