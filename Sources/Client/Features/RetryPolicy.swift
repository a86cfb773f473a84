#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif

/// Retries failed requests with exponential backoff: idempotent methods only, on a retryable
/// status code or a transient `URLError` (Alamofire's `RetryPolicy`, with its defaults).
///
/// Retry *n* (counting from 0, ``Request/retryCount``) waits
/// `exponentialBackoffScale × exponentialBackoffBaseⁿ` seconds; with the defaults:
///
/// | retry | delay  |
/// |-------|--------|
/// | 1st   | 0.5 s  |
/// | 2nd   | 1 s    |
/// | (3rd) | not made: `retryLimit` is 2 |
///
/// A retry is asked only when the request failed, so a 500 is retried only if validation turned
/// it into an error (`.validate()`). This is the user-facing retry; the transport's own silent
/// retry of a request that hit a stale keep-alive connection before anything was sent is separate
/// and does not count in ``Request/retryCount``.
///
/// `@unchecked Sendable` for subclassing (`open`): every stored property is a `let` of a
/// `Sendable` value.
open class RetryPolicy: @unchecked Sendable, RequestInterceptor {
    /// Two retries at most.
    public static let defaultRetryLimit: UInt = 2
    /// Each retry waits twice as long as the one before.
    public static let defaultExponentialBackoffBase: UInt = 2
    /// The first retry waits half a second.
    public static let defaultExponentialBackoffScale: Double = 0.5
    /// The idempotent methods of RFC 9110 §9.2.2 (not POST, PATCH or CONNECT).
    public static let defaultRetryableHTTPMethods: Set<HTTPMethod> = [.delete, .get, .head, .options, .put, .trace]
    /// Request Timeout, Internal Server Error, Bad Gateway, Service Unavailable, Gateway Timeout.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// Transient network, DNS, TLS-handshake and system conditions. Left out, as in Alamofire:
    /// cancellation, bad URLs, file-system errors, certificate trust failures other than dates,
    /// redirect loops and authentication.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
        .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
        .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
        .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
        .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
    ]

    /// How many retries at most.
    public let retryLimit: UInt
    /// The backoff's base (at least 2).
    public let exponentialBackoffBase: UInt
    /// The backoff's scale: the first retry's delay in seconds.
    public let exponentialBackoffScale: Double
    /// Methods that may be retried.
    public let retryableHTTPMethods: Set<HTTPMethod>
    /// Response status codes that make a failed request retryable.
    public let retryableHTTPStatusCodes: Set<Int>
    /// `URLError` codes that make a failed request retryable.
    public let retryableURLErrorCodes: Set<URLError.Code>

    /// Creates a policy; every argument defaults to Alamofire's value.
    /// - Precondition: `exponentialBackoffBase` is at least 2.
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes
    ) {
        precondition(exponentialBackoffBase >= 2, "RetryPolicy: exponentialBackoffBase must be at least 2, got \(exponentialBackoffBase)")
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
    }

    /// Retries with the backoff delay while ``Request/retryCount`` is below ``retryLimit`` and
    /// ``shouldRetry(request:dueTo:)`` agrees.
    open func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        let count = request.retryCount
        guard UInt(count) < retryLimit, shouldRetry(request: request, dueTo: error) else { return completion(.doNotRetry) }
        completion(.retryWithDelay(Self.delay(base: exponentialBackoffBase, scale: exponentialBackoffScale, retry: count)))
    }

    /// Whether the failure is retryable: the method is retryable, and either the response's
    /// status code is, or the error (or the `URLError` under an `AFError`) has a retryable code.
    open func shouldRetry(request: Request, dueTo error: any Error) -> Bool {
        guard let method = request.request?.method, retryableHTTPMethods.contains(method) else { return false }
        if let status = request.response?.statusCode, retryableHTTPStatusCodes.contains(status) { return true }
        let code = (error as? URLError)?.code ?? ((error as? AFError)?.underlyingError as? URLError)?.code
        return code.map(retryableURLErrorCodes.contains) ?? false
    }

    /// `scale × baseʳᵉᵗʳʸ` seconds.
    static func delay(base: UInt, scale: Double, retry: Int) -> TimeInterval {
        var factor = 1.0
        for _ in 0..<max(0, retry) { factor *= Double(base) }
        return factor * scale
    }
}

extension RequestInterceptor where Self == RetryPolicy {
    /// A ``RetryPolicy`` with Alamofire's defaults.
    public static var retryPolicy: RetryPolicy { RetryPolicy() }

    /// A ``RetryPolicy`` with these settings.
    public static func retryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes
    ) -> RetryPolicy {
        RetryPolicy(retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
                    exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
                    retryableHTTPStatusCodes: retryableHTTPStatusCodes, retryableURLErrorCodes: retryableURLErrorCodes)
    }
}

/// Retries only requests whose connection dropped mid-exchange (`URLError.networkConnectionLost`),
/// with ``RetryPolicy``'s backoff; no status code is retryable.
///
/// Lariat reports a connection closed or reset after the request was sent, before the response
/// ended, as `.networkConnectionLost` (Wire's truncated-body or premature-close error underneath).
open class ConnectionLostRetryPolicy: RetryPolicy, @unchecked Sendable {
    /// Creates a policy; every argument defaults to ``RetryPolicy``'s value.
    public init(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) {
        super.init(retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
                   exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
                   retryableHTTPStatusCodes: [], retryableURLErrorCodes: [.networkConnectionLost])
    }
}

extension RequestInterceptor where Self == ConnectionLostRetryPolicy {
    /// A ``ConnectionLostRetryPolicy`` with the defaults.
    public static var connectionLostRetryPolicy: ConnectionLostRetryPolicy { ConnectionLostRetryPolicy() }

    /// A ``ConnectionLostRetryPolicy`` with these settings.
    public static func connectionLostRetryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) -> ConnectionLostRetryPolicy {
        ConnectionLostRetryPolicy(retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
                                  exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods)
    }
}
