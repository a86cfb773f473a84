#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Dispatch
import Synchronization

/// The requests a session tracks: from their first resume, suspend or cancel until they finish.
/// A request created but never resumed is not tracked (it would otherwise be kept alive by the
/// session forever, as Alamofire keeps it).
final class ActiveRequests: Sendable {
    private let requests = Mutex<Set<Request>>([])
    func insert(_ request: Request) { _ = requests.withLock { $0.insert(request) } }
    func remove(_ request: Request) { _ = requests.withLock { $0.remove(request) } }
    var all: Set<Request> { requests.withLock { $0 } }
}

extension Session {
    /// When a request's URLRequest and task are built (Alamofire's setting).
    public enum RequestSetup: Sendable {
        /// When the request is first resumed (the default).
        case lazy
        /// As soon as the request is made: its modifier and adapters run, `onURLRequestCreation`
        /// and `didCreateTask` are reported and the task exists before any resume; nothing is
        /// sent until the request is resumed. The request shows `.initialized` meanwhile, and
        /// `suspend()`/`cancel()` report its task suspended or cancelled.
        case eager
    }

    /// Creates a session from a URLSession stand-in, as Alamofire's designated initialiser:
    /// `session.configuration` is used; ``Session/session`` is a new stand-in describing this session.
    /// - Parameters: as ``init(configuration:delegate:rootQueue:startRequestsImmediately:requestSetup:requestQueue:serializationQueue:interceptor:serverTrustManager:redirectHandler:cachedResponseHandler:eventMonitors:tlsConfiguration:eventLoopGroup:resolver:)``.
    public convenience init(
        session: URLSession,
        delegate: SessionDelegate,
        rootQueue: DispatchQueue,
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
        requestQueue: DispatchQueue? = nil,
        serializationQueue: DispatchQueue? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil,
        cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = [AlamofireNotifications()]
    ) {
        self.init(configuration: session.configuration, delegate: delegate, rootQueue: rootQueue,
                  startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup,
                  requestQueue: requestQueue, serializationQueue: serializationQueue, interceptor: interceptor,
                  serverTrustManager: serverTrustManager, redirectHandler: redirectHandler,
                  cachedResponseHandler: cachedResponseHandler, eventMonitors: eventMonitors)
    }

    // MARK: Live requests

    /// Starts tracking `request` (its first resume, suspend or cancel).
    func track(_ request: Request) { context.track(request) }

    /// Stops tracking `request` (it finished).
    func untrack(_ request: Request) { context.untrack(request) }

    /// Calls `action` on ``rootQueue`` with the live requests: those resumed, suspended or
    /// cancelled that have not finished yet. Requests never resumed are not included.
    public func withAllRequests(perform action: @escaping @Sendable (Set<Request>) -> Void) {
        rootQueue.async { [activeRequests] in action(activeRequests.all) }
    }

    /// Cancels every live request (see ``withAllRequests(perform:)``) and calls `completion` on
    /// `queue` once all of them have finished (their response handlers were handed out).
    /// - Parameters:
    ///   - queue: `.main` by default.
    ///   - completion: `nil` by default.
    public func cancelAllRequests(completingOnQueue queue: DispatchQueue = .main, completion: (@Sendable () -> Void)? = nil) {
        rootQueue.async { [activeRequests] in
            let group = DispatchGroup()
            for request in activeRequests.all {
                request.cancel()
                group.enter()
                request.whenFinished { group.leave() }
            }
            if let completion { group.notify(queue: queue, execute: completion) }
        }
    }
}

extension Request {
    /// Calls `body` once the request finished (at once if it has), without starting it.
    func whenFinished(_ body: @escaping @Sendable () -> Void) {
        if case .runHandlers(let ready) = mutable.withLock({ $0.machine.handlerAppended(StoredHandler { _ in body() }) }) {
            for handler in ready { handler(false) }
        }
    }
}

/// What a request asks of the session that made it (Alamofire's protocol; ``Session`` conforms).
public protocol RequestDelegate: AnyObject, Sendable {
    /// The session's configuration.
    var sessionConfiguration: URLSessionConfiguration { get }
    /// Whether requests start on their first response handler.
    var startImmediately: Bool { get }
    /// The request was resumed and may be set up.
    func readyToPerform(request: Request)
    /// The request finished; the session may forget it.
    func cleanup(after request: Request)
    /// Asks the session's and the request's retriers whether to retry after `error`.
    func retryResult(for request: Request, dueTo error: AFError, completion: @escaping @Sendable (RetryResult) -> Void)
    /// Retries `request` after `timeDelay` seconds.
    func retryRequest(_ request: Request, withDelay timeDelay: TimeInterval?)
}

extension Session: RequestDelegate {
    /// The session's ``configuration``.
    public var sessionConfiguration: URLSessionConfiguration { configuration }
    /// ``startRequestsImmediately``.
    public var startImmediately: Bool { startRequestsImmediately }

    /// Does nothing: a Lariat request builds its URLRequest and exchange itself when resumed.
    public func readyToPerform(request: Request) {}

    /// Stops tracking `request` (it is no longer in ``withAllRequests(perform:)``).
    public func cleanup(after request: Request) { untrack(request) }

    /// Asks the request's retrier, then the session's, and calls `completion` with the answer
    /// (`.doNotRetry` when there is none). The answer may come from any thread.
    public func retryResult(for request: Request, dueTo error: AFError, completion: @escaping @Sendable (RetryResult) -> Void) {
        guard let retrier = retrier(for: request) else { return completion(.doNotRetry) }
        retrier.retry(request, for: self, dueTo: error, completion: completion)
    }

    /// Does nothing: a Lariat request schedules its own retries when its retrier answers
    /// (`RequestStateMachine`), so a retry cannot be started from outside.
    public func retryRequest(_ request: Request, withDelay timeDelay: TimeInterval?) {}
}
