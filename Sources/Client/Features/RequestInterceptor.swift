#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

// Alamofire's interceptor protocols and their closure and composite implementations. A request
// runs its adapters each time it starts an exchange (the first time and on every retry), and asks
// its retriers when an exchange (or its adaptation) fails; `RequestStateMachine` holds the states
// in between. Adapters and retriers run on the request's `underlyingQueue`.

/// What an adapter knows about the request it adapts.
public struct RequestAdapterState: Sendable {
    /// The ``Request/id`` of the request being adapted.
    public let requestID: UUID
    /// The session running the request.
    public let session: Session
}

/// Changes a URLRequest before it is sent: adds a token, signs it, or refuses it.
public protocol RequestAdapter: Sendable {
    /// Calls `completion` with the adapted request, or a failure that fails the request with
    /// ``AFError/requestAdaptationFailed(error:)``.
    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void)

    /// As ``adapt(_:for:completion:)``, with the request's ID; the default calls that method.
    func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void)
}

extension RequestAdapter {
    /// Calls ``adapt(_:for:completion:)`` with the state's session.
    public func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void) {
        adapt(urlRequest, for: state.session, completion: completion)
    }
}

/// What a retrier decided.
public enum RetryResult: Sendable {
    /// Retry now.
    case retry
    /// Retry after this many seconds.
    case retryWithDelay(TimeInterval)
    /// Do not retry; the request keeps its error.
    case doNotRetry
    /// Do not retry; the request fails with ``AFError/requestRetryFailed(retryError:originalError:)``.
    case doNotRetryWithError(any Error)
}

extension RetryResult {
    /// Whether a retry was asked for.
    var retryRequired: Bool {
        switch self {
        case .retry, .retryWithDelay: true
        case .doNotRetry, .doNotRetryWithError: false
        }
    }

    /// The delay before the retry: 0 for `.retry`, `nil` when not retrying.
    var delay: TimeInterval? {
        switch self {
        case .retry: 0
        case .retryWithDelay(let delay): delay
        case .doNotRetry, .doNotRetryWithError: nil
        }
    }

    /// The error of `.doNotRetryWithError`.
    var error: (any Error)? {
        if case .doNotRetryWithError(let error) = self { return error }
        return nil
    }
}

/// Decides whether a failed request is retried.
public protocol RequestRetrier: Sendable {
    /// Calls `completion` once with the decision for `request`, which failed with `error` (an
    /// ``AFError``). `request.retryCount` says how many retries already ran.
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void)
}

/// Both an adapter and a retrier; each half defaults to doing nothing.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Passes the request through unchanged.
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(urlRequest))
    }

    /// Does not retry.
    public func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(.doNotRetry)
    }
}

/// An adapting closure: calls its completion with the adapted request or a failure.
public typealias AdaptHandler = @Sendable (_ request: URLRequest, _ session: Session, _ completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void

/// A retrying closure: calls its completion with the decision.
public typealias RetryHandler = @Sendable (_ request: Request, _ session: Session, _ error: any Error, _ completion: @escaping @Sendable (RetryResult) -> Void) -> Void

/// An adapter made of a closure. `@unchecked Sendable` for subclassing (`open`); it stores only
/// a `let` of a `@Sendable` closure.
open class Adapter: @unchecked Sendable, RequestInterceptor {
    private let adaptHandler: AdaptHandler

    /// Creates an adapter that runs `adaptHandler`.
    public init(_ adaptHandler: @escaping AdaptHandler) {
        self.adaptHandler = adaptHandler
    }

    /// Runs the closure.
    open func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        adaptHandler(urlRequest, session, completion)
    }

    /// Runs the closure with the state's session.
    open func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        adaptHandler(urlRequest, state.session, completion)
    }
}

extension RequestAdapter where Self == Adapter {
    /// An ``Adapter`` running `closure`.
    public static func adapter(using closure: @escaping AdaptHandler) -> Adapter {
        Adapter(closure)
    }
}

/// A retrier made of a closure. `@unchecked Sendable` for subclassing (`open`); it stores only a
/// `let` of a `@Sendable` closure.
open class Retrier: @unchecked Sendable, RequestInterceptor {
    private let retryHandler: RetryHandler

    /// Creates a retrier that runs `retryHandler`.
    public init(_ retryHandler: @escaping RetryHandler) {
        self.retryHandler = retryHandler
    }

    /// Runs the closure.
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        retryHandler(request, session, error, completion)
    }
}

extension RequestRetrier where Self == Retrier {
    /// A ``Retrier`` running `closure`.
    public static func retrier(using closure: @escaping RetryHandler) -> Retrier {
        Retrier(closure)
    }
}

/// Adapters and retriers run in order.
///
/// Adapters run one after another, each given the previous one's output; the first failure
/// stops the chain and fails the request. Retriers are asked one after another until one says
/// anything but `.doNotRetry` (`.retry`, `.retryWithDelay` or `.doNotRetryWithError`); if all
/// say `.doNotRetry`, so does the interceptor. `@unchecked Sendable` for subclassing (`open`);
/// its stored properties are `let` arrays of `Sendable` values.
open class Interceptor: @unchecked Sendable, RequestInterceptor {
    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// The retriers, in the order they are asked.
    public let retriers: [any RequestRetrier]

    /// One closure adapter and one closure retrier.
    public init(adaptHandler: @escaping AdaptHandler, retryHandler: @escaping RetryHandler) {
        adapters = [Adapter(adaptHandler)]
        retriers = [Retrier(retryHandler)]
    }

    /// One adapter and one retrier.
    public init(adapter: any RequestAdapter, retrier: any RequestRetrier) {
        adapters = [adapter]
        retriers = [retrier]
    }

    /// `adapters` then `interceptors` as adapters; `retriers` then `interceptors` as retriers.
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []) {
        self.adapters = adapters + interceptors.map { $0 as any RequestAdapter }
        self.retriers = retriers + interceptors.map { $0 as any RequestRetrier }
    }

    /// Runs the adapters in order (each through its `adapt(_:for:completion:)`).
    open func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        Self.adapt(urlRequest, adapters[...], completion: completion) { adapter, request, next in
            adapter.adapt(request, for: session, completion: next)
        }
    }

    /// Runs the adapters in order (each through its `adapt(_:using:completion:)`).
    open func adapt(_ urlRequest: URLRequest, using state: RequestAdapterState, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        Self.adapt(urlRequest, adapters[...], completion: completion) { adapter, request, next in
            adapter.adapt(request, using: state, completion: next)
        }
    }

    /// Asks the retriers in order until one decides something other than `.doNotRetry`.
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        Self.retry(request, session, error, retriers[...], completion: completion)
    }

    private static func adapt(
        _ request: URLRequest, _ pending: ArraySlice<any RequestAdapter>,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void,
        step: @escaping @Sendable (any RequestAdapter, URLRequest, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void
    ) {
        guard let adapter = pending.first else { return completion(.success(request)) }
        step(adapter, request) { result in
            switch result {
            case .success(let adapted): adapt(adapted, pending.dropFirst(), completion: completion, step: step)
            case .failure: completion(result)
            }
        }
    }

    private static func retry(
        _ request: Request, _ session: Session, _ error: any Error, _ pending: ArraySlice<any RequestRetrier>,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        guard let retrier = pending.first else { return completion(.doNotRetry) }
        retrier.retry(request, for: session, dueTo: error) { result in
            if case .doNotRetry = result {
                retry(request, session, error, pending.dropFirst(), completion: completion)
            } else {
                completion(result)
            }
        }
    }
}

extension RequestInterceptor where Self == Interceptor {
    /// An ``Interceptor`` of one closure adapter and one closure retrier.
    public static func interceptor(adapter: @escaping AdaptHandler, retrier: @escaping RetryHandler) -> Interceptor {
        Interceptor(adaptHandler: adapter, retryHandler: retrier)
    }

    /// An ``Interceptor`` of one adapter and one retrier.
    public static func interceptor(adapter: any RequestAdapter, retrier: any RequestRetrier) -> Interceptor {
        Interceptor(adapter: adapter, retrier: retrier)
    }

    /// An ``Interceptor`` composing adapters, retriers and interceptors in order.
    public static func interceptor(
        adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []
    ) -> Interceptor {
        Interceptor(adapters: adapters, retriers: retriers, interceptors: interceptors)
    }
}

// Session first, then request: Alamofire 5.12's order (its `Request.adapt(using:)` documents
// "called after the adapters of the parent Session"; before 5.12 the request's ran first).
extension Session {
    /// The session's interceptor, then the request's, as adapters (Alamofire 5.12's order).
    func adapter(for request: Request) -> (any RequestAdapter)? {
        context.adapter(combining: request.interceptor)
    }

    /// The session's interceptor, then the request's, as retriers (Alamofire 5.12's order).
    func retrier(for request: Request) -> (any RequestRetrier)? {
        context.retrier(for: request)
    }
}

extension RequestContext {

    /// The session's interceptor, then `own` (a request's), as adapters.
    func adapter(combining own: (any RequestInterceptor)?) -> (any RequestAdapter)? {
        switch (own, interceptor) {
        case (let own?, let shared?): Interceptor(adapters: [shared, own])
        case (let own?, nil): own
        case (nil, let shared?): shared
        case (nil, nil): nil
        }
    }

    /// The session's interceptor, then the request's, as retriers (Alamofire 5.12's order).
    func retrier(for request: Request) -> (any RequestRetrier)? {
        switch (request.interceptor, interceptor) {
        case (let own?, let shared?): Interceptor(retriers: [shared, own])
        case (let own?, nil): own
        case (nil, let shared?): shared
        case (nil, nil): nil
        }
    }
}
