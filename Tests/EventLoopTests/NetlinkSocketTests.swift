// NetlinkRouteSocket against this machine's kernel: real dump replies decode, and a dump ends.
@testable import EventLoop
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
    }
}
