// The AsyncSequence Alamofire's async accessors return (progress, URLRequests, responses...).
// The producer is attached when iteration starts, not when the stream is made, so a stream
// made and never iterated registers nothing; ending iteration (or the task's cancellation)
// runs `onTermination`, which detaches the producer.

/// An asynchronous sequence of values a request produces over time.
public struct StreamOf<Element>: AsyncSequence {
    /// The iterator type.
    public typealias AsyncIterator = Iterator
    /// How many unread values to keep: `AsyncStream`'s policy. `.unbounded` by default.
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    private let bufferingPolicy: BufferingPolicy
    private let onTermination: (@Sendable () -> Void)?
    private let attach: (AsyncStream<Element>.Continuation) -> Void

    /// A stream whose values come from what `attach` does with the continuation.
    ///
    /// - Parameters:
    ///   - bufferingPolicy: How many unread values to keep.
    ///   - onTermination:   Runs once when the stream ends (finished, or the consumer stopped).
    ///   - attach:          Called when iteration starts, with the continuation to yield to and finish.
    init(bufferingPolicy: BufferingPolicy = .unbounded, onTermination: (@Sendable () -> Void)? = nil,
         attach: @escaping (AsyncStream<Element>.Continuation) -> Void) {
        self.bufferingPolicy = bufferingPolicy
        self.onTermination = onTermination
        self.attach = attach
    }

    /// Starts the stream: attaches the producer and returns the iterator over its values.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        if let onTermination { continuation.onTermination = { _ in onTermination() } }
        attach(continuation)
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates a ``StreamOf``.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncStream<Element>.AsyncIterator

        init(base: AsyncStream<Element>.AsyncIterator) { self.base = base }

        /// The next value, or `nil` once the stream ended.
        ///
        /// - Returns: The value or `nil`.
        public mutating func next() async -> Element? { await base.next() }
    }
}

