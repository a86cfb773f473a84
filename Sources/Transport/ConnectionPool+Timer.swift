// The pool's one deadline timer: armed on `timerLoop` only while a request with a deadline
// waits for a connection (the machine says when), firing `deadlinePassed` to fail the expired.
//
// The timer is scheduled on its loop, after the decision that armed it and outside the lock, so
// decisions and scheduling can interleave. A generation number, bumped under the lock at every
// arm or cancel, sorts this out: a firing whose generation is not the current one is ignored, and
// a timer whose registration arrives after a newer decision cancels itself.

import Synchronization
import EventLoop

extension ConnectionPool {
    /// What the deadline timer needs, decided under the lock.
    enum TimerEffect {
        case none
        /// Schedule a timer for `deadline` tagged `generation`; cancel `replacing` first.
        case arm(generation: Int, deadline: Deadline, replacing: TimerID?)
        /// Cancel the armed timer (if it was registered yet).
        case cancel(TimerID?)
    }

    /// Schedules or cancels the timer on its loop.
    func perform(_ effect: TimerEffect) {
        switch effect {
        case .none:
            break
        case .cancel(let id):
            guard let id else { return }  // Not registered yet: its registration will see the new generation.
            timerLoop.execute { [timerLoop] in timerLoop.cancelTimer(id) }
        case .arm(let generation, let deadline, let replacing):
            timerLoop.execute { [self] in
                if let replacing { timerLoop.cancelTimer(replacing) }
                let id = timerLoop.scheduleTimer(at: deadline) { [weak self] in
                    self?.deadlineTimerFired(generation: generation)
                }
                let current = state.withLock { state -> Bool in
                    guard state.timerGeneration == generation else { return false }
                    state.timerID = id
                    return true
                }
                if !current { timerLoop.cancelTimer(id) }
            }
        }
    }

    /// The timer fired: fail what has expired and re-arm for what is left.
    private func deadlineTimerFired(generation: Int) {
        let effects = state.withLock { state -> Effects in
            guard state.timerGeneration == generation else { return Effects() }
            state.timerID = nil
            let keys = state.observedKeys
            let effects = state.resolve(state.machine.deadlinePassed(now: .now()))
            return state.observe(keys, effects)
        }
        perform(effects)
    }
}

extension ConnectionPool.State {
    /// Records the machine's timer decision and says what to do on the timer's loop. Under the lock.
    mutating func timerEffect(for action: ConnectionPool.Machine.TimerAction) -> ConnectionPool.TimerEffect {
        switch action {
        case .none:
            return .none
        case .arm(let deadline):
            timerGeneration += 1
            defer { timerID = nil }
            return .arm(generation: timerGeneration, deadline: deadline, replacing: timerID)
        case .cancel:
            timerGeneration += 1
            defer { timerID = nil }
            return .cancel(timerID)
        }
    }
}
