// Builds rtnetlink messages as bytes, laid out as linux/rtnetlink.h defines them (host byte order).
@testable import EventLoop

enum NetlinkFixture {
    /// One attribute: rtattr header, value, padding to 4.
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = le(UInt16(4 + value.count)) + le(type) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func string(_ type: UInt16, _ text: String) -> [UInt8] { attribute(type, Array(text.utf8) + [0]) }
    static func u32(_ type: UInt16, _ value: UInt32) -> [UInt8] { attribute(type, le(value)) }

    /// A whole message: nlmsghdr + payload, padded to 4.
    static func message(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        var bytes = le(UInt32(16 + payload.count)) + le(type) + le(flags) + le(sequence) + le(UInt32(0)) + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    /// RTM_NEWLINK / RTM_DELLINK: ifinfomsg + IFLA_IFNAME (+ IFLA_LINKINFO/IFLA_INFO_KIND).
    static func link(
        _ type: UInt16 = Netlink.newLink, index: Int32, hardware: UInt16 = 1, flags: UInt32 = 0x1 | 0x40 | 0x10000,
        name: String? = "eth0", kind: String? = nil, sequence: UInt32 = 0
    ) -> [UInt8] {
        var payload: [UInt8] = [0, 0] + le(hardware) + le(UInt32(bitPattern: index)) + le(flags) + le(UInt32(0xFFFF_FFFF))
        payload += u32(4, 1500)  // IFLA_MTU, skipped
        if let name { payload += string(3, name) }
        if let kind { payload += attribute(18 | 0x8000, string(1, kind)) }  // nested flag set, as the kernel does
        return message(type: type, sequence: sequence, payload)
    }

    /// RTM_NEWADDR / RTM_DELADDR: ifaddrmsg + IFA_ADDRESS + IFA_LOCAL.
    static func address(_ type: UInt16 = Netlink.newAddress, family: UInt8 = 2, index: Int32, address: [UInt8], prefix: UInt8 = 24) -> [UInt8] {
        let payload: [UInt8] = [family, prefix, 0x80, 0] + le(UInt32(bitPattern: index)) + attribute(1, address) + attribute(2, address)
        return message(type: type, payload)
    }

    /// RTM_NEWROUTE / RTM_DELROUTE: rtmsg + RTA_TABLE + RTA_GATEWAY + RTA_OIF (+ RTA_PRIORITY).
    static func route(
        _ type: UInt16 = Netlink.newRoute, family: UInt8 = 2, destinationLength: UInt8 = 0, table: UInt8 = 254,
        routeType: UInt8 = 1, interface: Int32?, priority: UInt32? = nil, multipath: [Int32] = [], sequence: UInt32 = 0
    ) -> [UInt8] {
        var payload: [UInt8] = [family, destinationLength, 0, 0, table, 4, 0, routeType] + le(UInt32(0))
        payload += u32(15, UInt32(table))
        payload += attribute(5, family == 2 ? [10, 0, 0, 1] : [UInt8](repeating: 0xfe, count: 16))
        if let interface { payload += u32(4, UInt32(bitPattern: interface)) }
        if let priority { payload += u32(6, priority) }
        if !multipath.isEmpty {
            let hops = multipath.flatMap { (hop: Int32) -> [UInt8] in le(UInt16(8)) + [0, 0] + le(UInt32(bitPattern: hop)) }
            payload += attribute(9, hops)
        }
        return message(type: type, sequence: sequence, payload)
    }

    static func done(sequence: UInt32) -> [UInt8] { message(type: 3, flags: 2, sequence: sequence, le(UInt32(0))) }
    static func error(_ code: Int32, sequence: UInt32) -> [UInt8] {
        message(type: 2, sequence: sequence, le(UInt32(bitPattern: code)) + [UInt8](repeating: 0, count: 16))
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
}
