#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

extension Request {
    /// What an `onHTTPResponse` handler decides about a response head.
    public enum ResponseDisposition: Sendable {
        /// Go on: read the body.
        case allow
        /// Cancel the request (handlers get `AFError.explicitlyCancelled`).
        case cancel
    }
}

/// The `onHTTPResponse` handler of a ``DataRequest`` (the last one set).
/// Stored inline in its request (noncopyable): no allocation of its own per request.
struct HTTPResponseHandlerSlot: ~Copyable, Sendable {
    typealias Handler = @Sendable (HTTPURLResponse, @escaping @Sendable (Request.ResponseDisposition) -> Void) -> Void
    private let handler = Mutex<Handler?>(nil)

    func set(_ new: @escaping Handler) { handler.withLock { $0 = new } }
    var current: Handler? { handler.withLock { $0 } }
}

extension DataRequest {
    /// Calls `handler` on `queue` with the response head; nothing more is read until it calls
    /// its completion handler, with `.allow` to go on or `.cancel` to cancel the request. The
    /// last handler set wins.
    @discardableResult
    public func onHTTPResponse(
        on queue: DispatchQueue = .main,
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse, _ completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    ) -> Self {
        httpResponseHandler.set { response, done in queue.async { handler(response, done) } }
        return self
    }

    /// Calls `handler` on `queue` with the response head; the request goes on.
    @discardableResult
    public func onHTTPResponse(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        onHTTPResponse(on: queue) { response, done in
            handler(response)
            done(.allow)
        }
    }

    /// Runs the `onHTTPResponse` handler for the head just recorded (on the connection's loop):
    /// reading pauses until it answers.
    func runHTTPResponseHandler() {
        guard let handler = httpResponseHandler.current, let response else { return }
        let exchange = mutable.withLock { $0.machine.activeExchange }
        exchange?.pauseReading()
        handler(response) { [self] disposition in
            switch disposition {
            case .allow: exchange?.resumeReading()
            case .cancel: cancel()
            }
        }
    }
}
