// Alamofire's NetworkReachabilityManager on Linux, backed by NWPathMonitor (rtnetlink).
//
// Differences from Apple (SystemConfiguration), on purpose:
// - "Reachable" means a default route through an interface that is up, for any host: `host` is
//   not resolved and no per-host route lookup is made.
// - Cellular is never reported (rtnetlink has no cellular flag): `isReachableOnCellular` is
//   always false and every reachable status is `.reachable(.ethernetOrWiFi)`, tunnels included.
// - `status` outside `startListening` does a blocking netlink dump on the calling thread (about
//   a millisecond; at most ~2 s if the kernel does not answer), as Apple's reads flags synchronously.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import EventLoop
import Synchronization

/// Reports whether the network is reachable and notifies a listener of changes (Alamofire's API).
open class NetworkReachabilityManager: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `listening` (a Mutex); subclasses add their own.

    /// Whether the network is reachable, and how.
    public enum NetworkReachabilityStatus: Equatable, Sendable {
        /// Not known yet (or netlink cannot be read).
        case unknown
        /// No default route through an interface that is up.
        case notReachable
        /// Reachable over this connection type.
        case reachable(ConnectionType)

        /// How the network is reached.
        public enum ConnectionType: Sendable {
            /// Any non-cellular interface (Ethernet, Wi-Fi, tunnels; on Linux, every interface).
            case ethernetOrWiFi
            /// A cellular interface; never reported on Linux.
            case cellular
        }

        init(_ path: NWPath) {
            self = path.status == .satisfied ? .reachable(.ethernetOrWiFi) : .notReachable
        }
    }

    /// Called with each new status on the listener queue.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// A shared manager for the default route; nil only if netlink cannot be opened.
    public static let `default` = NetworkReachabilityManager()

    /// Whether the network is reachable now (over any interface).
    open var isReachable: Bool { isReachableOnCellular || isReachableOnEthernetOrWiFi }

    /// Always `false` on Linux: rtnetlink does not identify cellular interfaces.
    open var isReachableOnCellular: Bool { status == .reachable(.cellular) }

    /// Whether the network is reachable over a non-cellular interface (on Linux: reachable at all).
    open var isReachableOnEthernetOrWiFi: Bool { status == .reachable(.ethernetOrWiFi) }

    /// The serial queue on which the monitor's updates are turned into statuses.
    public let reachabilityQueue = DispatchQueue(label: "org.lariat.reachabilityQueue")

    /// The current status: the listener's latest while listening, else a fresh one-off check.
    open var status: NetworkReachabilityStatus {
        if let current = listening.withLock({ $0?.status }) { return current }
        return NWPathMonitor.snapshot().map(NetworkReachabilityStatus.init) ?? .unknown
    }

    private struct Listening {
        let monitor: NWPathMonitor
        var status: NetworkReachabilityStatus
    }

    private let listening = Mutex<Listening?>(nil)
    /// The loop the monitor's socket lives on (tests: a loop inside a network namespace).
    private let monitorLoop: EventLoop?

    /// A manager for `host`. On Linux the host is not consulted: reachability is that of the
    /// default route (see the file header).
    ///
    /// - Parameter host: A host name; an empty one yields nil.
    public convenience init?(host: String) {
        guard !host.isEmpty else { return nil }
        self.init()
    }

    /// A manager for the default route (Apple: the zero address). Nil if netlink cannot be read.
    public convenience init?() {
        guard Self.netlinkAvailable else { return nil }
        self.init(monitorLoop: nil)
    }

    /// A manager whose monitor opens its socket on `monitorLoop` (the shared group's if nil).
    init(monitorLoop: EventLoop?) {
        self.monitorLoop = monitorLoop
    }

    deinit { stopListening() }

    /// Starts watching and calls `listener` on `queue` with each new status (the first soon after).
    /// Calling it again replaces the listener.
    ///
    /// - Parameters:
    ///   - queue: Where `listener` runs (default: main).
    ///   - listener: The closure told about each status.
    /// - Returns: `true` (the monitor opens its socket asynchronously and retries on failure).
    @discardableResult
    open func startListening(onQueue queue: DispatchQueue = .main, onUpdatePerforming listener: @escaping Listener) -> Bool {
        stopListening()
        let monitor = monitorLoop.map { NWPathMonitor(loop: $0) } ?? NWPathMonitor()
        monitor.pathUpdateHandler = { [weak self, weak monitor] path in
            let status = NetworkReachabilityStatus(path)
            guard let self, let monitor, self.listening.withLock({ state -> Bool in
                guard state?.monitor === monitor else { return false }
                state?.status = status
                return true
            }) else { return }
            queue.async { listener(status) }
        }
        listening.withLock { $0 = Listening(monitor: monitor, status: .unknown) }
        monitor.start(queue: reachabilityQueue)
        return true
    }

    /// Stops watching; the listener is not called again.
    open func stopListening() {
        let monitor = listening.withLock { state -> NWPathMonitor? in
            defer { state = nil }
            return state?.monitor
        }
        monitor?.cancel()
    }

    /// Whether this process can open a NETLINK_ROUTE socket (filtered in some sandboxes).
    private static var netlinkAvailable: Bool { NWPathMonitor.netlinkAvailable }
}
