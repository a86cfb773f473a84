// HappyEyeballsStateMachine: which address to try when, with no I/O (STYLE.md §3).
//
// RFC 8305 "Happy Eyeballs v2", simplified where this client's resolver differs:
//  - §3 (asynchronous AAAA/A queries, 50 ms resolution delay) does not apply: getaddrinfo with
//    AF_UNSPEC returns both families at once, already sorted by RFC 6724 (§4 asks for that order).
//  - §4: the list is interleaved by family, starting with the family of the first address.
//  - §5: attempts start one at a time; the next starts when the previous one fails or after the
//    "Connection Attempt Delay" (250 ms by default, the RFC's recommended value) while it is still
//    pending. The first to connect wins and every other attempt is closed.
// The overall connect timeout and cancellation are both `abort(error)`.
//
// States and exits:
//   initial     -> resolving (start, name must be looked up)
//               -> connecting (start with known addresses)
//               -> finished (abort, or start with no addresses)
//   resolving   -> connecting (resolved), finished (resolution failed, empty answer, abort)
//   connecting  -> connecting (attempt failed with more to try, timer fired)
//               -> finished (first success; last attempt failed; abort)
//   finished    terminal; every later event is a legitimate race (a late resolver answer, a socket
//               event after the timeout) and is ignored with `.none`.

/// Identifies one connection attempt (one address) inside a connect operation.
typealias AttemptID = Int

/// Decides the order and timing of connection attempts; the driver (`ConnectDriver`) does the I/O.
struct HappyEyeballsStateMachine {
    /// The effect the driver must carry out next.
    enum Action: Equatable {
        /// Look the host up; report back with `resolved` or `resolutionFailed`.
        case resolve
        /// Open a socket and connect it to `address`. Arm (or re-arm) the next-attempt timer if
        /// `armNextAttemptTimer`, otherwise cancel it (nothing is left to start).
        case startAttempt(AttemptID, SocketAddress, armNextAttemptTimer: Bool)
        /// Hand the winner's socket to the caller; close `closing`; cancel all timers.
        case succeed(winner: AttemptID, closing: [AttemptID])
        /// Report `error`; close `closing`; cancel all timers.
        case fail(SocketError, closing: [AttemptID])
        /// Nothing to do now.
        case none
    }

    private enum State {
        case initial
        case resolving
        /// `pending` are addresses not yet tried, in order; `inFlight` are started attempts.
        case connecting(pending: ArraySlice<SocketAddress>, inFlight: [AttemptID])
        case finished
    }

    private var state = State.initial
    private var nextID: AttemptID = 0

    /// `true` once the operation succeeded or failed.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    // MARK: events

    /// Begins: with `addresses` known (an IP literal or an override), or nil to resolve first.
    mutating func start(addresses: [SocketAddress]?) -> Action {
        guard case .initial = state else { preconditionFailure("start in state \(state)") }
        guard let addresses else {
            state = .resolving
            return .resolve
        }
        return beginConnecting(addresses)
    }

    /// The resolver answered with `addresses`.
    mutating func resolved(_ addresses: [SocketAddress]) -> Action {
        switch state {
        case .resolving: return beginConnecting(addresses)
        case .finished: return .none
        case .initial, .connecting: preconditionFailure("resolved in state \(state)")
        }
    }

    /// The resolver failed.
    mutating func resolutionFailed(_ error: SocketError) -> Action {
        switch state {
        case .resolving:
            state = .finished
            return .fail(error, closing: [])
        case .finished: return .none
        case .initial, .connecting: preconditionFailure("resolutionFailed in state \(state)")
        }
    }

    /// Attempt `id` connected.
    mutating func attemptSucceeded(_ id: AttemptID) -> Action {
        guard case .connecting(_, let inFlight) = state, inFlight.contains(id) else { return .none }
        state = .finished
        return .succeed(winner: id, closing: inFlight.filter { $0 != id })
    }

    /// Attempt `id` failed with `error`: start the next address now, or, when none is left and
    /// nothing else is in flight, fail with this (the most recent) error.
    mutating func attemptFailed(_ id: AttemptID, error: SocketError) -> Action {
        guard case .connecting(let pending, var inFlight) = state, let index = inFlight.firstIndex(of: id) else {
            return .none
        }
        inFlight.remove(at: index)
        if !pending.isEmpty {
            return startNext(pending: pending, inFlight: inFlight)
        }
        if inFlight.isEmpty {
            state = .finished
            return .fail(error, closing: [])
        }
        state = .connecting(pending: pending, inFlight: inFlight)
        return .none
    }

    /// The connection attempt delay elapsed with the latest attempt still pending.
    mutating func nextAttemptTimerFired() -> Action {
        guard case .connecting(let pending, let inFlight) = state, !pending.isEmpty else { return .none }
        return startNext(pending: pending, inFlight: inFlight)
    }

    /// Timeout, cancellation or loop shutdown: stop everything and report `error`.
    mutating func abort(_ error: SocketError) -> Action {
        switch state {
        case .initial, .resolving:
            state = .finished
            return .fail(error, closing: [])
        case .connecting(_, let inFlight):
            state = .finished
            return .fail(error, closing: inFlight)
        case .finished:
            return .none
        }
    }

    // MARK: helpers

    private mutating func beginConnecting(_ addresses: [SocketAddress]) -> Action {
        guard !addresses.isEmpty else {
            state = .finished
            return .fail(SocketError(kind: .hostNotFound), closing: [])
        }
        return startNext(pending: Self.interleave(addresses)[...], inFlight: [])
    }

    private mutating func startNext(pending: ArraySlice<SocketAddress>, inFlight: [AttemptID]) -> Action {
        var pending = pending
        let address = pending.removeFirst()
        let id = nextID
        nextID += 1
        state = .connecting(pending: pending, inFlight: inFlight + [id])
        return .startAttempt(id, address, armNextAttemptTimer: !pending.isEmpty)
    }

    /// RFC 8305 §4: alternate families, starting with the first address's family, keeping the
    /// relative order within each family.
    static func interleave(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return [] }
        let preferred = addresses.filter { $0.family == first.family }
        let other = addresses.filter { $0.family != first.family }
        var result: [SocketAddress] = []
        result.reserveCapacity(addresses.count)
        for index in 0..<max(preferred.count, other.count) {
            if index < preferred.count { result.append(preferred[index]) }
            if index < other.count { result.append(other[index]) }
        }
        return result
    }
}
