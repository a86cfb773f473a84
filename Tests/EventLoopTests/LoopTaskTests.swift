// execute() from any thread, loop identity, group round-robin, shutdown.
@testable import EventLoop
import Glibc
import Synchronization
import Testing

extension EventLoopTests {
    @Suite struct LoopTaskTests {
        @Test func executeFromManyThreadsRunsEveryTaskOnTheLoopInPerThreadOrder() async {
            let loop = EventLoopGroup.shared.next()
            let threadCount = 8
            let perThread = 2_000
            // Loop-confined tallies, read back on the loop.
            final class Tally {
                var lastSeen = [Int](repeating: -1, count: 8)
                var total = 0
                var outOfOrder = 0
                var offLoop = 0
            }
            let tally = await onLoop(loop) { LoopBound(Tally(), loop: loop) }
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<threadCount {
                    group.addTask {
                        for sequence in 0..<perThread {
                            loop.execute {
                                let state = tally.value
                                if !loop.inEventLoop { state.offLoop += 1 }
                                if state.lastSeen[thread] != sequence - 1 { state.outOfOrder += 1 }
                                state.lastSeen[thread] = sequence
                                state.total += 1
                            }
                        }
                    }
                }
            }
            #expect(await eventually(on: loop) { tally.value.total == threadCount * perThread })
            let (outOfOrder, offLoop) = await onLoop(loop) { (tally.value.outOfOrder, tally.value.offLoop) }
            #expect(outOfOrder == 0)
            #expect(offLoop == 0)
        }

        @Test func executeOnTheLoopDefersToTheNextIteration() async {
            let loop = EventLoopGroup.shared.next()
            let order = await onLoop(loop) { () -> [String] in
                final class Log { var entries: [String] = [] }
                let log = Log()
                loop.executeLocal { log.entries.append("deferred") }
                log.entries.append("inline")
                return log.entries
            }
            #expect(order == ["inline"])
        }

        @Test func inEventLoopIsTrueOnlyOnTheLoopThread() async {
            let loop = EventLoopGroup.shared.next()
            #expect(!loop.inEventLoop)
            #expect(await onLoop(loop) { loop.inEventLoop })
            let other = EventLoopGroup.shared.loops.first { $0 !== loop }
            if let other {
                #expect(await onLoop(loop) { other.inEventLoop } == false)
            }
            #expect(await onLoop(loop) { EventLoopGroup.shared.currentLoop() === loop })
        }

        @Test func nextHandsOutLoopsRoundRobin() {
            let group = EventLoopGroup(numberOfThreads: 3)
            defer { group.shutdown() }
            let picks = (0..<6).map { _ in group.next() }
            #expect(picks[0] !== picks[1] && picks[1] !== picks[2] && picks[0] !== picks[2])
            #expect(picks[0] === picks[3] && picks[1] === picks[4] && picks[2] === picks[5])
            #expect(EventLoopGroup.coreCount >= 1)
        }

        /// The process's epoll and eventfd descriptors: what loops hold. Counted by kind rather
        /// than all descriptors, because the other suites open and close sockets meanwhile (a
        /// plain count was off by one under ThreadSanitizer's slower, overlapping runs).
        static func loopDescriptorCount() -> Int {
            guard let names = directoryEntryNames(in: "/proc/self/fd") else { return -1 }
            var count = 0
            var target = [CChar](repeating: 0, count: 64)
            for name in names {
                let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
                guard length > 0 else { continue }
                let link = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if link == "anon_inode:[eventpoll]" || link == "anon_inode:[eventfd]" { count += 1 }
            }
            return count
        }

        @Test func shutdownRunsQueuedTasksThenReleasesDescriptorsAndDropsLaterTasks() {
            let before = Self.loopDescriptorCount()
            let group = EventLoopGroup(numberOfThreads: 2)
            #expect(Self.loopDescriptorCount() >= before + 4)  // an epoll fd and an eventfd per loop
            let ran = Atomic<Int>(0)
            for _ in 0..<100 {
                group.next().execute { ran.add(1, ordering: .relaxed) }
            }
            group.shutdown()
            #expect(ran.load(ordering: .relaxed) == 100)
            group.loops[0].execute { ran.add(1, ordering: .relaxed) }
            usleep(10_000)
            #expect(ran.load(ordering: .relaxed) == 100)
            #expect(Self.loopDescriptorCount() <= before)
            group.shutdown()  // idempotent
        }
    }
}
