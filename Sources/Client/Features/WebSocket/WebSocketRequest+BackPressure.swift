// Back-pressure for WebSocketRequest's handlers: a message counts as buffered (once per handler)
// from its delivery on the connection's loop until the handler returned on its queue. Past
// `maxBufferedBytes` the connection stops reading (WebSocketConnection+BackPressure.swift); it
// reads again once at most half of that is left, as DataStreamRequest does for its chunks
// (`StreamFlowControl`). A server that keeps sending then fills the kernel's buffers and TCP's
// window and waits: memory stays bounded by the mark plus one message per handler.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

extension WebSocketRequest {
    /// Message bytes handed to handlers and not yet handled above which the connection stops
    /// reading; it resumes at half of it. 1 MiB, as ``DataStreamRequest/maxBufferedBytes``. A
    /// single message larger than this is still delivered whole (``Configuration/maximumMessageSize``
    /// bounds it).
    public static let maxBufferedBytes = 1024 * 1024

    /// Hands a message to every handler, on the connection's loop; pauses reading past the mark.
    func deliver(_ message: URLSessionWebSocketTask.Message, size: Int) {
        let (sinks, pause) = socket.withLock { state in
            (state.sinks, state.flow.received(size * state.sinks.count))
        }
        for sink in sinks { sink(.message(message)) }
        if pause, let connection = openConnection { connection.value.pauseReading() }
    }

    /// A handler finished with a message of `size` bytes (on its queue); resumes reading when
    /// enough was handled.
    func messageHandled(size: Int) {
        guard socket.withLock({ $0.flow.consumed(size) }), let connection = openConnection else { return }
        connection.loop.execute { connection.value.resumeReading() }
    }
}

extension URLSessionWebSocketTask.Message {
    /// The message's size in bytes, as counted for back-pressure.
    var byteCount: Int {
        switch self {
        case .string(let text): text.utf8.count
        case .data(let data): data.count
        }
    }
}
