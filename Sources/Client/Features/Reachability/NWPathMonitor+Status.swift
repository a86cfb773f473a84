import EventLoop

extension NWPath {
    /// The path the monitor's verdict implies, after the monitor's interface filters.
    ///
    /// - Parameters:
    ///   - status: The state machine's verdict.
    ///   - required: Only paths over this type count, if set.
    ///   - prohibited: Interfaces of these types do not count.
    init(_ status: PathStatus, required: NWInterface.InterfaceType?, prohibited: [NWInterface.InterfaceType]) {
        guard case .satisfied(let kinds) = status else {
            self.init(status: .unsatisfied, availableInterfaceTypes: [])
            return
        }
        var types: [NWInterface.InterfaceType] = []
        for kind in kinds {
            let type = Self.interfaceType(of: kind)
            if !types.contains(type) { types.append(type) }
        }
        types.removeAll { prohibited.contains($0) }
        if let required { types.removeAll { $0 != required } }
        self.init(status: types.isEmpty ? .unsatisfied : .satisfied, availableInterfaceTypes: types)
    }

    static func interfaceType(of kind: InterfaceKind) -> NWInterface.InterfaceType {
        switch kind {
        case .wifi: .wifi
        case .ethernet: .wiredEthernet
        case .loopback: .loopback
        case .tunnel, .other: .other
        }
    }
}

/// Reads `/sys/class/net/NAME/wireless`: present only for Wi-Fi (cfg80211/wext) interfaces.
///
/// - Parameter name: An interface name from the kernel (rejected if it could leave the directory).
/// - Returns: Whether the interface is wireless.
func interfaceIsWireless(named name: String) -> Bool {
    guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else { return false }
    return sysfsEntryExists("/sys/class/net/\(name)/wireless")
}
