// NWPathMonitor on rtnetlink: the Linux stand-in for Network.framework's monitor.
//
// Threading: the public object is shared (a Mutex guards handler, queue, path and phase). The
// driver (socket + state machine) lives on one EventLoop of the shared group and is touched only
// there. Updates are delivered on the queue given to `start(queue:)`, never under the lock.
// Failure handling: a lost socket (ENOBUFS overrun, malformed datagram, failed dump) is closed and
// a new one opened 200 ms later, with the three dumps run again; the last path stands meanwhile.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import EventLoop
import Glibc
import Synchronization

/// Watches the network path (default routes and interfaces) through rtnetlink and reports
/// changes, like Network.framework's `NWPathMonitor`.
///
/// The path is ``NWPath/Status-swift.enum/satisfied`` when a default route (IPv4 or IPv6) exists
/// through an interface that is up and running. Start it once; after ``cancel()`` it stays stopped.
public final class NWPathMonitor: @unchecked Sendable {
    // @unchecked Sendable: mutable state is in `state` (a Mutex); `driver` is only read and
    // written on `loop` (every access is inside `loop.execute`).

    private enum Phase { case idle, running, cancelled }
    private struct State {
        var phase = Phase.idle
        var handler: (@Sendable (NWPath) -> Void)?
        var queue: DispatchQueue?
        var path = NWPath(status: .unsatisfied, availableInterfaceTypes: [])
        var hasPath = false
    }

    /// Only paths over this interface type count (nil: any).
    public let requiredInterfaceType: NWInterface.InterfaceType?
    /// Interfaces of these types do not count.
    public let prohibitedInterfaceTypes: [NWInterface.InterfaceType]

    private let state = Mutex(State())
    private let loop: EventLoop
    private var driver: PathMonitorDriver?

    /// A monitor of every interface type.
    public convenience init() { self.init(required: nil, prohibited: []) }

    /// A monitor whose path is satisfied only over interfaces of `requiredInterfaceType`.
    ///
    /// - Parameter requiredInterfaceType: The interface type that must carry the path.
    public convenience init(requiredInterfaceType: NWInterface.InterfaceType) {
        self.init(required: requiredInterfaceType, prohibited: [])
    }

    /// A monitor that ignores interfaces of the given types.
    ///
    /// - Parameter prohibitedInterfaceTypes: Interface types that never satisfy the path.
    public convenience init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        self.init(required: nil, prohibited: prohibitedInterfaceTypes)
    }

    /// A monitor whose socket is opened on `loop` (tests: a loop whose thread entered another
    /// network namespace, so the socket watches that namespace).
    init(required: NWInterface.InterfaceType? = nil, prohibited: [NWInterface.InterfaceType] = [], loop: EventLoop = EventLoopGroup.shared.next()) {
        requiredInterfaceType = required
        prohibitedInterfaceTypes = prohibited
        self.loop = loop
    }

    /// Called on the start queue with each new path (the first once the initial dumps are read).
    public var pathUpdateHandler: (@Sendable (NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// The latest path; `.unsatisfied` with no interfaces until the first update.
    public var currentPath: NWPath { state.withLock { $0.path } }

    /// The queue given to ``start(queue:)``, nil before.
    public var queue: DispatchQueue? { state.withLock { $0.queue } }

    /// Opens the netlink socket and starts delivering updates on `queue`. Only the first call counts.
    ///
    /// - Parameter queue: Where ``pathUpdateHandler`` runs.
    public func start(queue: DispatchQueue) {
        let starts = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            state.queue = queue
            return true
        }
        guard starts else { return }
        loop.execute { [self] in
            let driver = PathMonitorDriver(loop: loop) { [weak self] status in self?.received(status) }
            self.driver = driver
            driver.open()
        }
    }

    /// Stops monitoring and closes the socket; no update is delivered after it returns to its queue.
    public func cancel() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.phase = .cancelled }
            return state.phase == .running
        }
        guard wasRunning else { return }
        loop.execute { [self] in
            driver?.stop()
            driver = nil
        }
    }

    /// A verdict from the driver (on the loop): filter, store, and deliver if it changed.
    private func received(_ status: PathStatus) {
        let path = NWPath(status, required: requiredInterfaceType, prohibited: prohibitedInterfaceTypes)
        let delivery = state.withLock { state -> (DispatchQueue, (@Sendable (NWPath) -> Void)?)? in
            guard state.phase == .running, !(state.hasPath && state.path == path), let queue = state.queue else { return nil }
            state.path = path
            state.hasPath = true
            return (queue, state.handler)
        }
        guard let (queue, handler) = delivery, let handler else { return }
        queue.async { [weak self] in
            guard self?.state.withLock({ $0.phase == .running }) == true else { return }
            handler(path)
        }
    }

    /// A blocking one-off check without a monitor (reads netlink on the calling thread, at most ~2 s).
    ///
    /// - Returns: The path now, or nil if netlink cannot be read.
    static func snapshot() -> NWPath? {
        guard let status = NetlinkSnapshot.pathStatus(isWireless: { interfaceIsWireless(named: $1) }) else { return nil }
        return NWPath(status, required: nil, prohibited: [])
    }
}

/// Whether a path exists (`access(F_OK)`); used for sysfs flags.
func sysfsEntryExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The loop-confined half of ``NWPathMonitor``: one netlink socket and its state machine.
final class PathMonitorDriver {
    private let loop: EventLoop
    private let publish: (PathStatus) -> Void
    private var machine = PathMonitorStateMachine()
    private var socket: NetlinkRouteSocket?
    private var stopped = false

    init(loop: EventLoop, publish: @escaping (PathStatus) -> Void) {
        self.loop = loop
        self.publish = publish
    }

    /// Opens a socket and runs the initial dumps; on failure tries again later.
    func open() {
        guard !stopped else { return }
        machine = PathMonitorStateMachine()
        do {
            socket = try NetlinkRouteSocket(on: loop, groups: Netlink.monitorGroups) { [weak self] event in
                self?.handle(event)
            }
        } catch {
            return reopenLater()
        }
        perform(machine.start())
    }

    /// Closes the socket for good.
    func stop() {
        stopped = true
        socket?.close()
        socket = nil
    }

    private func handle(_ event: NetlinkSocketEvent) {
        switch event {
        case .messages(let messages): perform(machine.received(messages))
        case .malformed, .lost: reopenLater()
        }
    }

    private func reopenLater() {
        socket?.close()
        socket = nil
        guard !stopped else { return }
        loop.scheduleTimer(after: .milliseconds(200)) { [weak self] in self?.open() }
    }

    private func perform(_ actions: [PathMonitorStateMachine.Action]) {
        for action in actions {
            switch action {
            case .sendDump(let type, let sequence):
                do { try socket?.send(Netlink.dumpRequest(type: type, sequence: sequence)) } catch { return reopenLater() }
            case .checkWireless(let index, let name):
                perform(machine.wirelessChecked(index: index, isWireless: interfaceIsWireless(named: name)))
            case .publish(let status):
                publish(status)
            case .fail:
                return reopenLater()
            }
        }
    }
}

extension NWPathMonitor {
    /// Whether a NETLINK_ROUTE socket can be opened here (closed at once).
    static var netlinkAvailable: Bool {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
