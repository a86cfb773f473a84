#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// URLSession's redirect rules on Apple platforms as one pure function: status, Location and the
// request that got the response in, the next request (or why there is none) out. No I/O, no
// user code, so `RedirectRulesTests` checks every row without sockets.
//
// The rules, each with its source:
// - 301 and 302 turn POST into GET and drop the body (RFC 9110 §15.4.2-3 allow it; browsers and
//   URLSession do it); other methods keep method and body.
// - 303 turns every method but HEAD into GET without a body (RFC 9110 §15.4.4).
// - 307 and 308 keep method and body (RFC 9110 §15.4.8-9); file and multipart bodies are re-read
//   from the start by the request, which rebuilds its body for the new hop.
// - Location is resolved against the current URL (RFC 9110 §10.2.2); a Location without a
//   fragment inherits the current URL's fragment (same section).
// - Only http and https are followed (http+unix only from http+unix); https → http is allowed,
//   as URLSession allows it. Anything else fails with `URLError.unsupportedURL`.
// - A hop to another origin (scheme, host or port) drops Authorization, Proxy-Authorization and
//   Cookie: credentials for one origin are not sent to another (curl does the same unless
//   `--location-trusted`; URLSession keeps only its own stored credentials per protection space).
// - 300, 304, 305, 306 and any 3xx without a Location are not redirects: the response is delivered.

/// URLSession's redirect rules; see the file comment.
enum RedirectRules {
    /// What a response means for the request that received it.
    enum Outcome: Equatable {
        /// Not a redirect: deliver the response.
        case notRedirect
        /// Follow with this request. `keepsBody`: the body is sent again (307/308), so an
        /// upload's body must be rebuilt from its source.
        case follow(URLRequest, keepsBody: Bool)
        /// A redirect that cannot be followed: fail with this code.
        case failure(URLError.Code)
    }

    /// The statuses that redirect.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request URLSession would send after `status` with `location` for `current`.
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - location: The response's `Location` field, `nil` when absent.
    ///   - current: The request that received the response.
    /// - Returns: The outcome; never traps, whatever the server sent.
    static func next(status: Int, location: String?, current: URLRequest) -> Outcome {
        guard redirectStatuses.contains(status), let location, !location.isEmpty, let currentURL = current.url else {
            return .notRedirect
        }
        // A Location longer than any sane URL is a server's mistake or an attack: not parsed.
        guard location.utf8.count <= maxLocationLength,
              let resolved = URL(string: location, relativeTo: currentURL)?.absoluteURL,
              let scheme = resolved.scheme?.lowercased(),
              let host = resolved.host(percentEncoded: true), !host.isEmpty else {
            return .failure(.badURL)
        }
        let currentScheme = currentURL.scheme?.lowercased()
        switch scheme {
        case "http", "https": break
        case "http+unix" where currentScheme == "http+unix": break
        default: return .failure(.unsupportedURL)
        }
        var url = resolved
        if url.fragment == nil, let fragment = currentURL.fragment(percentEncoded: true),
           var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.percentEncodedFragment = fragment
            url = components.url ?? url
        }

        var next = current
        next.url = url
        let method = current.httpMethod ?? "GET"
        let becomesGET = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGET {
            next.httpMethod = "GET"
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if !sameOrigin(currentURL, url) {
            for name in ["Authorization", "Proxy-Authorization", "Cookie"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return .follow(next, keepsBody: !becomesGET)
    }

    /// Longest Location followed, in bytes: 8 KiB, as many servers' limit on a request line.
    static let maxLocationLength = 8 * 1024

    /// Whether two URLs share scheme, host and port (RFC 6454 §4, default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host(percentEncoded: true)?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(a) == origin(b)
    }
}
