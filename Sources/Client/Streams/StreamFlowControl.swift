// StreamFlowControl: when a streaming request's connection must stop and start reading.
//
// No I/O and no locks (STYLE.md §3): the request keeps one inside its mutex, feeds it events and
// acts on the answers outside the lock (`pause` → Exchange.pauseReading on the loop, `resume` →
// Exchange.resumeReading, posted to the loop).
//
// Bytes count as buffered from the moment the connection hands them over until every stream
// handler has processed them (or, for the async API, the awaiting task has taken them). Reading
// pauses when that count passes `highWater`, or while an `onHTTPResponse` disposition is
// awaited, and resumes once the count is at most `lowWater` and no disposition is awaited. The
// gap between the two marks keeps a consumer that takes one chunk at a time from toggling the
// socket's interest on every chunk.
//
//   reading ──received (buffered > highWater) or awaiting a disposition──▶ paused
//   paused ──consumed (buffered ≤ lowWater) and no disposition awaited──▶ reading
//
// What can be in memory at once: `highWater`, plus what one delivery carries (at most the
// connection's receive buffer, 256 KiB) for each handler.

struct StreamFlowControl: Equatable {
    /// Bytes handed over and not yet consumed, counted once per handler that must see them.
    private(set) var buffered = 0
    /// Whether the connection was asked to stop reading.
    private(set) var isPaused = false
    /// Whether an `onHTTPResponse` handler has not answered yet.
    private var awaitingDisposition = false
    /// Pause above this many buffered bytes.
    let highWater: Int
    /// Resume at or below this many.
    let lowWater: Int

    /// A controller with the given marks (`lowWater` ≤ `highWater`).
    init(highWater: Int, lowWater: Int) {
        precondition(lowWater <= highWater, "lowWater \(lowWater) above highWater \(highWater)")
        self.highWater = highWater
        self.lowWater = lowWater
    }

    /// The head arrived and an `onHTTPResponse` handler must answer first. Returns whether to pause.
    mutating func awaitDisposition() -> Bool {
        awaitingDisposition = true
        return pauseIfNeeded()
    }

    /// The `onHTTPResponse` handler answered `.allow`. Returns whether to resume.
    mutating func dispositionReceived() -> Bool {
        awaitingDisposition = false
        return resumeIfPossible()
    }

    /// `count` bytes were handed to handlers (`count` = chunk size × handlers). Returns whether
    /// to pause.
    mutating func received(_ count: Int) -> Bool {
        buffered += count
        return pauseIfNeeded()
    }

    /// A handler consumed `count` bytes. Returns whether to resume.
    mutating func consumed(_ count: Int) -> Bool {
        precondition(count <= buffered, "consumed \(count) of \(buffered) buffered bytes")
        buffered -= count
        return resumeIfPossible()
    }

    private mutating func pauseIfNeeded() -> Bool {
        guard !isPaused, awaitingDisposition || buffered > highWater else { return false }
        isPaused = true
        return true
    }

    private mutating func resumeIfPossible() -> Bool {
        guard isPaused, !awaitingDisposition, buffered <= lowWater else { return false }
        isPaused = false
        return true
    }
}
