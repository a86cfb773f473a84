// NetlinkParser: a sans-I/O reader of rtnetlink datagrams (RFC 3549, linux/netlink.h,
// linux/rtnetlink.h). Standard library only: no sockets, no Glibc.
//
// A datagram is a run of messages, each a 16-byte `nlmsghdr` (len u32, type u16, flags u16,
// seq u32, pid u32) and a payload, padded to 4 bytes. Link, address and route payloads are a
// fixed header (`ifinfomsg` 16 bytes, `ifaddrmsg` 8, `rtmsg` 12) followed by `rtattr`s
// (len u16, type u16, value, padded to 4). Every length is checked against what is left before
// anything is read; a lie is a typed error naming the byte offset, never a trap or an over-read.
// Integers are in host byte order (netlink never leaves the machine).

/// rtnetlink numbers this module reads (values from linux/netlink.h, rtnetlink.h, if_arp.h).
package enum Netlink {
    static let headerSize = 16
    static let messageDone: UInt16 = 3
    static let messageError: UInt16 = 2
    static let messageOverrun: UInt16 = 4
    package static let newLink: UInt16 = 16
    package static let deleteLink: UInt16 = 17
    package static let getLink: UInt16 = 18
    package static let newAddress: UInt16 = 20
    package static let deleteAddress: UInt16 = 21
    package static let getAddress: UInt16 = 22
    package static let newRoute: UInt16 = 24
    package static let deleteRoute: UInt16 = 25
    package static let getRoute: UInt16 = 26
    /// `NLM_F_REQUEST | NLM_F_DUMP` (`NLM_F_ROOT | NLM_F_MATCH`).
    package static let dumpRequestFlags: UInt16 = 0x1 | 0x100 | 0x200
    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE`.
    package static let monitorGroups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    package static let familyUnspecified: UInt8 = 0
    package static let familyIPv4: UInt8 = 2
    package static let familyIPv6: UInt8 = 10
    /// `IFF_UP`, `IFF_RUNNING` (operational: carrier present).
    package static let flagUp: UInt32 = 0x1
    package static let flagRunning: UInt32 = 0x40
    /// `RTN_UNICAST`, `RT_TABLE_MAIN`.
    package static let routeTypeUnicast: UInt8 = 1
    package static let tableMain: UInt32 = 254

    /// A dump request: `nlmsghdr` + a 16-byte payload (an `rtgenmsg` padded to `ifinfomsg` size, which
    /// every rtnetlink dump handler accepts) asking for every object of `type` in `family`.
    package static func dumpRequest(type: UInt16, sequence: UInt32, family: UInt8 = familyUnspecified) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        append(UInt32(32), to: &bytes)
        append(type, to: &bytes)
        append(dumpRequestFlags, to: &bytes)
        append(sequence, to: &bytes)
        append(UInt32(0), to: &bytes)
        bytes.append(family)
        bytes.append(contentsOf: repeatElement(0, count: 15))
        return bytes
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }
}

/// A network interface as an `RTM_NEWLINK`/`RTM_DELLINK` message describes it.
package struct NetlinkLink: Hashable, Sendable {
    /// `ifi_index`.
    package var index: Int32
    /// `ifi_type`, an `ARPHRD_*` value.
    package var hardwareType: UInt16
    /// `ifi_flags` (`IFF_*`).
    package var flags: UInt32
    /// `IFLA_IFNAME`, if present.
    package var name: String?
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO` (`veth`, `wireguard`, `tun`…), if present.
    package var kind: String?

    package init(index: Int32, hardwareType: UInt16, flags: UInt32, name: String?, kind: String?) {
        self.index = index
        self.hardwareType = hardwareType
        self.flags = flags
        self.name = name
        self.kind = kind
    }
}

/// An interface address from `RTM_NEWADDR`/`RTM_DELADDR`.
package struct NetlinkAddress: Hashable, Sendable {
    /// `ifa_family`.
    package var family: UInt8
    /// `ifa_index`.
    package var interfaceIndex: Int32
    /// `ifa_prefixlen`.
    package var prefixLength: UInt8
    /// `IFA_LOCAL`, else `IFA_ADDRESS` (4 or 16 bytes), empty if neither is present.
    package var address: [UInt8]

    package init(family: UInt8, interfaceIndex: Int32, prefixLength: UInt8, address: [UInt8]) {
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.prefixLength = prefixLength
        self.address = address
    }
}

/// A route from `RTM_NEWROUTE`/`RTM_DELROUTE`, reduced to what path evaluation needs.
package struct NetlinkRoute: Hashable, Sendable {
    /// `rtm_family`.
    package var family: UInt8
    /// `rtm_dst_len`: 0 for a default route.
    package var destinationLength: UInt8
    /// `RTA_TABLE`, else `rtm_table`.
    package var table: UInt32
    /// `rtm_type` (`RTN_UNICAST` = 1 for a usable route).
    package var type: UInt8
    /// `RTA_PRIORITY` (the metric), 0 if absent.
    package var priority: UInt32
    /// `RTA_OIF`, plus every `rtnh_ifindex` of `RTA_MULTIPATH`.
    package var outputInterfaces: [Int32]

    package init(family: UInt8, destinationLength: UInt8, table: UInt32, type: UInt8, priority: UInt32, outputInterfaces: [Int32]) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.priority = priority
        self.outputInterfaces = outputInterfaces
    }

    /// A unicast route to everywhere (`0.0.0.0/0` or `::/0`) in the main table.
    package var isDefault: Bool {
        destinationLength == 0 && type == Netlink.routeTypeUnicast && table == Netlink.tableMain
    }
}

/// One decoded netlink message.
package enum NetlinkMessage: Hashable, Sendable {
    case newLink(NetlinkLink)
    case deleteLink(NetlinkLink)
    case newAddress(NetlinkAddress)
    case deleteAddress(NetlinkAddress)
    case newRoute(NetlinkRoute)
    case deleteRoute(NetlinkRoute)
    /// `NLMSG_DONE`: the dump with this sequence number is complete.
    case done(sequence: UInt32)
    /// `NLMSG_ERROR`: `code` is 0 for an acknowledgement, else a negative errno.
    case error(code: Int32, sequence: UInt32)
    /// `NLMSG_OVERRUN`, or any type this parser does not read (skipped by length).
    case other(type: UInt16)
}

/// Why a datagram could not be decoded. `offset` is the byte where the problem starts.
package enum NetlinkParseError: Error, Hashable, Sendable {
    /// Fewer than 16 bytes left where a message header should start.
    case truncatedHeader(offset: Int)
    /// `nlmsg_len` is below 16 or beyond the end of the datagram.
    case badMessageLength(offset: Int, length: Int)
    /// The payload is shorter than the fixed header its type requires.
    case truncatedPayload(offset: Int, type: UInt16)
    /// An `rtattr` length is below 4 or runs past its message (or enclosing attribute).
    case badAttributeLength(offset: Int, length: Int)
}

/// Decodes rtnetlink datagrams; see the file header.
package enum NetlinkParser {
    /// Decodes every message of one datagram.
    ///
    /// - Parameter datagram: The bytes one `recv` returned.
    /// - Returns: The messages in order.
    /// - Throws: ``NetlinkParseError`` on any length that does not fit.
    package static func parse(_ datagram: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        while offset < datagram.count {
            guard datagram.count - offset >= Netlink.headerSize else { throw .truncatedHeader(offset: offset) }
            let length = Int(u32(datagram, offset))
            guard length >= Netlink.headerSize, length <= datagram.count - offset else {
                throw .badMessageLength(offset: offset, length: length)
            }
            let type = u16(datagram, offset + 4)
            let sequence = u32(datagram, offset + 8)
            let payload = offset + Netlink.headerSize..<offset + length
            messages.append(try message(type: type, sequence: sequence, payload: payload, in: datagram))
            offset += min(aligned(length), datagram.count - offset)
        }
        return messages
    }

    /// Decodes a datagram held in an array (tests, recorded fixtures).
    package static func parse(_ datagram: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        let result = datagram.withUnsafeBytes { bytes in Result { () throws(NetlinkParseError) in try parse(bytes) } }
        return try result.get()
    }

    private static func message(
        type: UInt16, sequence: UInt32, payload: Range<Int>, in bytes: UnsafeRawBufferPointer
    ) throws(NetlinkParseError) -> NetlinkMessage {
        func need(_ size: Int) throws(NetlinkParseError) {
            guard payload.count >= size else { throw .truncatedPayload(offset: payload.lowerBound, type: type) }
        }
        switch type {
        case Netlink.messageDone:
            return .done(sequence: sequence)
        case Netlink.messageError:
            try need(4)
            return .error(code: Int32(bitPattern: u32(bytes, payload.lowerBound)), sequence: sequence)
        case Netlink.newLink, Netlink.deleteLink:
            try need(16)
            let link = try parseLink(payload, in: bytes)
            return type == Netlink.newLink ? .newLink(link) : .deleteLink(link)
        case Netlink.newAddress, Netlink.deleteAddress:
            try need(8)
            let address = try parseAddress(payload, in: bytes)
            return type == Netlink.newAddress ? .newAddress(address) : .deleteAddress(address)
        case Netlink.newRoute, Netlink.deleteRoute:
            try need(12)
            let route = try parseRoute(payload, in: bytes)
            return type == Netlink.newRoute ? .newRoute(route) : .deleteRoute(route)
        default:
            return .other(type: type)
        }
    }

    private static func parseLink(_ payload: Range<Int>, in bytes: UnsafeRawBufferPointer) throws(NetlinkParseError) -> NetlinkLink {
        let base = payload.lowerBound
        var link = NetlinkLink(
            index: Int32(bitPattern: u32(bytes, base + 4)), hardwareType: u16(bytes, base + 2),
            flags: u32(bytes, base + 8), name: nil, kind: nil)
        try forEachAttribute(in: base + 16..<payload.upperBound, of: bytes) { (type, value) throws(NetlinkParseError) in
            switch type {
            case 3: link.name = string(value, in: bytes)  // IFLA_IFNAME
            case 18:  // IFLA_LINKINFO, nested
                try forEachAttribute(in: value, of: bytes) { (inner, innerValue) throws(NetlinkParseError) in
                    if inner == 1 { link.kind = string(innerValue, in: bytes) }  // IFLA_INFO_KIND
                }
            default: break
            }
        }
        return link
    }

    private static func parseAddress(_ payload: Range<Int>, in bytes: UnsafeRawBufferPointer) throws(NetlinkParseError) -> NetlinkAddress {
        let base = payload.lowerBound
        var address = NetlinkAddress(
            family: bytes[base], interfaceIndex: Int32(bitPattern: u32(bytes, base + 4)),
            prefixLength: bytes[base + 1], address: [])
        var local: [UInt8]?
        try forEachAttribute(in: base + 8..<payload.upperBound, of: bytes) { (type, value) throws(NetlinkParseError) in
            switch type {
            case 1: address.address = Array(bytes[value])  // IFA_ADDRESS
            case 2: local = Array(bytes[value])  // IFA_LOCAL
            default: break
            }
        }
        if let local { address.address = local }
        return address
    }

    private static func parseRoute(_ payload: Range<Int>, in bytes: UnsafeRawBufferPointer) throws(NetlinkParseError) -> NetlinkRoute {
        let base = payload.lowerBound
        var route = NetlinkRoute(
            family: bytes[base], destinationLength: bytes[base + 1], table: UInt32(bytes[base + 4]),
            type: bytes[base + 7], priority: 0, outputInterfaces: [])
        try forEachAttribute(in: base + 12..<payload.upperBound, of: bytes) { (type, value) throws(NetlinkParseError) in
            switch type {
            case 4 where value.count >= 4: route.outputInterfaces.append(Int32(bitPattern: u32(bytes, value.lowerBound)))  // RTA_OIF
            case 6 where value.count >= 4: route.priority = u32(bytes, value.lowerBound)  // RTA_PRIORITY
            case 15 where value.count >= 4: route.table = u32(bytes, value.lowerBound)  // RTA_TABLE
            case 9: route.outputInterfaces += try nextHops(value, in: bytes)  // RTA_MULTIPATH
            default: break
            }
        }
        return route
    }

    /// The interfaces of an `RTA_MULTIPATH` value: `rtnexthop`s (len u16, flags u8, hops u8,
    /// ifindex i32, then attributes), each padded to 4.
    private static func nextHops(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [Int32] {
        var interfaces: [Int32] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 8 {
            let length = Int(u16(bytes, offset))
            guard length >= 8, length <= range.upperBound - offset else { throw .badAttributeLength(offset: offset, length: length) }
            interfaces.append(Int32(bitPattern: u32(bytes, offset + 4)))
            offset += min(aligned(length), range.upperBound - offset)
        }
        return interfaces
    }

    /// Calls `body(type, valueRange)` for each `rtattr` in `range`. The type has
    /// `NLA_F_NESTED`/`NLA_F_NET_BYTEORDER` masked off. Fewer than 4 trailing bytes are padding.
    private static func forEachAttribute(
        in range: Range<Int>, of bytes: UnsafeRawBufferPointer,
        _ body: (UInt16, Range<Int>) throws(NetlinkParseError) -> Void
    ) throws(NetlinkParseError) {
        var offset = range.lowerBound
        while range.upperBound - offset >= 4 {
            let length = Int(u16(bytes, offset))
            guard length >= 4, length <= range.upperBound - offset else { throw .badAttributeLength(offset: offset, length: length) }
            try body(u16(bytes, offset + 2) & 0x3FFF, offset + 4..<offset + length)
            offset += min(aligned(length), range.upperBound - offset)
        }
    }

    /// A NUL-terminated (or unterminated) string value; invalid UTF-8 is repaired.
    private static func string(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> String {
        let slice = bytes[range]
        let end = slice.firstIndex(of: 0) ?? range.upperBound
        return String(decoding: bytes[range.lowerBound..<end], as: UTF8.self)
    }

    private static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }

    // Callers have bounds-checked `offset` against the datagram; these only assemble bytes.
    private static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    private static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }
}
