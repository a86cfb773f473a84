// PathMonitorStateMachine: decides whether the machine has a usable path to the internet from
// rtnetlink messages. No I/O: decoded messages in, actions out (the driver sends dump requests,
// reads /sys and publishes statuses). Standard library only.
//
// Rule: the path is satisfied when the main table holds a default unicast route (IPv4 or IPv6,
// `dst_len` 0) through an interface that is up and running (`IFF_UP | IFF_RUNNING`). Its
// interface types are those of the interfaces carrying such routes.
//
// States (STYLE.md §3):
//   idle                      -> dumping(.links)     start()
//   dumping(stage, seq)       -> dumping(next)        NLMSG_DONE for seq: links -> addresses -> routes
//                             -> live                 NLMSG_DONE of the route dump (first publish)
//                             -> failed               NLMSG_ERROR with a non-zero code for seq
//   live                      -> dumping(.links)      resync(): the socket overran (ENOBUFS) or a
//                                                     datagram was malformed; state is rebuilt
//   failed                    terminal
// The kernel answers one dump at a time per socket, so the three dumps run in sequence.
// Notifications arriving during a dump are applied at once (they are at least as new as the
// dump's rows); nothing is published until the first route dump completes.
//
// Linux quirk handled here: when an interface is deleted or set down, IPv4 routes through it
// are flushed WITHOUT an RTM_DELROUTE, so those events drop the interface's routes themselves.

/// What kind of interface a path runs over, as far as Linux says.
package enum InterfaceKind: Int, Hashable, Sendable, Comparable {
    case wifi, ethernet, loopback, tunnel, other

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The monitor's verdict.
package enum PathStatus: Hashable, Sendable {
    /// No default route through an interface that is up.
    case unsatisfied
    /// Default routes exist through interfaces of these kinds (sorted, without duplicates).
    case satisfied([InterfaceKind])
}

/// The path decision as a state machine; see the file header.
package struct PathMonitorStateMachine: Sendable {
    /// Which dump is in flight.
    package enum DumpStage: Hashable, Sendable { case links, addresses, routes }

    /// An effect for the driver.
    package enum Action: Hashable, Sendable {
        /// Send a dump request of this `RTM_GET*` type with this sequence number.
        case sendDump(type: UInt16, sequence: UInt32)
        /// Find out whether this Ethernet-framed interface is Wi-Fi (`/sys/class/net/NAME/wireless`)
        /// and report with ``PathMonitorStateMachine/wirelessChecked(index:isWireless:)``.
        case checkWireless(index: Int32, name: String)
        /// The status changed (or is known for the first time).
        case publish(PathStatus)
        /// A dump failed with this (negative) errno; the monitor stops.
        case fail(code: Int32)
    }

    private struct Interface: Hashable, Sendable {
        var link: NetlinkLink
        var isWireless: Bool?
    }

    private struct Snapshot: Sendable {
        var interfaces: [Int32: Interface] = [:]
        var defaultRoutes: Set<NetlinkRoute> = []
        var addresses: [Int32: Set<NetlinkAddress>] = [:]
    }

    private enum State: Sendable {
        case idle
        case dumping(DumpStage, sequence: UInt32)
        case live
        case failed
    }

    private var state = State.idle
    private var snapshot = Snapshot()
    private var published: PathStatus?
    private var nextSequence: UInt32 = 1

    package init() {}

    /// The last published status, nil before the first route dump completed.
    package var status: PathStatus? { published }

    /// Number of addresses currently known on interface `index` (diagnostics and tests).
    package func addressCount(onInterface index: Int32) -> Int { snapshot.addresses[index]?.count ?? 0 }

    /// Begins the initial dumps. Only from `idle`.
    package mutating func start() -> [Action] {
        guard case .idle = state else { preconditionFailure("start() in state \(state)") }
        return [beginDump(.links)]
    }

    /// Forgets everything and dumps again (socket overrun or malformed datagram). Keeps the
    /// published status until the new route dump decides. Ignored once failed.
    package mutating func resync() -> [Action] {
        if case .failed = state { return [] }
        snapshot = Snapshot()
        return [beginDump(.links)]
    }

    /// Result of an earlier ``Action/checkWireless(index:name:)``.
    package mutating func wirelessChecked(index: Int32, isWireless: Bool) -> [Action] {
        guard snapshot.interfaces[index] != nil else { return [] }  // removed meanwhile
        snapshot.interfaces[index]?.isWireless = isWireless
        return publishIfChanged()
    }

    /// Applies one datagram's messages.
    package mutating func received(_ messages: [NetlinkMessage]) -> [Action] {
        var actions: [Action] = []
        for message in messages {
            switch message {
            case .newLink(let link): actions += apply(newLink: link)
            case .deleteLink(let link): removeInterface(link.index)
            case .newAddress(let address): snapshot.addresses[address.interfaceIndex, default: []].insert(address)
            case .deleteAddress(let address): snapshot.addresses[address.interfaceIndex]?.remove(address)
            case .newRoute(let route) where route.isDefault: snapshot.defaultRoutes.insert(route)
            case .deleteRoute(let route) where route.isDefault: snapshot.defaultRoutes.remove(route)
            case .newRoute, .deleteRoute, .other: break
            case .done(let sequence): actions += dumpDone(sequence)
            case .error(let code, let sequence): actions += dumpError(code: code, sequence: sequence)
            }
            if case .failed = state { return actions }
        }
        return actions + publishIfChanged()
    }

    // MARK: transitions

    private mutating func beginDump(_ stage: DumpStage) -> Action {
        let sequence = nextSequence
        nextSequence = nextSequence == .max ? 1 : nextSequence + 1
        state = .dumping(stage, sequence: sequence)
        let type: UInt16
        switch stage {
        case .links: type = Netlink.getLink
        case .addresses: type = Netlink.getAddress
        case .routes: type = Netlink.getRoute
        }
        return .sendDump(type: type, sequence: sequence)
    }

    private mutating func dumpDone(_ sequence: UInt32) -> [Action] {
        // A DONE for an abandoned dump (before a resync) or in `live` is stale: ignore it.
        guard case .dumping(let stage, let expected) = state, expected == sequence else { return [] }
        switch stage {
        case .links: return [beginDump(.addresses)]
        case .addresses: return [beginDump(.routes)]
        case .routes:
            state = .live
            return []
        }
    }

    private mutating func dumpError(code: Int32, sequence: UInt32) -> [Action] {
        guard code != 0, case .dumping(_, let expected) = state, expected == sequence else { return [] }
        state = .failed
        return [.fail(code: code)]
    }

    private mutating func apply(newLink link: NetlinkLink) -> [Action] {
        let previous = snapshot.interfaces[link.index]
        if link.flags & Netlink.flagUp == 0 { dropRoutes(through: link.index) }  // silent IPv4 flush
        var interface = Interface(link: link, isWireless: previous?.isWireless)
        if link.name != previous?.link.name { interface.isWireless = nil }
        snapshot.interfaces[link.index] = interface
        guard link.hardwareType == 1, interface.isWireless == nil, let name = link.name else { return [] }  // ARPHRD_ETHER
        return [.checkWireless(index: link.index, name: name)]
    }

    private mutating func removeInterface(_ index: Int32) {
        snapshot.interfaces[index] = nil
        snapshot.addresses[index] = nil
        dropRoutes(through: index)
    }

    private mutating func dropRoutes(through index: Int32) {
        snapshot.defaultRoutes = snapshot.defaultRoutes.filter { !$0.outputInterfaces.contains(index) }
    }

    private mutating func publishIfChanged() -> [Action] {
        // While (re)dumping the snapshot is incomplete: the last status stands until the route dump ends.
        guard case .live = state else { return [] }
        let current = evaluate()
        guard current != published else { return [] }
        published = current
        return [.publish(current)]
    }

    /// The status the snapshot implies (the rule in the file header).
    private func evaluate() -> PathStatus {
        var kinds = Set<InterfaceKind>()
        for route in snapshot.defaultRoutes {
            for index in route.outputInterfaces {
                guard let interface = snapshot.interfaces[index] else { continue }
                let running = Netlink.flagUp | Netlink.flagRunning
                guard interface.link.flags & running == running else { continue }
                kinds.insert(Self.kind(of: interface))
            }
        }
        return kinds.isEmpty ? .unsatisfied : .satisfied(kinds.sorted())
    }

    /// The interface's kind from its `ARPHRD_*` type, link kind and the wireless probe.
    private static func kind(of interface: Interface) -> InterfaceKind {
        switch interface.link.hardwareType {
        case 1: return interface.isWireless == true ? .wifi : .ethernet  // ARPHRD_ETHER
        case 772: return .loopback  // ARPHRD_LOOPBACK
        // ARPHRD_TUNNEL, TUNNEL6, SIT, IPGRE, IP6GRE, NONE (tun, WireGuard)
        case 768, 769, 776, 778, 823, 0xFFFE: return .tunnel
        default:
            switch interface.link.kind {
            case "tun", "wireguard", "ipip", "gre", "vti", "ip6tnl": return .tunnel
            default: return .other
            }
        }
    }
}
