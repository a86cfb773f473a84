// StreamOf: Alamofire's AsyncSequence of a request's events, over AsyncStream.
//
// Two additions of ours: an optional `onTaken` callback, run by the iterator for each element
// the awaiting task takes. DataStreamTask reports a chunk as consumed there (not when it was
// buffered), so back-pressure reaches the socket through the async API too. And an optional
// `isStale` test the iterator applies as it takes each element: a stale one is skipped (and
// counted as taken). DataStreamTask uses it so that a chunk buffered before a cancel is not
// handed out after it, as Alamofire delivers nothing more once a request is cancelled.

/// An `AsyncSequence` of a request's values (chunks, responses, progress...).
public struct StreamOf<Element>: AsyncSequence {
    /// The iterator.
    public typealias AsyncIterator = Iterator
    /// How many unread elements are kept: `.unbounded`, `.bufferingOldest(n)`, `.bufferingNewest(n)`.
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy
    fileprivate typealias Continuation = AsyncStream<Element>.Continuation

    private let bufferingPolicy: BufferingPolicy
    private let onTermination: (@Sendable () -> Void)?
    private let builder: @Sendable (Continuation) -> Void
    private let onTaken: (@Sendable (Element) -> Void)?
    private let isStale: (@Sendable (Element) -> Bool)?

    /// A stream whose `builder` is handed the continuation when iteration starts; `onTermination`
    /// runs when the stream ends or its consumer goes away; `onTaken` for each element taken;
    /// elements for which `isStale` is true when taken are skipped.
    init(bufferingPolicy: BufferingPolicy = .unbounded, onTermination: (@Sendable () -> Void)? = nil,
         onTaken: (@Sendable (Element) -> Void)? = nil, isStale: (@Sendable (Element) -> Bool)? = nil,
         builder: @escaping @Sendable (AsyncStream<Element>.Continuation) -> Void) {
        self.bufferingPolicy = bufferingPolicy
        self.onTermination = onTermination
        self.onTaken = onTaken
        self.isStale = isStale
        self.builder = builder
    }

    /// Makes the iterator (and starts the stream).
    public func makeAsyncIterator() -> Iterator {
        var continuation: AsyncStream<Element>.Continuation?
        let stream = AsyncStream<Element>(bufferingPolicy: bufferingPolicy) { innerContinuation in
            continuation = innerContinuation
            builder(innerContinuation)
        }
        let onTermination = self.onTermination
        continuation?.onTermination = { _ in onTermination?() }
        return Iterator(iterator: stream.makeAsyncIterator(), onTaken: onTaken, isStale: isStale)
    }

    /// Iterates the stream's elements.
    public struct Iterator: AsyncIteratorProtocol {
        private var iterator: AsyncStream<Element>.AsyncIterator
        private let onTaken: (@Sendable (Element) -> Void)?
        private let isStale: (@Sendable (Element) -> Bool)?

        fileprivate init(iterator: AsyncStream<Element>.AsyncIterator, onTaken: (@Sendable (Element) -> Void)?,
                         isStale: (@Sendable (Element) -> Bool)?) {
            self.iterator = iterator
            self.onTaken = onTaken
            self.isStale = isStale
        }

        /// The next element, or `nil` once the stream ended.
        public mutating func next() async -> Element? {
            while let element = await iterator.next() {
                onTaken?(element)
                if isStale?(element) != true { return element }
            }
            return nil
        }
    }
}

extension StreamOf: Sendable where Element: Sendable {}

