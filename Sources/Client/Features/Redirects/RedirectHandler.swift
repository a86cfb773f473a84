#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Decides what happens when a response redirects (301, 302, 303, 307 or 308 with a Location).
///
/// Set one for a whole session (`Session(redirectHandler:)`) or for one request
/// (``Request/redirect(using:)``, which wins). Without any, redirects are followed, as by
/// URLSession: up to 16 hops (``URLSessionConfiguration/httpMaximumRedirects``), then the request
/// fails with `URLError.httpTooManyRedirects` inside `AFError.sessionTaskFailed`.
///
/// The request passed in already follows URLSession's rules (method and body per status, the
/// Location resolved, the fragment carried over, Authorization, Proxy-Authorization and Cookie
/// removed for another origin); see `RedirectRules.swift`.
public protocol RedirectHandler: Sendable {
    /// Decides whether and how to follow a redirect.
    /// - Parameters:
    ///   - task: A snapshot of the request's current exchange.
    ///   - request: The request URLSession's rules would send next.
    ///   - response: The redirect response.
    ///   - completion: Call once, from any thread, with the request to send (this one, a changed
    ///     one, or any other), or `nil` to deliver the redirect response itself.
    func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
              completion: @escaping (URLRequest?) -> Void)
}

/// The ready-made ``RedirectHandler``: follow, do not follow, or modify.
public struct Redirector {
    /// What a ``Redirector`` does with a redirect.
    public enum Behavior: Sendable {
        /// Sends the next request as URLSession's rules made it.
        case follow
        /// Delivers the redirect response (its status, headers and body) as the final response.
        case doNotFollow
        /// Sends the closure's request instead; `nil` delivers the redirect response.
        case modify(@Sendable (_ task: URLSessionTask, _ request: URLRequest, _ response: HTTPURLResponse) -> URLRequest?)
    }

    /// Follows every redirect.
    public static let follow = Redirector(behavior: .follow)
    /// Follows no redirect.
    public static let doNotFollow = Redirector(behavior: .doNotFollow)

    /// What this redirector does.
    public let behavior: Behavior

    /// A redirector.
    /// - Parameter behavior: What to do with each redirect.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }
}

extension Redirector: RedirectHandler {
    /// Answers at once, on the calling thread, with ``behavior``'s request.
    /// - Parameters:
    ///   - task: A snapshot of the request's current exchange.
    ///   - request: The request URLSession's rules would send next.
    ///   - response: The redirect response.
    ///   - completion: Called once, before this returns.
    public func task(_ task: URLSessionTask, willBeRedirectedTo request: URLRequest, for response: HTTPURLResponse,
                     completion: @escaping (URLRequest?) -> Void) {
        switch behavior {
        case .follow: completion(request)
        case .doNotFollow: completion(nil)
        case .modify(let closure): completion(closure(task, request, response))
        }
    }

    /// Whether the answer is known without running user code, and what it is: lets the request
    /// discard a redirect body it will not deliver instead of keeping it.
    var fixedAnswer: Bool? {
        switch behavior {
        case .follow: true
        case .doNotFollow: false
        case .modify: nil
        }
    }
}

extension RedirectHandler where Self == Redirector {
    /// A ``Redirector`` that follows every redirect.
    public static var follow: Redirector { .follow }
    /// A ``Redirector`` that follows no redirect.
    public static var doNotFollow: Redirector { .doNotFollow }

    /// A ``Redirector`` that sends `closure`'s request instead (`nil` delivers the redirect).
    /// - Parameter closure: Gets the task snapshot, the next request and the redirect response.
    /// - Returns: The redirector.
    public static func modify(using closure: @escaping @Sendable (URLSessionTask, URLRequest, HTTPURLResponse) -> URLRequest?) -> Redirector {
        Redirector(behavior: .modify(closure))
    }
}
