#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Synchronization
import EventLoop
import Transport

/// Settings for a session: timeouts, extra header fields and connection limits.
///
/// Lariat's own `URLSessionConfiguration` (Foundation's lives in FoundationNetworking on Linux,
/// which Lariat never links). Like Foundation's, it is a mutable class you adjust before creating
/// a session, and a session takes a snapshot when it is created: later changes do not affect it.
///
/// ```swift
/// let configuration = URLSessionConfiguration.af.default
/// configuration.timeoutIntervalForRequest = 10
/// let session = Session(configuration: configuration)
/// ```
///
/// Thread-safe: every property is guarded by a lock.
public final class URLSessionConfiguration: Sendable {
    /// A snapshot of every setting, as a session reads them.
    struct Settings: Sendable, Equatable {
        var timeoutIntervalForRequest: TimeInterval = 60
        var timeoutIntervalForResource: TimeInterval = 7 * 24 * 60 * 60
        var timeoutIntervalForConnect: TimeInterval = .infinity
        var httpAdditionalHeaders: [String: String]?
        var httpMaximumConnectionsPerHost = 6
        var httpShouldUsePipelining = false
        var httpShouldSetCookies = true
        var httpCookieStorage: HTTPCookieStorage? = .shared
        var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy = .onlyFromMainDocumentDomain
        var allowsCellularAccess = true
        var requestCachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
        var isEphemeral = false
        /// The environment's proxies, as URLSession on Linux (libcurl) reads them.
        var proxy: ProxyConfiguration? = ProxyConfiguration.environment
        /// ``urlCache`` (`URLSessionConfiguration+Cache.swift`): none until `default` or
        /// `ephemeral` gives the configuration a cache of its own.
        var cache = URLCacheReference(nil)
        var httpMaximumRedirects = 16
        var urlCredentialStorage = CredentialStorageReference(storage: .shared)
        var contentDecoding = ContentDecoding()
        /// fetch's `--request-target`: every request line's target, as given.
        var requestTarget: String?
        /// fetch's `--http1.0`: every request line says HTTP/1.0.
        var usesHTTP10 = false
        /// fetch's `--interface`, `--local-port`, `--tcp-fastopen`.
        var socketSetup = SocketSetup()
        /// fetch's `--haproxy-protocol`.
        var sendsPROXYProtocolHeader = false
        /// fetch's `--http0.9`, `--ignore-content-length`, `--raw`, `--tr-encoding`.
        var responseReading = ResponseReading()
    }

    private let state: Mutex<Settings>

    private init(_ settings: Settings) {
        state = Mutex(settings)
    }

    /// A new configuration with the default settings. Each access returns a new instance, with
    /// a memory-only ``urlCache`` of its own (512 KiB), not ``URLCache/shared``: sessions made
    /// from separate default configurations never share cached responses (set
    /// `urlCache = URLCache.shared` to share one process-wide).
    public class var `default`: URLSessionConfiguration {
        var settings = Settings()
        settings.cache = URLCacheReference(URLCache(memoryCapacity: URLCache.defaultMemoryCapacity, diskCapacity: 0))
        return URLSessionConfiguration(settings)
    }

    /// A new configuration that keeps no persistent state: its ``urlCache`` is its own
    /// memory-only cache (512 KiB), not ``URLCache/shared``, and its cookies go to a storage of
    /// its own instead of ``HTTPCookieStorage/shared``. Each access returns a new instance.
    public class var ephemeral: URLSessionConfiguration {
        var settings = Settings()
        settings.isEphemeral = true
        settings.cache = URLCacheReference(URLCache(memoryCapacity: URLCache.defaultMemoryCapacity, diskCapacity: 0))
        settings.httpCookieStorage = HTTPCookieStorage()
        settings.urlCredentialStorage = CredentialStorageReference(storage: URLCredentialStorage())
        return URLSessionConfiguration(settings)
    }

    /// Changes settings under the lock (for extensions in other files).
    func update(_ change: (inout Settings) -> Void) { state.withLock { change(&$0) } }

    /// All settings at once, read under a single lock acquisition.
    var settings: Settings {
        state.withLock { $0 }
    }

    /// A new configuration with the same settings.
    ///
    /// - Returns: An independent copy.
    func copy() -> URLSessionConfiguration {
        URLSessionConfiguration(settings)
    }

    /// Seconds a request may stay silent (no byte received or taken by the server) before
    /// failing with `URLError.timedOut`: the idle timeout, reset by every byte. `60` by default.
    ///
    /// A request's own ``URLRequest/timeoutInterval``, when set, takes precedence. Connecting is
    /// bounded by it too, unless ``timeoutIntervalForConnect`` is shorter.
    ///
    /// Values (this and every other `timeoutInterval…`): `.infinity` (or more than about 292
    /// years) means no limit; any positive value is used to the nanosecond; zero, negative or NaN
    /// make each request fail at once with `URLError.timedOut`, whose underlying `TransportError`
    /// names the setting (Apple documents no meaning for them; Lariat never traps on them).
    public var timeoutIntervalForRequest: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForRequest } }
        set { state.withLock { $0.timeoutIntervalForRequest = newValue } }
    }

    /// Seconds a whole request may take, from its start (waiting for a connection, connecting,
    /// sending and receiving the entire body) before failing with `URLError.timedOut`: the total
    /// deadline, never reset (curl's `--max-time`). Seven days by default, as on Apple platforms.
    ///
    /// Values follow ``timeoutIntervalForRequest``'s rules.
    public var timeoutIntervalForResource: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForResource } }
        set { state.withLock { $0.timeoutIntervalForResource = newValue } }
    }

    /// Seconds a request may spend establishing a new connection (name resolution, every TCP
    /// attempt, the TLS handshake) before failing with `URLError.timedOut` (curl's
    /// `--connect-timeout`). `.infinity` by default: none of its own, the idle timeout
    /// (``timeoutIntervalForRequest``) and the total (``timeoutIntervalForResource``) still apply.
    ///
    /// Lariat's addition: Apple's `URLSessionConfiguration` has no such property (there,
    /// connecting counts against the request timeout). A request served by a pooled connection
    /// does not connect, so this limit does not apply to it. Values follow
    /// ``timeoutIntervalForRequest``'s rules.
    public var timeoutIntervalForConnect: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForConnect } }
        set { state.withLock { $0.timeoutIntervalForConnect = newValue } }
    }

    /// Header fields added to every request that does not already set them. `nil` by default.
    ///
    /// Keys and values are stored as strings: non-string values are converted with
    /// `String(describing:)`, and entries whose key is not a `String` are dropped.
    public var httpAdditionalHeaders: [AnyHashable: Any]? {
        get { state.withLock { $0.httpAdditionalHeaders }.map { $0.reduce(into: [:]) { $0[$1.key] = $1.value } } }
        set {
            let converted = newValue.map { dictionary in
                dictionary.reduce(into: [String: String]()) { result, entry in
                    guard let key = entry.key.base as? String else { return }
                    result[key] = entry.value as? String ?? String(describing: entry.value)
                }
            }
            state.withLock { $0.httpAdditionalHeaders = converted }
        }
    }

    /// The most simultaneous connections to one host. `6` by default.
    public var httpMaximumConnectionsPerHost: Int {
        get { state.withLock { $0.httpMaximumConnectionsPerHost } }
        set { state.withLock { $0.httpMaximumConnectionsPerHost = newValue } }
    }

    /// Whether requests may be pipelined. `false` by default; Lariat never pipelines, so this is recorded only.
    public var httpShouldUsePipelining: Bool {
        get { state.withLock { $0.httpShouldUsePipelining } }
        set { state.withLock { $0.httpShouldUsePipelining = newValue } }
    }

    /// Where the session finds credentials for Basic and Digest challenges that a request's
    /// own credential (``Request/authenticate(with:)``) does not answer. ``URLCredentialStorage/shared``
    /// by default; a new empty storage for ``ephemeral``; `nil` answers no challenge from storage.
    public var urlCredentialStorage: URLCredentialStorage? {
        get { state.withLock { $0.urlCredentialStorage.storage } }
        set { state.withLock { $0.urlCredentialStorage = CredentialStorageReference(storage: newValue) } }
    }

    /// Most redirects a request follows before failing with `URLError.httpTooManyRedirects`
    /// (inside `AFError.sessionTaskFailed`). `16` by default, Apple's fixed limit; `0` follows none
    /// (the first redirect fails). Lariat's addition: Apple's has no such property.
    public var httpMaximumRedirects: Int {
        get { state.withLock { $0.httpMaximumRedirects } }
        set { state.withLock { $0.httpMaximumRedirects = max(0, newValue) } }
    }

    /// Whether requests send and store cookies. `true` by default.
    public var httpShouldSetCookies: Bool {
        get { state.withLock { $0.httpShouldSetCookies } }
        set { state.withLock { $0.httpShouldSetCookies = newValue } }
    }

    /// Where requests' cookies come from and responses' cookies go. ``HTTPCookieStorage/shared``
    /// by default (a new storage for ``ephemeral``); `nil` disables cookies.
    public var httpCookieStorage: HTTPCookieStorage? {
        get { state.withLock { $0.httpCookieStorage } }
        set { state.withLock { $0.httpCookieStorage = newValue } }
    }

    /// Which response cookies are stored. ``HTTPCookie/AcceptPolicy/onlyFromMainDocumentDomain``
    /// by default, which for requests without a ``URLRequest/mainDocumentURL`` accepts the
    /// server's cookies for its own site.
    public var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { state.withLock { $0.httpCookieAcceptPolicy } }
        set { state.withLock { $0.httpCookieAcceptPolicy = newValue } }
    }

    /// Whether cellular interfaces may be used. `true` by default; ignored on Linux.
    public var allowsCellularAccess: Bool {
        get { state.withLock { $0.allowsCellularAccess } }
        set { state.withLock { $0.allowsCellularAccess = newValue } }
    }

    /// The cache policy for requests that do not set one. ``URLRequest/CachePolicy/useProtocolCachePolicy``
    /// by default; a request whose own policy is `.useProtocolCachePolicy` uses this one.
    public var requestCachePolicy: URLRequest.CachePolicy {
        get { state.withLock { $0.requestCachePolicy } }
        set { state.withLock { $0.requestCachePolicy = newValue } }
    }

    /// Whether and within which limits `gzip` and `deflate` response bodies are decoded;
    /// ``ContentDecoding/automatic`` (on, at most 100 decoded bytes per encoded byte past the
    /// first MiB) by default. Lariat's addition: URLSession always decodes.
    public var contentDecoding: ContentDecoding {
        get { state.withLock { $0.contentDecoding } }
        set { state.withLock { $0.contentDecoding = newValue } }
    }

    /// The request target sent instead of the URL's (curl's `--request-target`: `*` for
    /// `OPTIONS *`), for every request of the session, redirects included; `nil` (the default)
    /// sends the URL's own.
    package var requestTarget: String? {
        get { state.withLock { $0.requestTarget } }
        set { state.withLock { $0.requestTarget = newValue } }
    }

    /// Whether request lines say `HTTP/1.0` (curl's `--http1.0`). `false` by default.
    package var usesHTTP10: Bool {
        get { state.withLock { $0.usesHTTP10 } }
        set { state.withLock { $0.usesHTTP10 = newValue } }
    }

    /// What is done to each socket before it connects: the local address and port range it is
    /// bound to, the interface it is tied to, TCP Fast Open (curl's `--interface`,
    /// `--local-port`, `--tcp-fastopen`). Nothing by default.
    package var socketSetup: SocketSetup {
        get { state.withLock { $0.socketSetup } }
        set { state.withLock { $0.socketSetup = newValue } }
    }

    /// Whether each new connection starts with the HAProxy PROXY protocol v1 line, to the
    /// proxy when there is one, before TLS (curl's `--haproxy-protocol`). `false` by default.
    package var sendsPROXYProtocolHeader: Bool {
        get { state.withLock { $0.sendsPROXYProtocolHeader } }
        set { state.withLock { $0.sendsPROXYProtocolHeader = newValue } }
    }

    /// How responses are read beyond the strict defaults (``ResponseReading``): HTTP/0.9,
    /// Content-Length ignored, raw bodies, transfer decoding. All off by default.
    package var responseReading: ResponseReading {
        get { state.withLock { $0.responseReading } }
        set { state.withLock { $0.responseReading = newValue } }
    }
}

extension URLSessionConfiguration {
    /// The proxies requests go through; `nil` for direct connections.
    ///
    /// Starts as the environment's (``ProxyConfiguration/environment``: `http_proxy`,
    /// `https_proxy`, `all_proxy`, `no_proxy`, read as curl reads them), as URLSession on Linux
    /// does. Set `nil` to ignore the environment. Lariat's addition; Apple's API is
    /// ``connectionProxyDictionary``, which reads and writes this same setting.
    public var proxy: ProxyConfiguration? {
        get { state.withLock { $0.proxy } }
        set { state.withLock { $0.proxy = newValue } }
    }

    /// The proxies as Apple's dictionary (`kCFNetworkProxies…` keys): `HTTPEnable`/`HTTPProxy`/
    /// `HTTPPort`, `HTTPSEnable`/`HTTPSProxy`/`HTTPSPort`, `SOCKSEnable`/`SOCKSProxy`/`SOCKSPort`
    /// with `kCFStreamPropertySOCKSUser`/`…SOCKSPassword`/`…SOCKSVersion`, and `ExceptionsList`.
    /// A view of ``proxy``: setting it replaces ``proxy`` (other keys are ignored; HTTP proxy
    /// credentials are set through ``proxy``), `nil` means no proxy.
    public var connectionProxyDictionary: [AnyHashable: Any]? {
        get { proxy.map(ProxyConfiguration.dictionary(of:)) }
        set { proxy = newValue.flatMap(ProxyConfiguration.init(dictionary:)) }
    }

    /// ``httpAdditionalHeaders`` as ``HTTPHeaders``, sorted by name. Setting replaces them.
    public var headers: HTTPHeaders {
        get { state.withLock { $0.httpAdditionalHeaders }.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set {
            let dictionary = newValue.dictionary
            state.withLock { $0.httpAdditionalHeaders = dictionary }
        }
    }
}
