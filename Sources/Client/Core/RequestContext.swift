#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport
import Dispatch
import Synchronization
import EventLoop

// What a request needs from the session that made it, handed to the request when it is made.
//
// A request used to hold its `Session` and reach about twenty of its members. It now holds
// this context instead: the connection pool, the configuration's settings and cache, the
// monitors, the interceptor and handlers, the queues, and the live-request set. The session
// holds the context too, and is the only owner of itself: a request never keeps its session
// alive. When the last reference to the session goes, its `deinit` calls `sessionReleased()`,
// which finishes every request still live with `AFError.sessionDeinitialized` and tells the
// monitors the session became invalid (`Session+Lifecycle.swift`).
//
// Every stored property is a `let` of a Sendable type except `owner` (behind its mutex) and
// `released` (atomic), so the class is Sendable without `@unchecked`.

/// The part of a ``Session`` its requests use: handed to each request at creation instead of
/// the session itself, so requests do not keep their session alive.
final class RequestContext: Sendable {
    /// The connections requests are sent on.
    let pool: ConnectionPool
    /// The configuration the session was created with (cURL descriptions, credential storage,
    /// redirect limit, cache policy).
    let configuration: URLSessionConfiguration
    /// The configuration's snapshot: timeouts, headers, cookies, content decoding.
    let settings: URLSessionConfiguration.Settings
    /// The stand-in URLSession monitors receive in task events.
    let urlSession: URLSession
    /// The session's monitors.
    let eventMonitor: CompositeEventMonitor
    /// Adapts and retries every request, before each request's own interceptor.
    let interceptor: (any RequestInterceptor)?
    /// Decides redirects of requests without their own handler.
    let redirectHandler: (any RedirectHandler)?
    /// Decides what is cached for requests without their own handler.
    let cachedResponseHandler: (any CachedResponseHandler)?
    /// The configuration's cache, kept when the session was created.
    let urlCache: URLCache?
    /// The serial queue requests' queues target.
    let rootQueue: DispatchQueue
    /// Where response serializers run.
    let serializationQueue: DispatchQueue
    /// The queue given to the session as `requestQueue:`; `nil`: requests build on the thread
    /// that resumes them.
    let givenRequestQueue: DispatchQueue?
    /// Whether requests start on their first response handler.
    let startRequestsImmediately: Bool
    /// When URLRequests and tasks are built.
    let requestSetup: Session.RequestSetup
    /// Requests from their first resume, suspend or cancel until they finish.
    let activeRequests = ActiveRequests()
    /// The session, weakly: passed to adapters, retriers and ``Request/delegate``.
    private let owner = Mutex(WeakSession())
    /// Set once the session was released: requests that start later fail at once.
    private let released = Atomic<Bool>(false)

    struct WeakSession: Sendable {
        weak var session: Session?
    }

    init(pool: ConnectionPool, configuration: URLSessionConfiguration, settings: URLSessionConfiguration.Settings,
         urlSession: URLSession, eventMonitor: CompositeEventMonitor, interceptor: (any RequestInterceptor)?,
         redirectHandler: (any RedirectHandler)?, cachedResponseHandler: (any CachedResponseHandler)?, urlCache: URLCache?,
         rootQueue: DispatchQueue, serializationQueue: DispatchQueue, givenRequestQueue: DispatchQueue?,
         startRequestsImmediately: Bool, requestSetup: Session.RequestSetup) {
        self.pool = pool
        self.configuration = configuration
        self.settings = settings
        self.urlSession = urlSession
        self.eventMonitor = eventMonitor
        self.interceptor = interceptor
        self.redirectHandler = redirectHandler
        self.cachedResponseHandler = cachedResponseHandler
        self.urlCache = urlCache
        self.rootQueue = rootQueue
        self.serializationQueue = serializationQueue
        self.givenRequestQueue = givenRequestQueue
        self.startRequestsImmediately = startRequestsImmediately
        self.requestSetup = requestSetup
    }

    /// The session, while it lives.
    var session: Session? { owner.withLock { $0.session } }

    /// Records the session that owns this context (called once, at the end of its init).
    func attach(_ session: Session) { owner.withLock { $0.session = session } }

    /// Whether the session was released: a request starting now fails with `sessionDeinitialized`.
    var isReleased: Bool { released.load(ordering: .acquiring) }

    /// The configuration's content decoding settings.
    var contentDecoding: ContentDecoding { settings.contentDecoding }

    /// The configuration's response reading switches (fetch's; all off by default).
    var responseReading: ResponseReading { settings.responseReading }

    // MARK: Live requests

    /// Starts tracking `request` (its first resume, suspend or cancel). A request tracked after
    /// the session was released is finished at once.
    func track(_ request: Request) {
        activeRequests.insert(request)
        if isReleased { request.sessionReleased() }
    }

    /// Stops tracking `request` (it finished).
    func untrack(_ request: Request) { activeRequests.remove(request) }

    /// The session's last reference went: every live request finishes with
    /// `AFError.sessionDeinitialized` (its exchange cancelled on the wire), idle connections
    /// close, and the monitors hear `urlSession(_:didBecomeInvalidWithError:)` with no error,
    /// as after URLSession's `invalidateAndCancel()`.
    func sessionReleased() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for request in activeRequests.all { request.sessionReleased() }
        pool.closeIdleConnections()
        let urlSession = urlSession
        eventMonitor.urlSession(urlSession, didBecomeInvalidWithError: nil)
    }

    // MARK: Mapping to the wire

    /// What the transport sends for `request`: the wire mapping
    /// (`TransportRequest.init(_:settings:body:cookies:start:)`) with the session's settings
    /// and the cookies the configuration's storage holds for the request's URL.
    /// - Parameters:
    ///   - request: The request.
    ///   - uploadBody: An upload's body (a file streamed from disk, or bytes); `nil` sends
    ///     `request.httpBody`.
    ///   - start: When the request started, for the total deadline
    ///     (`timeoutIntervalForResource`); now by default. A retry passes its first start.
    /// - Returns: The request, or for a URL the transport cannot send (no scheme, `file:`,
    ///   `ftp:`) a refused one (``TransportRequest/refused(_:)``): the exchange is made and fails
    ///   at once with `URLError.unsupportedURL`, so the failure is a session-task error with a
    ///   task, the URLRequest and metrics, as URLSession reports it.
    /// - Throws: What the mapping throws otherwise.
    func transportRequest(for request: URLRequest, uploadBody: RequestBody? = nil, start: Deadline = .now()) throws -> TransportRequest {
        let cookies = request.url.flatMap { settings.cookieFieldValue(for: request, url: $0) }
        do {
            return try TransportRequest(request, settings: settings, body: uploadBody, cookies: cookies, start: start)
        } catch let refusal as TransportError {
            return .refused(refusal)
        }
    }
}
