#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Wire
import EventLoop
import TLS
import Transport

/// Alamofire's `AF`: the default session.
public let AF = Session.default

/// Modifies a URLRequest before it is sent.
public typealias RequestModifier = @Sendable (inout URLRequest) throws -> Void

/// Creates and runs requests over Lariat's own transport; shares connections between them.
///
/// A thin façade: request building happens in the request types, connection handling in
/// `ConnectionPool`, the HTTP/1.1 exchange in `HTTP1Connection`.
///
/// `open`, as in Alamofire. `@unchecked Sendable` because Swift 6 lets a non-final class be
/// `Sendable` only unchecked; safe because every stored property is a `let` of a `Sendable` type
/// (the pool synchronises itself). A subclass that adds mutable state must guard it itself.
open class Session: @unchecked Sendable {
    /// The shared default session, used by ``AF``.
    public static let `default` = Session()

    /// A serial queue owned by Lariat, formerly the default completion queue.
    ///
    /// Completion handlers now default to `.main`, as in Alamofire, which has no such member.
    /// Pass this queue (or your own) as `queue:` where the main queue is not served.
    @available(*, deprecated, message: "Completion handlers default to .main as in Alamofire; pass your own DispatchQueue as queue: where the main queue is not served")
    public static let defaultCompletionQueue = DispatchQueue(label: "org.lariat.completion")

    /// The configuration the session was created with (a copy: later changes to the original
    /// do not affect the session).
    public let configuration: URLSessionConfiguration
    /// The serial queue that all requests' internal queues target.
    public let rootQueue: DispatchQueue
    /// Whether requests start when their first response handler is added. `true` by default.
    public let startRequestsImmediately: Bool
    /// The queue response serializers run on: the one given, else ``rootQueue``.
    public let serializationQueue: DispatchQueue
    /// The per-host trust evaluators, run during each TLS handshake; `nil` for default evaluation everywhere.
    public let serverTrustManager: ServerTrustManager?
    /// The TLS settings of https connections: trust roots, client identity, versions, ciphers,
    /// CRL files and OCSP policy.
    public let tlsConfiguration: TLSConfiguration
    /// Where connections go for each host: the system resolver, or fixed addresses (curl's `--resolve`).
    public let resolver: HostResolver
    /// Adapts and retries every request of the session, before each request's own interceptor.
    public let interceptor: (any RequestInterceptor)?
    /// The stand-in `URLSession` monitors receive; it describes this session (``URLSession``).
    public let session: URLSession
    /// Kept for Alamofire's signature: Lariat's transport reports to requests directly, so
    /// nothing calls its URLSession callbacks (``SessionDelegate``).
    public let delegate: SessionDelegate
    /// When URLRequests and tasks are built: on first resume, or when the request is made (``RequestSetup``).
    public let requestSetup: RequestSetup
    /// The queue URLRequests are built and adapted on: a serial queue targeting ``rootQueue``
    /// unless one was given. Lariat builds on the thread that resumes the request unless a queue
    /// was given to the initialiser (one thread hop less per request).
    public let requestQueue: DispatchQueue
    /// The queue given as `requestQueue:`, if one was.
    let givenRequestQueue: DispatchQueue?
    /// Every event of every request goes to these monitors, each on its queue.
    public let eventMonitor: CompositeEventMonitor
    /// The monitors a session gets when `eventMonitors:` is not given: ``AlamofireNotifications``.
    public let defaultEventMonitors: [any EventMonitor] = [AlamofireNotifications()]
    /// What the session's requests use of it, handed to each at creation (`RequestContext.swift`):
    /// requests hold it, never the session, so releasing the session finishes them.
    let context: RequestContext
    /// Requests from their first resume, suspend or cancel until they finish (`Session+Lifecycle.swift`).
    var activeRequests: ActiveRequests { context.activeRequests }
    /// Decides what of each response goes into the configuration's ``URLCache``; a request's own
    /// handler wins. `nil`: responses are stored as the cache rules allow.
    public let cachedResponseHandler: (any CachedResponseHandler)?
    /// The configuration's cache, kept when the session was created (`Request+Cache.swift`).
    let urlCache: URLCache?
    /// Decides every redirect of the session's requests that has no handler of its own; `nil`
    /// follows them, as URLSession.
    public let redirectHandler: (any RedirectHandler)?
    let pool: ConnectionPool
    let settings: URLSessionConfiguration.Settings

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: Timeouts, default headers and connections per host;
    ///     `URLSessionConfiguration.af.default` by default (Lariat's User-Agent and Accept headers).
    ///   - delegate: Kept for Alamofire's signature (``SessionDelegate``); a new one by default.
    ///   - rootQueue: The serial queue requests' work targets.
    ///   - startRequestsImmediately: Start requests on their first response handler. `true` by default.
    ///   - requestSetup: When URLRequests and tasks are built: `.lazy` (the default) on first
    ///     resume, `.eager` when the request is made (``RequestSetup``).
    ///   - requestQueue: Where URLRequests are built and adapters start; `nil` (the default):
    ///     on the thread that resumes the request.
    ///   - serializationQueue: Where response serializers run; `rootQueue` when `nil` (the default).
    ///   - interceptor: Adapts and retries every request, before the request's own interceptor;
    ///     `nil` by default.
    ///   - serverTrustManager: Per-host ``ServerTrustEvaluating`` evaluators, run during the TLS
    ///     handshake before any request byte is sent; `nil` (the default) means default evaluation
    ///     (system trust store, or `tlsConfiguration`'s roots, with host name checks).
    ///   - redirectHandler: Decides redirects for requests without their own handler; `nil` (the
    ///     default) follows them by URLSession's rules, up to `configuration.httpMaximumRedirects`.
    ///   - cachedResponseHandler: Decides what of each response is stored in the configuration's
    ///     ``URLCache``; `nil` (the default) stores what the cache rules allow.
    ///   - eventMonitors: Receive every request's events; `[AlamofireNotifications()]` by default.
    ///   - tlsConfiguration: TLS settings for https: set `trustRoots` (for example
    ///     `.file("ca.pem")`, curl's `--cacert`) and `clientIdentity` (`.pemFiles(certificateChain:privateKey:)`
    ///     or `.pkcs12(file:password:)`) here. `nil` (the default) is `TLSConfiguration()`: system
    ///     roots, TLS 1.2+, forward-secret AEAD suites, security level 2. An identity or root file
    ///     that cannot be loaded makes every https request fail with `.secureConnectionFailed`.
    ///   - eventLoopGroup: The loops connections live on; `EventLoopGroup.shared` by default.
    ///   - resolver: Fixed IP addresses to connect to for some hosts instead of resolving them
    ///     (curl's `--resolve`); ``HostResolver/system`` (no overrides) by default. Only the TCP
    ///     connection uses them: the `Host` header, TLS SNI, certificate host checks and
    ///     `serverTrustManager` lookups keep the URL's host name.
    public init(
        configuration: URLSessionConfiguration = .af.default,
        delegate: SessionDelegate = SessionDelegate(),
        rootQueue: DispatchQueue = DispatchQueue(label: "org.lariat.session.rootQueue"),
        startRequestsImmediately: Bool = true,
        requestSetup: RequestSetup = .lazy,
        requestQueue: DispatchQueue? = nil,
        serializationQueue: DispatchQueue? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        serverTrustManager: ServerTrustManager? = nil,
        redirectHandler: (any RedirectHandler)? = nil,
        cachedResponseHandler: (any CachedResponseHandler)? = nil,
        eventMonitors: [any EventMonitor] = [AlamofireNotifications()],
        tlsConfiguration: TLSConfiguration? = nil,
        eventLoopGroup: EventLoopGroup = .shared,
        resolver: HostResolver = .system
    ) {
        self.configuration = configuration.copy()
        self.settings = configuration.settings
        self.rootQueue = rootQueue
        self.session = URLSession(configuration: self.configuration, delegate: delegate)
        self.delegate = delegate
        self.requestSetup = requestSetup
        self.requestQueue = requestQueue ?? DispatchQueue(label: "\(rootQueue.label).requestQueue", target: rootQueue)
        self.givenRequestQueue = requestQueue
        self.eventMonitor = CompositeEventMonitor(monitors: eventMonitors)
        self.startRequestsImmediately = startRequestsImmediately
        self.serializationQueue = serializationQueue ?? rootQueue
        self.interceptor = interceptor
        self.serverTrustManager = serverTrustManager
        self.cachedResponseHandler = cachedResponseHandler
        self.urlCache = configuration.settings.cache.cache
        self.redirectHandler = redirectHandler
        let tlsConfiguration = tlsConfiguration ?? TLSConfiguration()
        self.tlsConfiguration = tlsConfiguration
        self.resolver = resolver
        var poolConfiguration = ConnectionPool.Configuration()
        poolConfiguration.resolver = resolver
        poolConfiguration.socketSetup = settings.socketSetup
        poolConfiguration.sendsPROXYProtocolHeader = settings.sendsPROXYProtocolHeader
        poolConfiguration.maxConnectionsPerHost = max(1, settings.httpMaximumConnectionsPerHost)
        poolConfiguration.tlsContext = LazyTLSContext(configuration: tlsConfiguration)
        poolConfiguration.observer = CombinedPoolObserver.of(eventMonitors)
        if let serverTrustManager {
            poolConfiguration.trustEvaluator = { host in serverTrustManager.tlsEvaluator(forHost: host) }
        }
        self.pool = ConnectionPool(group: eventLoopGroup, configuration: poolConfiguration)
        self.context = RequestContext(
            pool: pool, configuration: self.configuration, settings: settings, urlSession: session,
            eventMonitor: eventMonitor, interceptor: interceptor, redirectHandler: redirectHandler,
            cachedResponseHandler: cachedResponseHandler, urlCache: urlCache, rootQueue: rootQueue,
            serializationQueue: self.serializationQueue, givenRequestQueue: requestQueue,
            startRequestsImmediately: startRequestsImmediately, requestSetup: requestSetup)
        context.attach(self)
    }

    /// Finishes every live request with ``AFError/sessionDeinitialized`` (cancelling its exchange
    /// on the wire), closes idle connections and reports the session invalid to the monitors, as
    /// Alamofire's session does when released.
    deinit {
        context.sessionReleased()
    }

    // MARK: Requests

    /// Creates a request for `convertible` with `[String: Any]` parameters encoded by `encoding`.
    /// - Parameters:
    ///   - convertible: The URL.
    ///   - method: `.get` by default.
    ///   - parameters: Encoded into the query or body; `nil` by default.
    ///   - encoding: `URLEncoding.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func request(
        _ convertible: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        let parts = RequestParts(url: convertible, method: method, parameters: ParametersBox(parameters), encoding: encoding, headers: headers)
        return DataRequest(builder: .parts(parts), modifier: requestModifier, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Creates a request for `convertible` with `Encodable` parameters encoded by `encoder`.
    /// - Parameters:
    ///   - convertible: The URL.
    ///   - method: `.get` by default.
    ///   - parameters: Encoded into the query or body; `nil` by default.
    ///   - encoder: `URLEncodedFormParameterEncoder.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request; it starts when a response handler is added.
    public func request<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default,
        headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        let convertible = ClosureRequestConvertible {
            let request = try URLRequest(url: convertible, method: method, headers: headers)
            return try encoder.encode(parameters, into: request)
        }
        return DataRequest(builder: .convertible(convertible), modifier: requestModifier, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }

    /// Creates a request from a URLRequest or another `URLRequestConvertible`.
    /// - Parameters:
    ///   - convertible: The request.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Whether the first response handler starts the request;
    ///     `nil` (the default): the session's `startRequestsImmediately`.
    public func request(_ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
                        shouldAutomaticallyResume: Bool? = nil) -> DataRequest {
        DataRequest(builder: .convertible(convertible), modifier: nil, interceptor: interceptor, context: context)
            .automaticallyResuming(shouldAutomaticallyResume)
    }
}

extension Session {
    /// What the transport sends for `request`: ``RequestContext``'s mapping with this session's
    /// settings and cookies (see `RequestContext.transportRequest(for:uploadBody:start:)`).
    func transportRequest(for request: URLRequest, uploadBody: RequestBody? = nil, start: Deadline = .now()) throws -> TransportRequest {
        try context.transportRequest(for: request, uploadBody: uploadBody, start: start)
    }
}

/// What a ``DataRequest`` builds its URLRequest from, when it starts: a convertible, or the parts
/// given to `Session.request(_:method:parameters:encoding:headers:…)`. The parts are stored in the
/// request as they are: a closure capturing them, or the parts boxed as
/// `any URLRequestConvertible` (they do not fit an existential's inline buffer), was an
/// allocation per request. `DataRequest.convertible` boxes them only when read.
enum RequestBuilder: Sendable {
    /// A convertible given by the caller (or a closure of the session's).
    case convertible(any URLRequestConvertible)
    /// A URL, method, `[String: Any]` parameters, their encoding and headers.
    case parts(RequestParts)

    /// The builder as a convertible.
    var convertible: any URLRequestConvertible {
        switch self {
        case .convertible(let convertible): convertible
        case .parts(let parts): parts
        }
    }

    /// Builds the URLRequest.
    func asURLRequest() throws -> URLRequest {
        switch self {
        case .convertible(let convertible): try convertible.asURLRequest()
        case .parts(let parts): try parts.asURLRequest()
        }
    }
}

/// The arguments of `Session.request(_:method:parameters:encoding:headers:…)`, made into a
/// URLRequest when the request starts (Alamofire's `RequestConvertible`).
struct RequestParts: URLRequestConvertible {
    let url: any URLConvertible
    let method: HTTPMethod
    let parameters: ParametersBox
    let encoding: any ParameterEncoding
    let headers: HTTPHeaders?

    func asURLRequest() throws -> URLRequest {
        let request = try URLRequest(url: url, method: method, headers: headers)
        // URLEncoding returns a request without parameters unchanged; skipping it saves
        // boxing the request as `any URLRequestConvertible`, an allocation per request.
        if parameters.parameters == nil, encoding is URLEncoding { return request }
        return try encoding.encode(request, with: parameters.parameters)
    }
}

/// Builds a URLRequest lazily, when the request starts.
struct ClosureRequestConvertible: URLRequestConvertible {
    let make: @Sendable () throws -> URLRequest
    init(_ make: @escaping @Sendable () throws -> URLRequest) { self.make = make }
    func asURLRequest() throws -> URLRequest { try make() }
}

/// Carries `[String: Any]` parameters into the request's builder. `Parameters` is not Sendable;
/// the dictionary is only read once, by the builder, on the request's queue.
struct ParametersBox: @unchecked Sendable {
    let parameters: Parameters?
    init(_ parameters: Parameters?) { self.parameters = parameters }
}
