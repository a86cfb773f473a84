// NetlinkParser: decoded fields per message type, and bounds checks on every truncation and lie.
@testable import EventLoop
import Testing

extension EventLoopTests {
    @Suite struct NetlinkParserTests {
        typealias F = NetlinkFixture

        /// (scenario, datagram, expected messages)
        static let table: [(String, [UInt8], [NetlinkMessage])] = [
            ("ethernet link up with name", F.link(index: 2, name: "eth0"),
             [.newLink(NetlinkLink(index: 2, hardwareType: 1, flags: 0x10041, name: "eth0", kind: nil))]),
            ("veth link with nested IFLA_LINKINFO kind", F.link(index: 7, name: "veth-a", kind: "veth"),
             [.newLink(NetlinkLink(index: 7, hardwareType: 1, flags: 0x10041, name: "veth-a", kind: "veth"))]),
            ("loopback link", F.link(index: 1, hardware: 772, flags: 0x49, name: "lo"),
             [.newLink(NetlinkLink(index: 1, hardwareType: 772, flags: 0x49, name: "lo", kind: nil))]),
            ("link deleted, no name", F.link(Netlink.deleteLink, index: 9, flags: 0, name: nil),
             [.deleteLink(NetlinkLink(index: 9, hardwareType: 1, flags: 0, name: nil, kind: nil))]),
            ("IPv4 address", F.address(index: 2, address: [10, 0, 0, 2]),
             [.newAddress(NetlinkAddress(family: 2, interfaceIndex: 2, prefixLength: 24, address: [10, 0, 0, 2]))]),
            ("IPv6 address removed", F.address(Netlink.deleteAddress, family: 10, index: 3, address: [UInt8](repeating: 1, count: 16), prefix: 64),
             [.deleteAddress(NetlinkAddress(family: 10, interfaceIndex: 3, prefixLength: 64, address: [UInt8](repeating: 1, count: 16)))]),
            ("IPv4 default route", F.route(interface: 2, priority: 100),
             [.newRoute(NetlinkRoute(family: 2, destinationLength: 0, table: 254, type: 1, priority: 100, outputInterfaces: [2]))]),
            ("IPv6 default route removed", F.route(Netlink.deleteRoute, family: 10, interface: 4),
             [.deleteRoute(NetlinkRoute(family: 10, destinationLength: 0, table: 254, type: 1, priority: 0, outputInterfaces: [4]))]),
            ("multipath default route", F.route(interface: nil, multipath: [2, 5]),
             [.newRoute(NetlinkRoute(family: 2, destinationLength: 0, table: 254, type: 1, priority: 0, outputInterfaces: [2, 5]))]),
            ("local table route", F.route(destinationLength: 32, table: 255, routeType: 2, interface: 1),
             [.newRoute(NetlinkRoute(family: 2, destinationLength: 32, table: 255, type: 2, priority: 0, outputInterfaces: [1]))]),
            ("dump done", F.done(sequence: 42), [.done(sequence: 42)]),
            ("dump error EBUSY", F.error(-16, sequence: 3), [.error(code: -16, sequence: 3)]),
            ("unknown type skipped by length", F.message(type: 0x99, [1, 2, 3, 4, 5]), [.other(type: 0x99)]),
            ("two messages in one datagram", F.link(index: 2) + F.route(interface: 2),
             [.newLink(NetlinkLink(index: 2, hardwareType: 1, flags: 0x10041, name: "eth0", kind: nil)),
              .newRoute(NetlinkRoute(family: 2, destinationLength: 0, table: 254, type: 1, priority: 0, outputInterfaces: [2]))]),
            ("empty datagram", [], []),
        ]

        @Test(arguments: 0..<table.count)
        func decodes(_ row: Int) throws {
            let (name, bytes, expected) = Self.table[row]
            #expect(try NetlinkParser.parse(bytes) == expected, "\(name)")
        }

        /// Every message cut at every length is a typed error, never a crash or a partial message.
        @Test(arguments: 0..<table.count)
        func everyTruncationIsAnError(_ row: Int) {
            let (name, bytes, expected) = Self.table[row]
            guard expected.count == 1 else { return }  // a cut between messages is a valid datagram
            // Cuts inside the final 4-byte padding (at or past nlmsg_len) still hold the whole message.
            let declared = bytes.count >= 4 ? Int(bytes[0]) | Int(bytes[1]) << 8 : 1
            for cut in 1..<max(declared, 1) {
                #expect(throws: NetlinkParseError.self, "\(name) cut at \(cut)") { try NetlinkParser.parse(Array(bytes[0..<cut])) }
            }
        }

        /// Split between two messages: the first alone decodes; the remainder alone decodes too.
        @Test func splitAtMessageBoundary() throws {
            let first = F.link(index: 2), second = F.route(interface: 2)
            #expect(try NetlinkParser.parse(first).count == 1)
            #expect(try NetlinkParser.parse(second).count == 1)
            #expect(try NetlinkParser.parse(first + second).count == 2)
        }

        /// Specific lies, each with the error naming where it starts.
        @Test func malformedTable() {
            var shortLength = F.link(index: 2)
            shortLength.replaceSubrange(0..<4, with: F.le(UInt32(8)))
            var longLength = F.link(index: 2)
            longLength.replaceSubrange(0..<4, with: F.le(UInt32(longLength.count + 4)))
            var attributeOverrun = F.link(index: 2, name: nil)
            attributeOverrun.replaceSubrange(32..<34, with: F.le(UInt16(200)))  // IFLA_MTU at 16 + 16
            var attributeTooShort = F.link(index: 2, name: nil)
            attributeTooShort.replaceSubrange(32..<34, with: F.le(UInt16(2)))
            let shortRoute = F.message(type: Netlink.newRoute, [2, 0, 0, 0, 254, 0, 0, 1])  // rtmsg is 12
            var badNextHop = F.route(interface: nil, multipath: [2])
            badNextHop.replaceSubrange(badNextHop.count - 8..<badNextHop.count - 6, with: F.le(UInt16(40)))
            let rows: [(String, [UInt8], NetlinkParseError)] = [
                ("header cut", Array(F.done(sequence: 1)[0..<10]), .truncatedHeader(offset: 0)),
                ("nlmsg_len below header", shortLength, .badMessageLength(offset: 0, length: 8)),
                ("nlmsg_len past datagram", longLength, .badMessageLength(offset: 0, length: longLength.count + 4)),
                ("rtattr past message", attributeOverrun, .badAttributeLength(offset: 32, length: 200)),
                ("rtattr below 4", attributeTooShort, .badAttributeLength(offset: 32, length: 2)),
                ("rtmsg truncated", shortRoute, .truncatedPayload(offset: 16, type: Netlink.newRoute)),
                ("rtnexthop past attribute", badNextHop, .badAttributeLength(offset: badNextHop.count - 8, length: 40)),
                ("second message header cut", F.done(sequence: 1) + [1, 2, 3], .truncatedHeader(offset: 20)),
            ]
            for (name, bytes, expected) in rows {
                #expect(throws: expected, "\(name)") { try NetlinkParser.parse(bytes) }
            }
        }

        /// Overwrites every byte of every fixture with boundary values: the parser must throw or
        /// decode, never read out of bounds (debug builds trap on any out-of-range load).
        @Test func byteSweepNeverCrashes() {
            var decoded = 0, rejected = 0
            for (_, bytes, _) in Self.table where !bytes.isEmpty {
                for index in bytes.indices {
                    for value: UInt8 in [0, 1, 3, 4, 0x7F, 0xFF] {
                        var mutated = bytes
                        mutated[index] = value
                        if (try? NetlinkParser.parse(mutated)) != nil { decoded += 1 } else { rejected += 1 }
                    }
                }
            }
            #expect(decoded > 0 && rejected > 0)
        }
    }
}
