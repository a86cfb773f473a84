#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization

/// A thread-safe, in-memory store of cookies, as Foundation's `HTTPCookieStorage`.
///
/// Sessions read it before every exchange (the `Cookie` field, RFC 6265 §5.4) and write every
/// response head's `Set-Cookie` fields into it, redirect hops included, when their
/// configuration's ``URLSessionConfiguration/httpShouldSetCookies`` is `true` and the request's
/// ``URLRequest/httpShouldHandleCookies`` too.
///
/// Limits (RFC 6265 §6.1's minimums, which are also what browsers keep): ``maxCookiesPerDomain``
/// per domain and ``maxCookies`` in all; past either, the cookies created first are evicted,
/// after expired ones. Nothing is written to disk: session cookies and persistent ones alike end
/// with the process (fetch's `-c` writes a Netscape file when asked).
public final class HTTPCookieStorage: Sendable, Hashable {
    /// The most cookies kept for one domain (RFC 6265 §6.1: at least 50).
    public static let maxCookiesPerDomain = 50
    /// The most cookies kept in all (RFC 6265 §6.1: at least 3,000).
    public static let maxCookies = 3000

    /// The process-wide storage, the default of ``URLSessionConfiguration/default``.
    public static let shared = HTTPCookieStorage()

    /// One stored cookie and when it was created (§5.3 step 11.3 keeps a replaced cookie's
    /// creation time, which orders the `Cookie` field).
    fileprivate struct Entry {
        var cookie: HTTPCookie
        var created: Date
        var sequence: UInt64
    }

    fileprivate struct State {
        var entries: [HTTPCookie.Key: Entry] = [:]
        var domainCounts: [String: Int] = [:]
        var nextSequence: UInt64 = 0
        var policy: HTTPCookie.AcceptPolicy = .always
    }

    private let state = Mutex(State())

    /// An empty storage (for a configuration's ``URLSessionConfiguration/httpCookieStorage``).
    public init() {}

    /// Which cookies ``setCookie(_:)`` and ``setCookies(_:for:mainDocumentURL:)`` accept.
    /// ``HTTPCookie/AcceptPolicy/always`` by default. Sessions apply their configuration's
    /// ``URLSessionConfiguration/httpCookieAcceptPolicy`` instead.
    public var cookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// Every unexpired cookie, oldest first.
    public var cookies: [HTTPCookie]? {
        let now = Date()
        return state.withLock { state in
            state.entries.values.filter { !Self.isExpired($0.cookie, now: now) }.sorted { $0.sequence < $1.sequence }.map(\.cookie)
        }
    }

    /// The cookies to send to `url`, in RFC 6265 §5.4 order: longer paths first, then earlier
    /// creation. Host-only cookies match only their host, domain cookies their domain and its
    /// subdomains; `Secure` ones only over https; expired ones never.
    ///
    /// - Parameter url: The request URL.
    /// - Returns: The matching cookies, or `nil` for a URL without a host.
    public func cookies(for url: URL) -> [HTTPCookie]? {
        guard let host = CookieMatching.canonicalHost(of: url) else { return nil }
        let isSecure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
        let path = CookieMatching.requestPath(of: url)
        let now = Date()
        let matching = state.withLock { state in
            state.entries.values.filter { entry in
                let cookie = entry.cookie
                guard !Self.isExpired(cookie, now: now), !cookie.isSecure || isSecure else { return false }
                let domainOK = cookie.isHostOnly ? host == cookie.domain : CookieMatching.domainMatches(host: host, domain: cookie.bareDomain)
                return domainOK && CookieMatching.pathMatches(requestPath: path, cookiePath: cookie.path)
            }
        }
        return matching.sorted { lhs, rhs in
            let (left, right) = (lhs.cookie.path.utf8.count, rhs.cookie.path.utf8.count)
            return left != right ? left > right : lhs.sequence < rhs.sequence
        }.map(\.cookie)
    }

    /// Stores a cookie, replacing one with the same name, domain and path; an expired cookie
    /// deletes its namesake instead. Ignored when ``cookieAcceptPolicy`` is `.never`.
    ///
    /// - Parameter cookie: The cookie.
    public func setCookie(_ cookie: HTTPCookie) {
        state.withLock { state in
            guard state.policy != .never else { return }
            Self.store(cookie, in: &state, now: Date())
        }
    }

    /// Stores cookies a response to `URL` set, if ``cookieAcceptPolicy`` accepts them (for
    /// `.onlyFromMainDocumentDomain`: those in the same site as `mainDocumentURL`, or as `URL`
    /// when it is `nil`). When `URL` is not https, a cookie named as a stored `Secure` one of a
    /// matching domain and path is ignored (RFC 6265bis §5.7), so plain http cannot replace,
    /// shadow or delete it.
    ///
    /// - Parameters:
    ///   - cookies: The cookies, usually from ``HTTPCookie/cookies(withResponseHeaderFields:for:)``.
    ///   - URL: The URL that set them.
    ///   - mainDocumentURL: The main document's URL, for the accept policy.
    public func setCookies(_ cookies: [HTTPCookie], for URL: URL?, mainDocumentURL: URL?) {
        store(cookies, for: URL, mainDocumentURL: mainDocumentURL, policy: cookieAcceptPolicy)
    }

    /// ``setCookies(_:for:mainDocumentURL:)`` with an explicit policy (a session's).
    func store(_ cookies: [HTTPCookie], for url: URL?, mainDocumentURL: URL?, policy: HTTPCookie.AcceptPolicy) {
        let accepted: [HTTPCookie]
        switch policy {
        case .always: accepted = cookies
        case .never: return
        case .onlyFromMainDocumentDomain:
            guard let mainHost = (mainDocumentURL ?? url).flatMap(CookieMatching.canonicalHost(of:)) else { return }
            // The main document's site: its registrable domain, or the host itself for an IP
            // address or a host that is a public suffix (`localhost`).
            let site = CookieMatching.isIPAddress(mainHost) ? mainHost : PublicSuffixList.shared.registrableDomain(mainHost) ?? mainHost
            accepted = cookies.filter { cookie in
                let domain = cookie.bareDomain
                return domain == site || domain.hasSuffix("." + site)
            }
        }
        guard !accepted.isEmpty else { return }
        let now = Date()
        // No URL: the program's own call, not a server's answer.
        let fromSecureOrigin = url.map { ["https", "wss"].contains($0.scheme?.lowercased() ?? "") } ?? true
        state.withLock { state in
            for cookie in accepted where fromSecureOrigin || !Self.shadowsSecureCookie(cookie, in: state) {
                Self.store(cookie, in: &state, now: now)
            }
        }
    }

    /// RFC 6265bis §5.7 ("leave secure cookies alone"), for a cookie set by a non-secure
    /// origin: whether a stored Secure cookie has its name, a domain that domain-matches its
    /// domain or the other way round, and a path its path path-matches. Such a cookie is ignored,
    /// so plain http can neither overwrite, shadow nor delete a Secure cookie.
    private static func shadowsSecureCookie(_ cookie: HTTPCookie, in state: State) -> Bool {
        state.entries.values.contains { entry in
            let stored = entry.cookie
            return stored.isSecure && stored.name == cookie.name
                && (CookieMatching.domainMatches(host: stored.bareDomain, domain: cookie.bareDomain)
                    || CookieMatching.domainMatches(host: cookie.bareDomain, domain: stored.bareDomain))
                && CookieMatching.pathMatches(requestPath: cookie.path, cookiePath: stored.path)
        }
    }

    /// Removes a cookie (matched by name, domain and path).
    ///
    /// - Parameter cookie: The cookie.
    public func deleteCookie(_ cookie: HTTPCookie) {
        _ = state.withLock { $0.remove(cookie.key) }
    }

    /// Removes every cookie created at or after `date`.
    ///
    /// - Parameter date: The earliest creation time removed.
    public func removeCookies(since date: Date) {
        state.withLock { state in
            for (key, entry) in state.entries where entry.created >= date { state.remove(key) }
        }
    }

    /// Whether nothing is stored (one lock, for the request path's fast exit).
    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// The `Cookie` field value for `url`, or `nil` when no cookie matches. Fast when the
    /// storage is empty (no host parsing, one lock).
    func cookieFieldValue(for url: URL) -> String? {
        guard !isEmpty, let cookies = cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.cookieFieldValue(cookies)
    }

    /// The `Cookie` field for `url` as it goes on the wire: each cookie's name and value as the
    /// bytes it was set with, or `nil` when no cookie applies.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The field's value.
    func cookieField(for url: URL) -> CookieFieldValue? {
        guard !isEmpty, let cookies = cookies(for: url), !cookies.isEmpty else { return nil }
        return CookieFieldValue(cookies)
    }

    /// Whether two storages are the same object.
    ///
    /// - Parameters:
    ///   - lhs: A storage.
    ///   - rhs: Another storage.
    /// - Returns: Whether they are identical.
    public static func == (lhs: HTTPCookieStorage, rhs: HTTPCookieStorage) -> Bool { lhs === rhs }

    /// Hashes the storage's identity.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    private static func isExpired(_ cookie: HTTPCookie, now: Date) -> Bool {
        cookie.expiresDate.map { $0 <= now } ?? false
    }

    /// §5.3 step 11 and §5.3's eviction, under the lock. The per-domain count is kept in
    /// `domainCounts` so a store costs a scan of the entries only when a limit is passed.
    private static func store(_ cookie: HTTPCookie, in state: inout State, now: Date) {
        let key = cookie.key
        let previous = state.remove(key)
        guard !isExpired(cookie, now: now) else { return }  // an expired cookie only deletes
        state.nextSequence += 1
        state.insert(Entry(cookie: cookie, created: previous?.created ?? now, sequence: previous?.sequence ?? state.nextSequence))
        guard state.domainCounts[cookie.bareDomain, default: 0] > maxCookiesPerDomain || state.entries.count > maxCookies else { return }
        // Over a limit: expired cookies go first, then the oldest of the domain, then the oldest overall.
        for (key, entry) in state.entries where isExpired(entry.cookie, now: now) { state.remove(key) }
        while state.domainCounts[cookie.bareDomain, default: 0] > maxCookiesPerDomain,
            let oldest = state.entries.values.filter({ $0.cookie.bareDomain == cookie.bareDomain }).min(by: { $0.sequence < $1.sequence })
        {
            state.remove(oldest.cookie.key)
        }
        while state.entries.count > maxCookies, let oldest = state.entries.values.min(by: { $0.sequence < $1.sequence }) {
            state.remove(oldest.cookie.key)
        }
    }
}

extension HTTPCookieStorage.State {
    /// Adds an entry, counting its domain.
    fileprivate mutating func insert(_ entry: HTTPCookieStorage.Entry) {
        entries[entry.cookie.key] = entry
        domainCounts[entry.cookie.bareDomain, default: 0] += 1
    }

    /// Removes an entry, uncounting its domain.
    @discardableResult
    fileprivate mutating func remove(_ key: HTTPCookie.Key) -> HTTPCookieStorage.Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        let domain = entry.cookie.bareDomain
        if domainCounts[domain, default: 0] <= 1 { domainCounts[domain] = nil } else { domainCounts[domain]! -= 1 }
        return entry
    }
}
