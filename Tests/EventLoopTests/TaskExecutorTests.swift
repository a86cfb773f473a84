// EventLoop as a TaskExecutor: where preferring tasks run, resume, queue, and what shutdown does.
@testable import EventLoop
import Glibc
import Synchronization
import Testing

extension EventLoopTests {
    @Suite struct TaskExecutorTests {
        /// Counters shared by the tasks of one test.
        final class Tally: Sendable {
            let offLoop = Atomic<Int>(0)
            let completed = Atomic<Int>(0)
            let order = Mutex<[Int]>([])
        }

        @Test func aPreferringTaskRunsOnTheLoopThreadAcrossSuspensions() async {
            let loop = EventLoopGroup.shared.next()
            let loopThread = await onLoop(loop) { LoopThread.currentHandle }
            let seen = await withTaskExecutorPreference(loop) { () -> [UInt] in
                var threads = [LoopThread.currentHandle]
                for _ in 0..<10 {
                    await Task.yield()
                    threads.append(LoopThread.currentHandle)
                }
                #expect(loop.inEventLoop)
                return threads
            }
            #expect(seen == Array(repeating: loopThread, count: 11))
        }

        @Test func aContinuationResumedByALoopTimerResumesOnTheLoopThroughTheLocalQueue() async {
            let loop = EventLoopGroup.shared.next()
            let log = Mutex<[String]>([])
            await withTaskExecutorPreference(loop) {
                let before = LoopThread.currentHandle
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    loop.scheduleTimer(after: .milliseconds(1)) {
                        // Local closure tasks around the resume: a job queued locally runs
                        // between them; one sent through the remote queue (an eventfd write)
                        // would run on a later pass, after both.
                        loop.executeLocal { log.withLock { $0.append("before") } }
                        continuation.resume()
                        loop.executeLocal { log.withLock { $0.append("after") } }
                    }
                }
                log.withLock { $0.append("resumed") }
                #expect(loop.inEventLoop)
                #expect(LoopThread.currentHandle == before)
            }
            #expect(await eventually(on: loop) { log.withLock { $0.count == 3 } })
            #expect(log.withLock { $0 } == ["before", "resumed", "after"])
        }

        @Test func aContinuationResumedFromAnotherLoopResumesOnThePreferredLoop() async {
            let group = EventLoopGroup(numberOfThreads: 2)
            defer { group.shutdown() }
            let (preferred, other) = (group.loops[0], group.loops[1])
            let resumedOnPreferred = await withTaskExecutorPreference(preferred) { () -> Bool in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    other.execute { continuation.resume() }
                }
                return preferred.inEventLoop && !other.inEventLoop
            }
            #expect(resumedOnPreferred)
        }

        @Test func nonisolatedCodeIsBackOnTheLoopAfterAwaitingAnActor() async {
            actor Counter {
                var value = 0
                func bump() -> Int {
                    value += 1
                    return value
                }
            }
            let loop = EventLoopGroup.shared.next()
            let counter = Counter()
            let (values, onLoop) = await withTaskExecutorPreference(loop) { () -> ([Int], Bool) in
                var values: [Int] = []
                var onLoop = true
                for _ in 0..<5 {
                    values.append(await counter.bump())
                    onLoop = onLoop && loop.inEventLoop
                }
                return (values, onLoop)
            }
            #expect(values == [1, 2, 3, 4, 5])
            #expect(onLoop)
        }

        @Test func childTasksStartOnTheLoopInTheOrderTheyWereAdded() async {
            let loop = EventLoopGroup.shared.next()
            let count = 500
            let tally = Tally()
            await withTaskExecutorPreference(loop) {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            if !loop.inEventLoop { tally.offLoop.add(1, ordering: .relaxed) }
                            tally.order.withLock { $0.append(index) }
                        }
                    }
                }
            }
            #expect(tally.offLoop.load(ordering: .relaxed) == 0)
            #expect(tally.order.withLock { $0 } == Array(0..<count))
        }

        @Test func manyTasksStartedFromOtherThreadsAllRunEveryStepOnTheLoop() async {
            let loop = EventLoopGroup.shared.next()
            let taskCount = 200
            let steps = 20
            let tally = Tally()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<taskCount {
                    group.addTask {
                        let task = Task(executorPreference: loop) {
                            for _ in 0..<steps {
                                if !loop.inEventLoop { tally.offLoop.add(1, ordering: .relaxed) }
                                await Task.yield()
                            }
                            tally.completed.add(1, ordering: .relaxed)
                        }
                        await task.value
                    }
                }
            }
            #expect(tally.completed.load(ordering: .relaxed) == taskCount)
            #expect(tally.offLoop.load(ordering: .relaxed) == 0)
        }

        @Test func aJobEnqueuedAfterShutdownRunsOffTheLoopInsteadOfBeingLost() async {
            let group = EventLoopGroup(numberOfThreads: 1)
            let loop = group.loops[0]
            #expect(await withTaskExecutorPreference(loop) { loop.inEventLoop })
            group.shutdown()
            // Would hang forever if the job were discarded like a closure task.
            let (ranOnLoop, steps) = await withTaskExecutorPreference(loop) { () -> (Bool, Int) in
                var steps = 0
                for _ in 0..<3 {
                    await Task.yield()
                    steps += 1
                }
                return (loop.inEventLoop, steps)
            }
            #expect(!ranOnLoop)
            #expect(steps == 3)
        }

        @Test func aJobLeftInTheLocalQueueAtTeardownStillRuns() async {
            let group = EventLoopGroup(numberOfThreads: 1)
            let loop = group.loops[0]
            let started = Atomic<Bool>(false)
            // The task yields on the loop over and over, so its job is always queued locally;
            // shutdown tears the loop down under it and the rest must finish elsewhere.
            let task = Task(executorPreference: loop) { () -> Int in
                started.store(true, ordering: .releasing)
                var offLoopSteps = 0
                for _ in 0..<10_000_000 {
                    await Task.yield()
                    if !loop.inEventLoop { offLoopSteps += 1 }
                    if offLoopSteps >= 3 { break }
                }
                return offLoopSteps
            }
            while !started.load(ordering: .acquiring) { usleep(100) }
            group.shutdown()
            #expect(await task.value == 3)
        }
    }
}
