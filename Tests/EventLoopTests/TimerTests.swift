// Timers on a live loop, and the TimerHeap against a simple reference model.
@testable import EventLoop
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct TimerTests {
        /// Loop-confined log of fired timer labels.
        final class FireLog {
            var labels: [Int] = []
        }

        @Test func timersFireInDeadlineOrderAndEqualDeadlinesInSchedulingOrder() async {
            let loop = EventLoopGroup.shared.next()
            // (label, delay in ms): scheduled in this order, expected to fire sorted by delay then label.
            let plan: [(Int, Int)] = [(0, 30), (1, 10), (2, 20), (3, 10), (4, 0), (5, 20), (6, 5)]
            let log = await onLoop(loop) { () -> LoopBound<FireLog> in
                let log = FireLog()
                let start = Deadline.now()
                for (label, delay) in plan {
                    loop.scheduleTimer(at: start + .milliseconds(delay)) { log.labels.append(label) }
                }
                return LoopBound(log, loop: loop)
            }
            #expect(await eventually(on: loop) { log.value.labels.count == plan.count })
            #expect(await onLoop(loop) { log.value.labels } == [4, 6, 1, 3, 2, 5, 0])
        }

        @Test func cancelledTimersNeverFireAndStaleIDsAreHarmless() async {
            let loop = EventLoopGroup.shared.next()
            let log = await onLoop(loop) { () -> LoopBound<FireLog> in
                let log = FireLog()
                let first = loop.scheduleTimer(after: .milliseconds(5)) { log.labels.append(1) }
                let second = loop.scheduleTimer(after: .milliseconds(10)) { log.labels.append(2) }
                loop.scheduleTimer(after: .milliseconds(15)) { log.labels.append(3) }
                loop.cancelTimer(second)
                loop.cancelTimer(second)  // twice: no effect
                // After `first` fires its slot is reused; cancelling the stale ID must not hit the new timer.
                loop.scheduleTimer(after: .milliseconds(8)) {
                    loop.scheduleTimer(after: .milliseconds(10)) { log.labels.append(4) }
                    loop.cancelTimer(first)
                }
                return LoopBound(log, loop: loop)
            }
            #expect(await eventually(on: loop) { log.value.labels.count == 3 })
            try? await Task.sleep(for: .milliseconds(30))
            #expect(await onLoop(loop) { log.value.labels } == [1, 3, 4])
        }

        @Test(arguments: [1, 20, 60])
        func timersNeverFireEarly(milliseconds: Int) async {
            let loop = EventLoopGroup.shared.next()
            let elapsed = await withCheckedContinuation { continuation in
                loop.execute {
                    let start = Deadline.now()
                    loop.scheduleTimer(after: .milliseconds(milliseconds)) {
                        continuation.resume(returning: Deadline.now() - start)
                    }
                }
            }
            #expect(elapsed >= .milliseconds(milliseconds))
            #expect(elapsed < .milliseconds(milliseconds + 200))
        }

        @Test func deadlineArithmeticSaturates() {
            let now = Deadline.now()
            #expect(now + .seconds(Int64.max) == .distantFuture)
            #expect(Deadline.distantFuture + .seconds(1) == .distantFuture)
            #expect(now + .seconds(-Int64.max) == .distantPast)
            #expect((now + .milliseconds(1500)) - now == .milliseconds(1500))
            #expect(now < now + .nanoseconds(1))
        }

        /// Random schedule/cancel/pop sequences against a sorted-array model.
        @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
        func heapMatchesReferenceModel(seed: UInt64) {
            var random = SplitMix(seed: seed)
            var heap = TimerHeap()
            // Model: (deadline, sequence, label, id)
            var model: [(deadline: Int64, sequence: Int, label: Int, id: TimerID)] = []
            var fired: [Int] = []
            var expectedFired: [Int] = []
            var sequence = 0
            for step in 0..<2_000 {
                let choice = random.next() % 10
                if choice < 5 {
                    let deadline = Int64(random.next() % 50)
                    let label = step
                    let id = heap.schedule(at: Deadline(uptimeNanoseconds: deadline)) { fired.append(label) }
                    model.append((deadline, sequence, label, id))
                    sequence += 1
                } else if choice < 7, !model.isEmpty {
                    // Move a pending timer: same body, new deadline, ordered as if newly scheduled.
                    let index = Int(random.next() % UInt64(model.count))
                    let deadline = Int64(random.next() % 50)
                    let moved = heap.reschedule(model[index].id, at: Deadline(uptimeNanoseconds: deadline))
                    #expect(moved)
                    model[index].deadline = deadline
                    model[index].sequence = sequence
                    sequence += 1
                } else if choice < 8, !model.isEmpty {
                    let index = Int(random.next() % UInt64(model.count))
                    let first = heap.cancel(model[index].id)
                    let second = heap.cancel(model[index].id)
                    #expect(first)
                    #expect(!second)
                    model.remove(at: index)
                } else {
                    let now = Deadline(uptimeNanoseconds: Int64(random.next() % 50))
                    while let body = heap.popExpired(now: now, sequenceLimit: .max) { body() }
                    let due = model.filter { $0.deadline <= now.uptimeNanoseconds }
                        .sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
                    model.removeAll { $0.deadline <= now.uptimeNanoseconds }
                    expectedFired += due.map(\.label)
                    #expect(fired == expectedFired)
                }
                #expect(heap.count == model.count)
                #expect(heap.earliestDeadline?.uptimeNanoseconds == model.map(\.deadline).min())
            }
        }

        @Test func rescheduledTimerFiresOnceAtItsNewDeadline() async {
            let loop = EventLoopGroup.shared.next()
            let log = await onLoop(loop) { () -> LoopBound<FireLog> in
                let log = FireLog()
                let moved = loop.scheduleTimer(after: .milliseconds(5)) { log.labels.append(1) }
                loop.scheduleTimer(after: .milliseconds(10)) { log.labels.append(2) }
                #expect(loop.rescheduleTimer(moved, at: .now() + .milliseconds(20)))
                return LoopBound(log, loop: loop)
            }
            #expect(await eventually(on: loop) { log.value.labels.count == 2 })
            #expect(await onLoop(loop) { log.value.labels } == [2, 1])
        }

        @Test func popExpiredRespectsTheSequenceLimit() {
            var heap = TimerHeap()
            var fired: [Int] = []
            _ = heap.schedule(at: .distantPast) { fired.append(1) }
            let limit = heap.nextSequence
            _ = heap.schedule(at: .distantPast) { fired.append(2) }
            while let body = heap.popExpired(now: .now(), sequenceLimit: limit) { body() }
            #expect(fired == [1])
            #expect(heap.count == 1)
        }
    }
}
