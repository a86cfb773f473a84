// How a Session's event monitors reach its connection pool's counts: a monitor conforming to
// `ConnectionPoolObservingMonitor` (package access: ClientObservability's MetricsEventMonitor)
// hands the session an observer at init. Nothing public: the pool's model stays ours to change.

import Transport

/// An ``EventMonitor`` that also watches the session's connection pool.
package protocol ConnectionPoolObservingMonitor: EventMonitor {
    /// Told the pool's counts per key (see `ConnectionPoolObserver` for when and on which lock).
    var connectionPoolObserver: any ConnectionPoolObserver { get }
}

/// Tells several observers (several observing monitors on one session).
struct CombinedPoolObserver: ConnectionPoolObserver {
    let observers: [any ConnectionPoolObserver]

    func store(_ counts: ConnectionPoolCounts, for key: ConnectionKey) {
        for observer in observers { observer.store(counts, for: key) }
    }

    func publish() {
        for observer in observers { observer.publish() }
    }

    /// The observers of `monitors`, or nil when none observes the pool (the pool then pays nothing).
    static func of(_ monitors: [any EventMonitor]) -> (any ConnectionPoolObserver)? {
        let observers = monitors.compactMap { ($0 as? any ConnectionPoolObservingMonitor)?.connectionPoolObserver }
        switch observers.count {
        case 0: return nil
        case 1: return observers[0]
        default: return CombinedPoolObserver(observers: observers)
        }
    }
}
