// NetlinkRouteSocket against this machine's kernel: real dump replies decode, and a dump ends;
// the sockaddr_nl accessor binds where the kernel reads it (issue 18 pointer audit).
@testable import EventLoop
import Glibc
import Synchronization
import Testing

extension EventLoopTests {
    @Suite struct NetlinkSocketTests {
        /// Dumps links, addresses and routes from the kernel through the parser and the state
        /// machine: the loopback interface is seen and the machine reaches a verdict.
        @Test func kernelDumpReachesAVerdict() async throws {
            let group = EventLoopGroup(numberOfThreads: 1)
            defer { group.shutdown() }
            let loop = group.next()
            let seen = Mutex<(links: [String], statuses: [PathStatus], failure: String?)>(([], [], nil))
            let opened: LoopBound<NetlinkRouteSocket>? = await onLoop(loop) {
                var machine = PathMonitorStateMachine()
                var socket: NetlinkRouteSocket?
                func perform(_ actions: [PathMonitorStateMachine.Action]) {
                    for action in actions {
                        switch action {
                        case .sendDump(let type, let sequence):
                            do { try socket?.send(Netlink.dumpRequest(type: type, sequence: sequence)) } catch {
                                seen.withLock { $0.failure = "\(error)" }
                            }
                        case .checkWireless(let index, _): perform(machine.wirelessChecked(index: index, isWireless: false))
                        case .publish(let status): seen.withLock { $0.statuses.append(status) }
                        case .fail(let code): seen.withLock { $0.failure = "dump failed \(code)" }
                        }
                    }
                }
                do {
                    socket = try NetlinkRouteSocket(on: loop, groups: Netlink.monitorGroups) { event in
                        switch event {
                        case .messages(let messages):
                            for case .newLink(let link) in messages { seen.withLock { $0.links.append(link.name ?? "?") } }
                            perform(machine.received(messages))
                        case .malformed(let error): seen.withLock { $0.failure = "malformed \(error)" }
                        case .lost(let error): seen.withLock { $0.failure = "lost \(String(describing: error))" }
                        }
                    }
                } catch {
                    seen.withLock { $0.failure = "open: \(error)" }
                    return nil
                }
                perform(machine.start())
                return LoopBound(socket!, loop: loop)
            }
            #expect(await eventually(on: loop) { seen.withLock { !$0.statuses.isEmpty || $0.failure != nil } })
            seen.withLock { state in
                #expect(state.failure == nil)
                #expect(state.links.contains("lo"))
                #expect(state.statuses.count == 1)
            }
            if let opened { await onLoop(loop) { opened.value.close() } }
        }

        /// The typed `sockaddr_nl` accessor: the kernel reads back the family and the groups we
        /// bound (`getsockname`), for several group masks, so a field at a wrong offset fails.
        @Test(arguments: [UInt32(0), 1, Netlink.monitorGroups, 0x4_0001])
        func sockaddrAccessorBindsTheGroups(groups: UInt32) throws {
            let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            try #require(fd >= 0)
            defer { close(fd) }
            let length = NetlinkRouteSocket.withSockAddr(groups: groups) { address, length in
                #expect(bind(fd, address, length) == 0, "bind errno \(errno)")
                return length
            }
            #expect(length == 12)
            var storage = sockaddr_storage()
            var storageLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let status = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &storageLength) }
            }
            #expect(status == 0)
            #expect(storageLength == 12)
            withUnsafeBytes(of: &storage) { raw in
                #expect(raw.loadUnaligned(fromByteOffset: 0, as: UInt16.self) == UInt16(AF_NETLINK))
                #expect(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self) != 0)  // the port id the kernel picked
                #expect(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == groups)
            }
        }
    }
}
