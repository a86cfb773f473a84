// RingDeque: a FIFO over a growable ring buffer, for the pool's waiters.
//
// `Array.removeFirst()` shifts every remaining element, so draining a queue of n waiters cost
// O(n²) (issue 9, finding 4). Here both ends are O(1) amortised: `head` indexes the oldest element
// and `count` elements follow it, wrapping at the end of `storage`. Growth doubles the capacity and
// copies the elements out in order; the storage never shrinks (a pool's queue length is bounded by
// what its callers submit, and the memory is reused by the next burst).
//
// Invariant: `storage.count` is 0 or a capacity ≥ `count`; slots outside the `count` elements
// starting at `head` hold `nil`.

/// A first-in, first-out queue with O(1) `append` and `popFirst`.
struct RingDeque<Element> {
    private var storage: [Element?] = []
    private var head = 0
    /// The number of elements.
    private(set) var count = 0

    /// Creates an empty queue; no storage is allocated until the first `append`.
    init() {}

    /// `true` when the queue holds nothing.
    var isEmpty: Bool { count == 0 }

    /// The oldest element, or nil when empty.
    var first: Element? { count == 0 ? nil : storage[head] }

    /// Adds `element` at the back.
    ///
    /// - Parameter element: The value to queue.
    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// Removes and returns the oldest element, or nil when empty.
    ///
    /// - Returns: The front element.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Keeps only the elements for which `keep` is true, in order. O(n); for rare sweeps
    /// (deadlines), not the hot path.
    ///
    /// - Parameter keep: Decides, for each element from oldest to newest, whether it stays.
    mutating func filter(_ keep: (Element) -> Bool) {
        let remaining = count
        for _ in 0..<remaining {
            // Each element goes round once: popped from the front, re-appended if kept. No growth
            // happens, since the count never exceeds what it was.
            if let element = popFirst(), keep(element) { append(element) }
        }
    }

    /// The elements from oldest to newest (a copy, for sweeps and tests).
    var elements: [Element] {
        (0..<count).map { storage[(head + $0) % storage.count]! }
    }

    private mutating func grow() {
        var bigger = [Element?](repeating: nil, count: Swift.max(8, storage.count * 2))
        for offset in 0..<count { bigger[offset] = storage[(head + offset) % storage.count] }
        storage = bigger
        head = 0
    }
}
