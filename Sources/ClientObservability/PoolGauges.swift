// The connection-pool gauges of MetricsEventMonitor: the pool stores each key's counts under its
// lock (`store`), and `publish` records the latest sums per origin label after it.
//
// Cardinality: one label set per origin (scheme, host, port), so keys that differ only by proxy
// add up under their origin. At most `maximumOrigins` origins get labels of their own, the first
// ones seen; the rest add up under `host="other", port="0"` (their scheme kept). Memory: counts
// only for keys with open connections or waiters, plus the set of labelled origins (bounded).

import Client
internal import Transport
import CoreMetrics
import Synchronization

/// Records the pool's counts as gauges; shared by the copies of one `MetricsEventMonitor`.
final class PoolGauges: ConnectionPoolObserver {
    /// An origin's dimensions: (scheme, host, port).
    struct Origin: Hashable {
        var scheme: String
        var host: String
        var port: String

        var dimensions: [(String, String)] { [("scheme", scheme), ("host", host), ("port", port)] }
    }

    private struct State {
        /// Counts of keys with anything open or queued (as last stored).
        var counts: [ConnectionKey: ConnectionPoolCounts] = [:]
        /// The origin label each live key reports under.
        var labels: [ConnectionKey: Origin] = [:]
        /// Origins with labels of their own (at most `maximumOrigins`).
        var labelled: Set<Origin> = []
        /// Labels whose sums changed since the last publish.
        var dirty: Set<Origin> = []
    }

    private let factory: any MetricsFactory
    private let maximumOrigins: Int
    private let state = Mutex(State())

    init(factory: any MetricsFactory, maximumOrigins: Int) {
        self.factory = factory
        self.maximumOrigins = max(0, maximumOrigins)
    }

    func store(_ counts: ConnectionPoolCounts, for key: ConnectionKey) {
        state.withLock { state in
            let label = state.labels[key] ?? origin(of: key, labelled: &state.labelled)
            if counts.isEmpty {
                state.counts[key] = nil
                state.labels[key] = nil
            } else {
                state.counts[key] = counts
                state.labels[key] = label
            }
            state.dirty.insert(label)
        }
    }

    func publish() {
        // Recorded under the lock, so two publishers cannot record an older sum after a newer one.
        state.withLock { state in
            guard !state.dirty.isEmpty else { return }
            for label in state.dirty {
                var sum = ConnectionPoolCounts()
                for (key, counts) in state.counts where state.labels[key] == label {
                    sum.idle += counts.idle
                    sum.leased += counts.leased
                    sum.connecting += counts.connecting
                    sum.waiters += counts.waiters
                }
                record(sum, for: label)
            }
            state.dirty.removeAll(keepingCapacity: true)
        }
    }

    private func record(_ sum: ConnectionPoolCounts, for origin: Origin) {
        let dimensions = origin.dimensions
        let connections = MetricsEventMonitor.Label.poolConnections
        Gauge(label: connections, dimensions: dimensions + [("state", "idle")], factory: factory).record(sum.idle)
        Gauge(label: connections, dimensions: dimensions + [("state", "leased")], factory: factory).record(sum.leased)
        Gauge(label: connections, dimensions: dimensions + [("state", "connecting")], factory: factory).record(sum.connecting)
        Gauge(label: MetricsEventMonitor.Label.poolWaiters, dimensions: dimensions, factory: factory).record(sum.waiters)
    }

    /// The label for a key not yet live: its origin's own, or `other` once the cap is reached.
    private func origin(of key: ConnectionKey, labelled: inout Set<Origin>) -> Origin {
        let scheme = key.unixSocketPath != nil ? "http+unix" : (key.isTLS ? "https" : "http")
        let own = Origin(scheme: scheme, host: key.host, port: String(key.port))
        if labelled.contains(own) { return own }
        guard labelled.count < maximumOrigins else { return Origin(scheme: scheme, host: "other", port: "0") }
        labelled.insert(own)
        return own
    }
}
