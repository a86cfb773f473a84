#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Decides whether, and in which form, a response is stored in the session's ``URLCache``.
///
/// Set one on a ``Session`` (`cachedResponseHandler:`) or a request
/// (``Request/cacheResponse(using:)``, which wins). It is asked only for responses the cache
/// would store (RFC 9111 storable, see the README's "HTTP caching").
public protocol CachedResponseHandler: Sendable {
    /// Called with the response about to be stored; call `completion` with it, a changed copy, or
    /// `nil` to store nothing.
    /// - Parameters:
    ///   - task: The request's task stand-in.
    ///   - response: The response about to be stored.
    ///   - completion: Receives what to store; call it once.
    func dataTask(_ task: URLSessionDataTask, willCacheResponse response: CachedURLResponse,
                  completion: @escaping (CachedURLResponse?) -> Void)
}

/// A ``CachedResponseHandler`` that caches, does not cache, or changes the response first.
public struct ResponseCacher {
    /// What to do with a response about to be stored.
    public enum Behavior: Sendable {
        /// Store it as it is.
        case cache
        /// Store nothing.
        case doNotCache
        /// Store what the closure returns (`nil`: nothing).
        case modify(@Sendable (_ task: URLSessionDataTask, _ cachedResponse: CachedURLResponse) -> CachedURLResponse?)
    }

    /// Stores responses as they are.
    public static let cache = ResponseCacher(behavior: .cache)
    /// Stores nothing.
    public static let doNotCache = ResponseCacher(behavior: .doNotCache)

    /// What this cacher does.
    public let behavior: Behavior

    /// Creates a cacher.
    /// - Parameter behavior: What to do with each response.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }
}

extension ResponseCacher: CachedResponseHandler {
    /// Applies ``behavior`` to `response` and hands the result to `completion` at once.
    public func dataTask(_ task: URLSessionDataTask, willCacheResponse response: CachedURLResponse,
                         completion: @escaping (CachedURLResponse?) -> Void) {
        switch behavior {
        case .cache: completion(response)
        case .doNotCache: completion(nil)
        case .modify(let closure): completion(closure(task, response))
        }
    }
}

extension CachedResponseHandler where Self == ResponseCacher {
    /// A cacher that stores responses as they are.
    public static var cache: ResponseCacher { .cache }
    /// A cacher that stores nothing.
    public static var doNotCache: ResponseCacher { .doNotCache }

    /// A cacher that stores what `closure` returns.
    /// - Parameter closure: Receives the task and the response; returns what to store, or `nil`.
    /// - Returns: The cacher.
    public static func modify(using closure: @escaping (@Sendable (URLSessionDataTask, CachedURLResponse) -> CachedURLResponse?)) -> ResponseCacher {
        ResponseCacher(behavior: .modify(closure))
    }
}
