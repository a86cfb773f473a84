// TimerHeap: the loop's timers, a binary min-heap ordered by (deadline, insertion sequence).
//
// Why an indexed heap rather than lazy deletion: connection drivers re-arm idle and request
// timers on every request (schedule new, cancel old). Lazy deletion would keep every cancelled
// entry until its deadline passed (a 90 s idle timeout at 10k requests/s is 900k dead entries),
// so each entry's heap position is tracked in a slot and `cancel` removes it in O(log n).
//
// Slots are recycled through a free list; a `TimerID` carries the slot's generation so a
// stale ID (timer already fired or cancelled, slot reused) is recognised and ignored.
// Equal deadlines fire in scheduling order (the sequence number breaks ties).

/// Identifies a timer scheduled with ``EventLoop/scheduleTimer(at:_:)`` so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let slot: Int32
    let generation: UInt32
}

/// Loop-confined timer storage; see the file header.
struct TimerHeap {
    private struct Entry {
        var deadline: Deadline
        var sequence: UInt64
        var slot: Int32

        /// Heap order: earlier deadline first, then earlier scheduling.
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private struct Slot {
        /// Bumped every time the slot is freed, invalidating outstanding IDs.
        var generation: UInt32 = 0
        /// Position of this slot's entry in `heap`, or -1 when the slot is free.
        var heapIndex: Int32 = -1
        var body: (() -> Void)?
    }

    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private(set) var nextSequence: UInt64 = 0

    /// Number of pending timers.
    var count: Int { heap.count }

    /// The deadline of the timer that fires next, or nil when none is pending.
    var earliestDeadline: Deadline? { heap.first?.deadline }

    /// Adds a timer.
    mutating func schedule(at deadline: Deadline, _ body: @escaping () -> Void) -> TimerID {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = Int32(slots.count)
            slots.append(Slot())
        }
        let entry = Entry(deadline: deadline, sequence: nextSequence, slot: slot)
        nextSequence &+= 1
        slots[Int(slot)].body = body
        heap.append(entry)
        slots[Int(slot)].heapIndex = Int32(heap.count - 1)
        siftUp(heap.count - 1)
        return TimerID(slot: slot, generation: slots[Int(slot)].generation)
    }

    /// Removes a pending timer; does nothing for an ID that already fired or was cancelled.
    ///
    /// - Returns: `true` if a pending timer was removed.
    @discardableResult
    mutating func cancel(_ id: TimerID) -> Bool {
        guard id.slot >= 0, Int(id.slot) < slots.count else { return false }
        let slot = slots[Int(id.slot)]
        guard slot.generation == id.generation, slot.heapIndex >= 0 else { return false }
        _ = remove(at: Int(slot.heapIndex))
        return true
    }

    /// Moves a pending timer to a new deadline, keeping its body (no allocation).
    ///
    /// The timer is ordered as if newly scheduled (after existing timers with the same deadline).
    /// - Returns: `false` for an ID that already fired or was cancelled.
    mutating func reschedule(_ id: TimerID, at deadline: Deadline) -> Bool {
        guard id.slot >= 0, Int(id.slot) < slots.count else { return false }
        let slot = slots[Int(id.slot)]
        guard slot.generation == id.generation, slot.heapIndex >= 0 else { return false }
        let index = Int(slot.heapIndex)
        heap[index].deadline = deadline
        heap[index].sequence = nextSequence
        nextSequence &+= 1
        if index > 0 && heap[index].precedes(heap[(index - 1) / 2]) {
            siftUp(index)
        } else {
            siftDown(index)
        }
        return true
    }

    /// Removes and returns the body of the earliest timer if it is due at `now` and was
    /// scheduled before sequence number `sequenceLimit` (so a timer scheduled by a firing
    /// timer waits for the next pass instead of starving I/O).
    mutating func popExpired(now: Deadline, sequenceLimit: UInt64) -> (() -> Void)? {
        guard let first = heap.first, first.deadline <= now, first.sequence < sequenceLimit else { return nil }
        return remove(at: 0)
    }

    /// Drops every timer without running it (loop shutdown).
    mutating func removeAll() {
        for entry in heap { release(entry.slot) }
        heap.removeAll()
    }

    // MARK: heap mechanics

    /// Removes the entry at `index`, frees its slot and returns its body.
    private mutating func remove(at index: Int) -> (() -> Void)? {
        let removed = heap[index]
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            slots[Int(last.slot)].heapIndex = Int32(index)
            if index > 0 && heap[index].precedes(heap[(index - 1) / 2]) {
                siftUp(index)
            } else {
                siftDown(index)
            }
        }
        let body = slots[Int(removed.slot)].body
        release(removed.slot)
        return body
    }

    private mutating func release(_ slot: Int32) {
        slots[Int(slot)].body = nil
        slots[Int(slot)].heapIndex = -1
        slots[Int(slot)].generation &+= 1
        freeSlots.append(slot)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            swapEntries(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            var smallest = left
            let right = left + 1
            if right < heap.count && heap[right].precedes(heap[left]) { smallest = right }
            guard heap[smallest].precedes(heap[parent]) else { break }
            swapEntries(smallest, parent)
            parent = smallest
        }
    }

    private mutating func swapEntries(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        slots[Int(heap[a].slot)].heapIndex = Int32(a)
        slots[Int(heap[b].slot)].heapIndex = Int32(b)
    }
}
