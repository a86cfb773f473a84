// PathMonitorStateMachine: table tests, netlink bytes in, actions out, no sockets.
@testable import EventLoop
import Testing

extension EventLoopTests {
    @Suite struct NetlinkStateMachineTests {
        typealias F = NetlinkFixture
        typealias Action = PathMonitorStateMachine.Action

        /// One input to the machine.
        enum Step {
            case datagram([UInt8])
            case wireless(Int32, Bool)
            case resync
        }

        /// A machine past its three initial dumps (sequences 1, 2, 3) holding these rows.
        static func started(links: [UInt8] = [], addresses: [UInt8] = [], routes: [UInt8] = []) throws -> PathMonitorStateMachine {
            var machine = PathMonitorStateMachine()
            #expect(machine.start() == [.sendDump(type: Netlink.getLink, sequence: 1)])
            // The driver's /sys probe answers "not wireless" for every Ethernet-framed interface.
            for case .checkWireless(let index, _) in machine.received(try NetlinkParser.parse(links + F.done(sequence: 1))) {
                _ = machine.wirelessChecked(index: index, isWireless: false)
            }
            _ = machine.received(try NetlinkParser.parse(addresses + F.done(sequence: 2)))
            _ = machine.received(try NetlinkParser.parse(routes + F.done(sequence: 3)))
            return machine
        }

        static func run(_ machine: inout PathMonitorStateMachine, _ step: Step) throws -> [Action] {
            switch step {
            case .datagram(let bytes): return machine.received(try NetlinkParser.parse(bytes))
            case .wireless(let index, let value): return machine.wirelessChecked(index: index, isWireless: value)
            case .resync: return machine.resync()
            }
        }

        @Test func initialDumpsRunInSequenceAndPublishOnce() throws {
            var machine = PathMonitorStateMachine()
            let steps: [([UInt8], [Action])] = [
                (F.link(index: 1, hardware: 772, flags: 0x49, name: "lo") + F.link(index: 2, name: "eth0"),
                 [.checkWireless(index: 2, name: "eth0")]),
                (F.route(interface: 2), []),  // a live notification during the dump: applied, not published
                (F.done(sequence: 7), []),  // stale sequence: ignored
                (F.done(sequence: 1), [.sendDump(type: Netlink.getAddress, sequence: 2)]),
                (F.address(index: 2, address: [10, 0, 0, 2]) + F.done(sequence: 2), [.sendDump(type: Netlink.getRoute, sequence: 3)]),
                (F.done(sequence: 3), [.publish(.satisfied([.ethernet]))]),
            ]
            #expect(machine.start() == [.sendDump(type: Netlink.getLink, sequence: 1)])
            for (index, (bytes, expected)) in steps.enumerated() {
                #expect(machine.received(try NetlinkParser.parse(bytes)) == expected, "step \(index)")
            }
            #expect(machine.addressCount(onInterface: 2) == 1)
        }

        /// (scenario, initial links, initial routes, steps with the actions each must produce)
        static let live: [(String, [UInt8], [UInt8], [(Step, [Action])])] = [
            ("default route removed then added", F.link(index: 2), F.route(interface: 2), [
                (.datagram(F.route(Netlink.deleteRoute, interface: 2)), [.publish(.unsatisfied)]),
                (.datagram(F.route(interface: 2)), [.publish(.satisfied([.ethernet]))]),
                (.datagram(F.route(interface: 2)), []),  // duplicate: no change, no publish
            ]),
            ("non-default and other-table routes do not count", F.link(index: 2), [], [
                (.datagram(F.route(destinationLength: 24, interface: 2)), []),
                (.datagram(F.route(table: 100, interface: 2)), []),
                (.datagram(F.route(routeType: 7, interface: 2)), []),  // RTN_UNREACHABLE
                (.datagram(F.route(family: 10, interface: 2)), [.publish(.satisfied([.ethernet]))]),
            ]),
            ("carrier lost keeps the route but the path is down", F.link(index: 2), F.route(interface: 2), [
                (.datagram(F.link(index: 2, flags: 0x1)), [.publish(.unsatisfied)]),
                (.datagram(F.link(index: 2)), [.publish(.satisfied([.ethernet]))]),
            ]),
            ("admin down flushes IPv4 routes silently", F.link(index: 2), F.route(interface: 2), [
                (.datagram(F.link(index: 2, flags: 0)), [.publish(.unsatisfied)]),
                (.datagram(F.link(index: 2)), []),  // up again, but the flushed route stays gone
                (.datagram(F.route(interface: 2)), [.publish(.satisfied([.ethernet]))]),
            ]),
            ("link deleted drops its routes", F.link(index: 2) + F.link(index: 3, name: "eth1"), F.route(interface: 2), [
                (.datagram(F.link(Netlink.deleteLink, index: 2, flags: 0)), [.publish(.unsatisfied)]),
                (.datagram(F.link(index: 2)), [.checkWireless(index: 2, name: "eth0")]),
            ]),
            ("wireless probe turns ethernet into wifi", F.link(index: 4, name: "wlan0"), F.route(interface: 4), [
                (.wireless(4, true), [.publish(.satisfied([.wifi]))]),
                (.wireless(99, true), []),  // unknown interface
            ]),
            ("tunnel and ethernet together, metrics apart", F.link(index: 2) + F.link(index: 9, hardware: 0xFFFE, name: "wg0", kind: "wireguard"),
             F.route(interface: 2, priority: 100), [
                (.datagram(F.route(interface: 9, priority: 50)), [.publish(.satisfied([.ethernet, .tunnel]))]),
                (.datagram(F.route(Netlink.deleteRoute, interface: 2, priority: 100)), [.publish(.satisfied([.tunnel]))]),
            ]),
            ("multipath route through one up interface", F.link(index: 2) + F.link(index: 3, flags: 0x1, name: "eth1"), [], [
                (.datagram(F.route(interface: nil, multipath: [3, 2])), [.publish(.satisfied([.ethernet]))]),
            ]),
            ("loopback default route", F.link(index: 1, hardware: 772, flags: 0x49, name: "lo"), [], [
                (.datagram(F.route(interface: 1)), [.publish(.satisfied([.loopback]))]),
            ]),
            ("resync keeps the status until the new dump decides", F.link(index: 2), F.route(interface: 2), [
                (.resync, [.sendDump(type: Netlink.getLink, sequence: 4)]),
                (.datagram(F.link(index: 2) + F.done(sequence: 4)), [.checkWireless(index: 2, name: "eth0"), .sendDump(type: Netlink.getAddress, sequence: 5)]),
                (.datagram(F.done(sequence: 5)), [.sendDump(type: Netlink.getRoute, sequence: 6)]),
                (.datagram(F.done(sequence: 6)), [.publish(.unsatisfied)]),  // the route is gone now
            ]),
            ("dump error fails the monitor", F.link(index: 2), F.route(interface: 2), [
                (.resync, [.sendDump(type: Netlink.getLink, sequence: 4)]),
                (.datagram(F.error(-16, sequence: 4)), [.fail(code: -16)]),
                (.datagram(F.route(Netlink.deleteRoute, interface: 2)), []),
                (.resync, []),
            ]),
            ("acknowledgement and other errors ignored", F.link(index: 2), F.route(interface: 2), [
                (.datagram(F.error(0, sequence: 3)), []),
                (.datagram(F.error(-1, sequence: 77)), []),
            ]),
        ]

        @Test(arguments: 0..<live.count)
        func liveChanges(_ row: Int) throws {
            let (name, links, routes, steps) = Self.live[row]
            var machine = try Self.started(links: links, routes: routes)
            for (index, (step, expected)) in steps.enumerated() {
                #expect(try Self.run(&machine, step) == expected, "\(name), step \(index)")
            }
        }

        @Test func initialStatusWithoutRoutesIsUnsatisfied() throws {
            var machine = PathMonitorStateMachine()
            _ = machine.start()
            _ = machine.received(try NetlinkParser.parse(F.link(index: 2) + F.done(sequence: 1)))
            _ = machine.received(try NetlinkParser.parse(F.done(sequence: 2)))
            #expect(machine.received(try NetlinkParser.parse(F.done(sequence: 3))) == [.publish(.unsatisfied)])
            #expect(machine.status == .unsatisfied)
        }
    }
}
