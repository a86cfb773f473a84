// The pool's observation hook: per-key counts of connections and waiters after each transition,
// for ClientObservability's pool gauges. `package` access: it exposes the pool's own model
// (keys, the four counts), which is ours to change; users get the gauges through
// `MetricsEventMonitor`, and `import Client` gains no public symbol.
//
// Cost when unused: `Configuration.observer` is nil, each entry point tests one Bool under the
// lock it already holds, and `Effects` carries one Bool more. When used: one dictionary lookup
// and a scan of the machine's connections per transition (`ConnectionPoolStateMachine.counts`),
// plus the observer's own work.
//
// Two phases, so that the counts arrive in the machine's order without user code under the
// pool's lock: `store` is called under the lock (it must only record, as a leaf lock would), then
// `publish` after the lock is released, from whichever thread made the transition. Because
// `publish` reads what `store` recorded last, a late `publish` never reports an older state.

/// One key's connections and waiters, as the pool's state machine counts them.
package struct ConnectionPoolCounts: Hashable, Sendable {
    /// Established connections with no request.
    package var idle = 0
    /// Connections running a request (a TLS handshake included).
    package var leased = 0
    /// Connections being opened (name resolution, TCP connect, a proxy's tunnel).
    package var connecting = 0
    /// Requests queued for a connection (the per-host limit reached).
    package var waiters = 0

    /// Whether every count is zero (the machine has dropped the key).
    package var isEmpty: Bool { self == ConnectionPoolCounts() }

    package init(idle: Int = 0, leased: Int = 0, connecting: Int = 0, waiters: Int = 0) {
        self.idle = idle
        self.leased = leased
        self.connecting = connecting
        self.waiters = waiters
    }
}

/// Watches a pool's counts; see the file comment for the two phases.
package protocol ConnectionPoolObserver: Sendable {
    /// `key`'s counts after a transition. Called under the pool's lock, in transition order:
    /// record them and return; never block, call user code or call into the pool.
    func store(_ counts: ConnectionPoolCounts, for key: ConnectionKey)
    /// Called after the pool's lock is released, once per transition that stored counts:
    /// report what was stored (a later transition's counts, if one has stored since).
    func publish()
}

extension ConnectionPool.State {
    /// Stores `key`'s counts with the observer, if there is one. Under the lock.
    ///
    /// `mutating` though it changes nothing: Swift reads the receiver of a non-mutating call
    /// before evaluating its arguments, so `state.observe(key, state.resolve(state.machine.event()))`
    /// would count a copy of `state` taken before the event (issue 20: a released Session's
    /// shutdown stored "idle 1" and the gauge kept it) and make the event copy every dictionary
    /// it shared with that copy (three allocations per keep-alive release, measured by
    /// Benchmarks/). A mutating call takes `state` after its arguments: the counts are always
    /// those after the event. Entry points still resolve into a `let` first, for reading.
    mutating func observe(_ key: ConnectionKey, _ effects: ConnectionPool.Effects) -> ConnectionPool.Effects {
        guard let observer else { return effects }
        observer.store(machine.counts(for: key), for: key)
        var effects = effects
        effects.publish = true
        return effects
    }

    /// Stores the counts of every key in `keys` (events touching several: shutdown, deadlines).
    mutating func observe(_ keys: [ConnectionKey], _ effects: ConnectionPool.Effects) -> ConnectionPool.Effects {
        var effects = effects
        for key in keys { effects = observe(key, effects) }
        return effects
    }

    /// The keys to report after an event that may touch several; empty when nobody observes.
    var observedKeys: [ConnectionKey] { observer == nil ? [] : machine.keys }
}
