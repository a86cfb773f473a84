#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Dispatch
import Synchronization

/// A credential an ``Authenticator`` applies to requests (an OAuth token, say).
public protocol AuthenticationCredential {
    /// Whether the credential must be refreshed before it is used (it expired, or is about to).
    var requiresRefresh: Bool { get }
}

/// Applies and refreshes credentials for an ``AuthenticationInterceptor``.
public protocol Authenticator: AnyObject, Sendable {
    /// The credential type.
    associatedtype Credential: AuthenticationCredential & Sendable

    /// Adds `credential` to `urlRequest` (an `Authorization` header, say).
    func apply(_ credential: Credential, to urlRequest: inout URLRequest)

    /// Refreshes `credential` and calls `completion` once with the new one or the failure. Only
    /// one refresh runs at a time per interceptor: requests arriving meanwhile wait for it.
    func refresh(_ credential: Credential, for session: Session, completion: @escaping @Sendable (Result<Credential, any Error>) -> Void)

    /// Whether the request failed because the server rejected its authentication (usually a 401).
    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool

    /// Whether `urlRequest` carries `credential`: if not, it was sent with an older credential and
    /// is simply retried with the current one, without another refresh.
    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Credential) -> Bool
}

/// Why an ``AuthenticationInterceptor`` failed a request.
public enum AuthenticationError: Error {
    /// The interceptor has no credential.
    case missingCredential
    /// More refreshes than the ``AuthenticationInterceptor/RefreshWindow`` allows.
    case excessiveRefresh
}

/// Applies an ``Authenticator``'s credential to every request, refreshes it when it expires or the
/// server rejects it, and retries the rejected requests.
///
/// Refreshes are coalesced: whatever number of requests find the credential expired or are
/// rejected with it, one refresh runs and they all wait for it, then adapt with (or are retried
/// with) the new credential, or fail with the refresh's error. A ``RefreshWindow`` stops a refresh
/// loop: one refresh too many within it fails with ``AuthenticationError/excessiveRefresh``.
public final class AuthenticationInterceptor<AuthenticatorType>: RequestInterceptor, Sendable where AuthenticatorType: Authenticator {
    /// The authenticator's credential type.
    public typealias Credential = AuthenticatorType.Credential

    /// At most ``maximumAttempts`` refreshes within ``interval`` seconds.
    public struct RefreshWindow: Sendable {
        /// The window's length in seconds.
        public let interval: TimeInterval
        /// Refreshes allowed within the window.
        public let maximumAttempts: Int

        /// Creates a window; 5 refreshes in 30 seconds by default (Alamofire's).
        public init(interval: TimeInterval = 30.0, maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    /// A request waiting for the refresh in flight.
    enum Waiter: Sendable {
        /// An adaptation: adapt again with the new credential, or fail.
        case adapt(URLRequest, Session, @Sendable (Result<URLRequest, any Error>) -> Void)
        /// A rejected request: retry it, or fail with the refresh's error.
        case retry(@Sendable (RetryResult) -> Void)
    }

    /// The authenticator (internal, as Alamofire's).
    let authenticator: AuthenticatorType
    private let machine: Mutex<CredentialRefreshMachine<Credential, Waiter>>

    /// The credential applied to requests; setting it affects the next adaptation.
    public var credential: Credential? {
        get { machine.withLock { $0.credential } }
        set { machine.withLock { $0.credential = newValue } }
    }

    /// Creates an interceptor.
    /// - Parameters:
    ///   - authenticator: Applies and refreshes the credential.
    ///   - credential: The first credential; `nil` fails requests with
    ///     ``AuthenticationError/missingCredential`` until one is set.
    ///   - refreshWindow: The refresh limit; `nil` for none. 5 in 30 s by default.
    public init(authenticator: AuthenticatorType, credential: Credential? = nil, refreshWindow: RefreshWindow? = RefreshWindow()) {
        self.authenticator = authenticator
        self.machine = Mutex(CredentialRefreshMachine(
            credential: credential, window: refreshWindow.map { (interval: $0.interval, maximumAttempts: $0.maximumAttempts) }
        ))
    }

    /// Applies the credential, or waits for a refresh (one already running, or one started
    /// because the credential requires it).
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        let waiter = Waiter.adapt(urlRequest, session, completion)
        perform(machine.withLock { $0.adapt(waiter, now: Self.now(), requiresRefresh: { $0.requiresRefresh }) }, session: session)
    }

    /// Retries a request the server rejected: at once if it carried an older credential, else
    /// after a refresh (shared with every other request waiting for one).
    public func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        guard let urlRequest = request.request, let response = request.response,
              authenticator.didRequest(urlRequest, with: response, failDueToAuthenticationError: error) else {
            return completion(.doNotRetry)
        }
        guard let credential else { return completion(.doNotRetryWithError(AuthenticationError.missingCredential)) }
        guard authenticator.isRequest(urlRequest, authenticatedWith: credential) else { return completion(.retry) }
        perform(machine.withLock { $0.refreshRejected(.retry(completion), credential: credential, now: Self.now()) }, session: session)
    }

    /// Acts on the machine's decision, outside the lock.
    private func perform(_ action: CredentialRefreshMachine<Credential, Waiter>.Action, session: Session) {
        switch action {
        case .proceed(let credential, let waiter):
            guard case .adapt(var urlRequest, _, let completion) = waiter else {
                preconditionFailure("proceed is only decided for an adaptation")
            }
            authenticator.apply(credential, to: &urlRequest)
            completion(.success(urlRequest))
        case .wait:
            break
        case .refresh(let credential):
            authenticator.refresh(credential, for: session) { [self] result in
                perform(machine.withLock { $0.refreshFinished(result) }, session: session)
            }
        case .resume(let waiters, let result):
            for waiter in waiters { resume(waiter, with: result) }
        }
    }

    private func resume(_ waiter: Waiter, with result: Result<Credential, any Error>) {
        switch (waiter, result) {
        case (.adapt(let urlRequest, let session, let completion), .success):
            adapt(urlRequest, for: session, completion: completion)  // Checks the new credential as any adaptation.
        case (.adapt(_, _, let completion), .failure(let error)):
            completion(.failure(error))
        case (.retry(let completion), .success):
            completion(.retry)
        case (.retry(let completion), .failure(let error)):
            completion(.doNotRetryWithError(error))
        }
    }

    /// Seconds on a monotonic clock, for the refresh window.
    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The credential and the refresh in flight, as one value: requests in, what to do out (no user
/// code runs inside; `AuthenticationInterceptor` holds it in a mutex). Generic so table tests
/// can use plain values.
///
/// Phases: `idle` ─(credential requires refresh, or a rejection)─▶ `refreshing(waiters)`
/// ─refreshFinished─▶ `idle`, handing every waiter the result. While refreshing, every adaptation
/// and rejection waits.
struct CredentialRefreshMachine<Credential, Waiter> {
    private enum Phase {
        /// No refresh runs. Exits: a refresh starts → refreshing.
        case idle
        /// One refresh runs; these wait for it. Exit: refreshFinished → idle.
        case refreshing([Waiter])
    }

    /// What the interceptor must do.
    enum Action {
        /// Apply the credential to this waiter's request.
        case proceed(Credential, Waiter)
        /// Nothing: the waiter was queued behind the refresh in flight.
        case wait
        /// Start refreshing this credential and report ``refreshFinished(_:)``.
        case refresh(Credential)
        /// Hand each waiter the result (success: adapt again or retry; failure: fail).
        case resume([Waiter], Result<Credential, any Error>)
    }

    /// The credential applied to requests.
    var credential: Credential?
    /// At most `maximumAttempts` refreshes within `interval` seconds; `nil` for no limit.
    let window: (interval: Double, maximumAttempts: Int)?
    private var phase = Phase.idle
    /// Start times of the refreshes still inside the window.
    private var refreshTimes: [Double] = []
    /// Refreshes started so far.
    private(set) var refreshCount = 0

    init(credential: Credential?, window: (interval: Double, maximumAttempts: Int)?) {
        self.credential = credential
        self.window = window
    }

    /// A request is being adapted.
    mutating func adapt(_ waiter: Waiter, now: Double, requiresRefresh: (Credential) -> Bool) -> Action {
        if case .refreshing(let waiters) = phase {
            phase = .refreshing(waiters + [waiter])
            return .wait
        }
        guard let credential else { return .resume([waiter], .failure(AuthenticationError.missingCredential)) }
        guard requiresRefresh(credential) else { return .proceed(credential, waiter) }
        return startRefresh(of: credential, for: waiter, now: now)
    }

    /// The server rejected a request sent with the current `credential`.
    mutating func refreshRejected(_ waiter: Waiter, credential: Credential, now: Double) -> Action {
        if case .refreshing(let waiters) = phase {
            phase = .refreshing(waiters + [waiter])
            return .wait
        }
        return startRefresh(of: credential, for: waiter, now: now)
    }

    /// The refresh ended.
    mutating func refreshFinished(_ result: Result<Credential, any Error>) -> Action {
        guard case .refreshing(let waiters) = phase else {
            preconditionFailure("refreshFinished in phase \(phase): only the one refresh started reports it, once")
        }
        phase = .idle
        if case .success(let refreshed) = result { credential = refreshed }
        return .resume(waiters, result)
    }

    private mutating func startRefresh(of credential: Credential, for waiter: Waiter, now: Double) -> Action {
        if let window {
            refreshTimes.removeAll { $0 < now - window.interval }
            if refreshTimes.count >= window.maximumAttempts { return .resume([waiter], .failure(AuthenticationError.excessiveRefresh)) }
            refreshTimes.append(now)
        }
        refreshCount += 1
        phase = .refreshing([waiter])
        return .refresh(credential)
    }
}
