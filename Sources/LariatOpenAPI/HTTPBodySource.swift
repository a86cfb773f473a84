// A request HTTPBody as the transport's body source: a task iterates the HTTPBody into a small
// buffer, the connection's loop reads from it as the socket drains. Neither side blocks: an
// empty buffer makes `read` answer `bodySourceNotReady` (the connection stops writing and is
// woken by the ready handler when the next chunk lands), a full one suspends the task until the
// loop has taken bytes out. At most `highWater` bytes plus one HTTPBody chunk are held.
//
//   producing ──chunk, buffer < highWater──▶ producing
//             ──chunk, buffer ≥ highWater──▶ suspended (resumed when a read takes it below)
//             ──end──▶ ended        ──HTTPBody threw, or over the limit──▶ failed
//   any ──close (request done, cancelled)──▶ closed: the task is cancelled, reads fail

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import OpenAPIRuntime
import Synchronization
import Transport

/// Feeds a connection from an `HTTPBody`, with back-pressure both ways.
final class HTTPBodySource: PausableBodySource, Sendable {
    /// Bytes buffered before the producing task waits.
    static let highWater = 256 * 1024

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var first = 0
        var buffered = 0
        var produced = 0
        var ended = false
        var failure: (any Error)?
        var closed = false
        var readerWaiting = false
        var producerWaiting: CheckedContinuation<Void, Never>?
        var ready: (@Sendable () -> Void)?
        var task: Task<Void, Never>?
    }

    private let body: HTTPBody
    private let limit: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - body: The request body, iterated once.
    ///   - limit: The most bytes it may produce; more fails with `requestBodyTooLarge`.
    init(_ body: HTTPBody, limit: Int) {
        self.body = body
        self.limit = limit
    }

    /// Why the body failed (the HTTPBody's error, or `requestBodyTooLarge`), if it did.
    var failure: (any Error)? { state.withLock { $0.failure } }

    func setReadyHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.ready = handler }
    }

    func open() {
        let task = Task { [self] in await produce() }
        let cancel = state.withLock { state -> Bool in
            state.task = task
            return state.closed
        }
        if cancel { task.cancel() }
    }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let (result, resume) = state.withLock { state -> (Int, CheckedContinuation<Void, Never>?) in
            if state.closed || state.failure != nil { return (-1, nil) }
            guard state.first < state.chunks.count else {
                if state.ended { return (0, nil) }
                state.readerWaiting = true
                return (bodySourceNotReady, nil)
            }
            var copied = 0
            while copied < len, state.first < state.chunks.count {
                let chunk = state.chunks[state.first]
                let n = min(len - copied, chunk.count)
                chunk.withUnsafeBufferPointer { (buffer + copied).update(from: $0.baseAddress!, count: n) }
                copied += n
                if n == chunk.count {
                    state.first += 1
                } else {
                    state.chunks[state.first] = chunk.dropFirst(n)
                }
            }
            if state.first == state.chunks.count { (state.chunks, state.first) = ([], 0) }
            state.buffered -= copied
            guard state.buffered < Self.highWater, let waiting = state.producerWaiting else { return (copied, nil) }
            state.producerWaiting = nil
            return (copied, waiting)
        }
        resume?.resume()
        return result
    }

    func close() {
        let (task, waiting) = state.withLock { state in
            state.closed = true
            state.chunks = []
            state.ready = nil
            defer { state.producerWaiting = nil }
            return (state.task, state.producerWaiting)
        }
        task?.cancel()
        waiting?.resume()
    }

    /// Iterates the HTTPBody into the buffer, waiting while it is full.
    private func produce() async {
        do {
            for try await chunk in body {
                let wake = state.withLock { state -> (@Sendable () -> Void)? in
                    guard !state.closed else { return nil }
                    state.produced += chunk.count
                    if state.produced > limit {
                        state.failure = LariatTransportError.requestBodyTooLarge(limit: limit)
                    } else if !chunk.isEmpty {
                        state.chunks.append(chunk)
                        state.buffered += chunk.count
                    }
                    return takeReader(&state)
                }
                wake?()
                if state.withLock({ $0.closed || $0.failure != nil }) { return }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let wait = state.withLock { state -> Bool in
                        guard !state.closed, state.buffered >= Self.highWater else { return false }
                        state.producerWaiting = continuation
                        return true
                    }
                    if !wait { continuation.resume() }
                }
                if Task.isCancelled { return }
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// The end (nil) or an error: wake a waiting reader to see it.
    private func finish(_ error: (any Error)?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            if let error { state.failure = state.failure ?? error } else { state.ended = true }
            return takeReader(&state)
        }
        wake?()
    }

    /// The ready handler, if the reader waits for it (it is called once per wait).
    private func takeReader(_ state: inout State) -> (@Sendable () -> Void)? {
        guard state.readerWaiting else { return nil }
        state.readerWaiting = false
        return state.ready
    }
}
