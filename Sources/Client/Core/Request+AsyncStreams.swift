#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch

// Alamofire's async sequences of a request's lifecycle values: each yields on the request's
// queue what the matching handler receives and ends when the request finished.

extension Request {
    /// Every URLRequest the request creates (one per attempt, after adapters), ending when the
    /// request finished; the last one first if one exists.
    /// - Parameter bufferingPolicy: How many unread values to keep. `.unbounded` by default.
    /// - Returns: The stream.
    public func urlRequests(bufferingPolicy: StreamOf<URLRequest>.BufferingPolicy = .unbounded) -> StreamOf<URLRequest> {
        lifecycleStream(bufferingPolicy: bufferingPolicy) { request, yield in request.onURLRequestCreation(on: request.underlyingQueue, perform: yield) }
    }

    /// Every task the request creates (one per attempt), ending when the request finished; the
    /// current one first if one exists.
    /// - Parameter bufferingPolicy: How many unread values to keep. `.unbounded` by default.
    /// - Returns: The stream.
    public func urlSessionTasks(bufferingPolicy: StreamOf<URLSessionTask>.BufferingPolicy = .unbounded) -> StreamOf<URLSessionTask> {
        lifecycleStream(bufferingPolicy: bufferingPolicy) { request, yield in request.onURLSessionTaskCreation(on: request.underlyingQueue, perform: yield) }
    }

    /// ``cURLDescription()`` for every URLRequest the request creates, ending when the request finished.
    /// - Parameter bufferingPolicy: How many unread values to keep. `.unbounded` by default.
    /// - Returns: The stream.
    public func cURLDescriptions(bufferingPolicy: StreamOf<String>.BufferingPolicy = .unbounded) -> StreamOf<String> {
        lifecycleStream(bufferingPolicy: bufferingPolicy) { request, yield in request.cURLDescription(on: request.underlyingQueue, calling: yield) }
    }

    /// A stream fed by the handler `register` adds, finished on the request's queue (serial, so
    /// after every queued value) once the request finished. Like a response handler, iterating
    /// starts the request when the session starts requests on their first handler.
    private func lifecycleStream<Value: Sendable>(bufferingPolicy: StreamOf<Value>.BufferingPolicy,
                                                  register: @escaping @Sendable (Request, @escaping @Sendable (Value) -> Void) -> Void) -> StreamOf<Value> {
        StreamOf(bufferingPolicy: bufferingPolicy) { [self] continuation in
            register(self) { continuation.yield($0) }
            let queue = underlyingQueue
            appendResponseHandler { _ in queue.async { continuation.finish() } }
        }
    }
}
