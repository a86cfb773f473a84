#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization

extension Request {
    /// What an `onHTTPResponse` handler decides about a response head.
    public enum ResponseDisposition: Sendable {
        /// Go on receiving the response.
        case allow
        /// Cancel the request (handlers receive `AFError.explicitlyCancelled`).
        case cancel
    }
}

// `onHTTPResponse`: handlers see each attempt's response head as it arrives. Lariat does not
// hold the exchange while a handler decides (URLSession does): body bytes keep arriving, and a
// `.cancel` answer cancels the request when it comes. An answer that comes after the whole
// response arrived has no effect (a cancel after completion never has).
extension DataRequest {
    /// Calls `handler` on `queue` with each response head (one per attempt), and cancels the
    /// request if it answers `.cancel`.
    /// - Parameters:
    ///   - queue: `.main` by default.
    ///   - handler: Receives the head and a completion to call with the disposition.
    @discardableResult
    public func onHTTPResponse(
        on queue: DispatchQueue = .main,
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse,
                                              _ completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) -> Void
    ) -> Self {
        lifecycle.state.withLock { $0.httpResponseHandlers.append(HTTPResponseHandler(queue: queue, handler: handler)) }
        return self
    }

    /// Calls `handler` on `queue` with each response head (one per attempt).
    /// - Parameters:
    ///   - queue: `.main` by default.
    ///   - handler: Receives the head.
    @discardableResult
    public func onHTTPResponse(on queue: DispatchQueue = .main, perform handler: @escaping @Sendable (HTTPURLResponse) -> Void) -> Self {
        onHTTPResponse(on: queue) { response, completion in
            handler(response)
            completion(.allow)
        }
    }

    /// Calls the async `handler` with each response head, and cancels the request if it returns `.cancel`.
    @discardableResult
    public func onHTTPResponse(
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> ResponseDisposition
    ) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, completion in
            Task { completion(await handler(response)) }
        }
    }

    /// Calls the async `handler` with each response head.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> Void) -> Self {
        onHTTPResponse(on: underlyingQueue) { response, completion in
            Task {
                await handler(response)
                completion(.allow)
            }
        }
    }
}
