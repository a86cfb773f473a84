// The monitor-overhead row (issue 20, runner `lariat-mon-*` clients): LARIAT_PEER_MONITORS
// names ClientObservability monitors to put on the Session, comma-separated: `logging`,
// `metrics`, `tracing`. Each gets what a production service would have by default: swift-log's
// default handler at `.info` (the monitor logs at `.debug`/`.trace`, so nothing is written: the
// cost measured is deciding not to log), swift-metrics' and swift-distributed-tracing's
// bootstrapped backends, which are their no-op ones unless bootstrapped (the cost is Lariat's
// own: events, label and attribute work, the pool hook). Unset or empty: no monitor.
import ClientObservability
import Client
import Logging
import Foundation

enum PeerMonitors {
    /// The monitors the environment names; exits 2 on an unknown name.
    static func fromEnvironment() -> [any EventMonitor] {
        let names = (ProcessInfo.processInfo.environment["LARIAT_PEER_MONITORS"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return names.map { name -> any EventMonitor in
            switch name {
            case "logging":
                var logger = Logger(label: "peer-lariat")
                logger.logLevel = .info
                return LoggingEventMonitor(logger: logger)
            case "metrics":
                return MetricsEventMonitor()
            case "tracing":
                return TracingEventMonitor()
            default:
                FileHandle.standardError.write(Data("peer-lariat: unknown monitor \(name) in LARIAT_PEER_MONITORS\n".utf8))
                exit(2)
            }
        }
    }
}
