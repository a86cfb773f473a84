// Stand-ins for Network.framework's path types, which do not exist on Linux, so that
// Alamofire's `OfflineRetrier(monitor:)` and code written against `NWPathMonitor` compile.
// They carry what Linux's rtnetlink can say: a status and the interface types of the path.

/// Namespace for ``NWInterface/InterfaceType`` (Network.framework's name).
public struct NWInterface: Sendable {
    private init() {}

    /// The kind of interface a path uses, as far as Linux reports it.
    public enum InterfaceType: Hashable, Sendable {
        /// A tunnel (WireGuard, tun, GRE, SIT…) or any other type.
        case other
        /// Ethernet-framed with `/sys/class/net/NAME/wireless` present.
        case wifi
        /// Never reported on Linux: rtnetlink does not mark cellular modems.
        case cellular
        /// Ethernet-framed (`ARPHRD_ETHER`), not wireless; includes veth and bridges.
        case wiredEthernet
        /// The loopback interface (`ARPHRD_LOOPBACK`).
        case loopback
    }
}

/// A snapshot of the network path, as ``NWPathMonitor`` reports it.
public struct NWPath: Hashable, Sendable {
    /// Whether the path can be used.
    public enum Status: Hashable, Sendable {
        /// A default route exists through an interface that is up (and allowed by the monitor).
        case satisfied
        /// No usable default route.
        case unsatisfied
        /// Never reported on Linux (no on-demand connections); here for source compatibility.
        case requiresConnection
    }

    /// The path's status.
    public let status: Status
    /// The types of the interfaces carrying default routes, best first (Wi-Fi, Ethernet, loopback, other).
    public let availableInterfaceTypes: [NWInterface.InterfaceType]

    /// Creates a path (the monitor and tests build these).
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - availableInterfaceTypes: The interface types carrying the path.
    public init(status: Status, availableInterfaceTypes: [NWInterface.InterfaceType]) {
        self.status = status
        self.availableInterfaceTypes = availableInterfaceTypes
    }

    /// Whether the path runs over an interface of `type`.
    ///
    /// - Parameter type: The interface type to look for.
    /// - Returns: `true` if one of ``availableInterfaceTypes`` is `type`.
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool {
        availableInterfaceTypes.contains(type)
    }

    /// Always `false` on Linux (no cellular or metered flag in rtnetlink).
    public var isExpensive: Bool { false }
    /// Always `false` on Linux (no Low Data Mode).
    public var isConstrained: Bool { false }
}
