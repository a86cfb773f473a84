// Which proxy a request goes through: one for http:// URLs, one for https:// URLs, a bypass
// list; from the typed API, Apple's connectionProxyDictionary keys, or the environment as curl
// (and so URLSession on Linux, which runs on libcurl) reads it.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

/// A session's proxies: which requests go through which ``ProxyServer``.
///
/// Set it on ``URLSessionConfiguration/proxy`` (or, Apple's way, through
/// ``URLSessionConfiguration/connectionProxyDictionary``):
///
/// ```swift
/// let configuration = URLSessionConfiguration.af.default
/// configuration.proxy = ProxyConfiguration(all: ProxyServer(url: "http://proxy.example:3128")!,
///                                          exceptions: ["localhost", ".internal.example"])
/// ```
///
/// `http+unix://` requests and hosts in ``exceptions`` never use a proxy.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http://` URLs, or `nil` to connect directly.
    public var httpProxy: ProxyServer?
    /// The proxy for `https://` URLs, or `nil` to connect directly.
    public var httpsProxy: ProxyServer?
    /// Hosts that bypass the proxy, in curl's `no_proxy` syntax: each entry a host name (which
    /// also matches its subdomains; a leading dot is optional), an IP literal or a CIDR range
    /// (`10.0.0.0/8`), or `*` alone for every host. Entries may themselves be comma lists.
    public var exceptions: [String] {
        didSet { bypass = NoProxyList(entries: exceptions) }
    }
    /// Whether `http://` requests through an HTTP proxy also go through a `CONNECT` tunnel
    /// (curl's `--proxytunnel`) instead of being sent in absolute-form. `false` by default.
    public var tunnelsHTTP: Bool
    /// A SOCKS proxy in front of ``httpProxy`` and ``httpsProxy`` (curl's `--preproxy`): the
    /// connection to an HTTP or HTTPS proxy goes through a SOCKS tunnel to it, then on as
    /// without it (forwarding, `CONNECT`, TLS to an HTTPS proxy). Ignored when it is not a SOCKS
    /// proxy, and for SOCKS proxies in ``httpProxy``/``httpsProxy``. `nil` by default.
    public var preproxy: ProxyServer?

    /// The parsed ``exceptions``.
    private(set) var bypass: NoProxyList

    /// Creates a configuration.
    /// - Parameters:
    ///   - httpProxy: The proxy for `http://` URLs, none by default.
    ///   - httpsProxy: The proxy for `https://` URLs, none by default.
    ///   - exceptions: Hosts that bypass the proxies, none by default.
    ///   - tunnelsHTTP: Whether `http://` requests tunnel too, `false` by default.
    public init(httpProxy: ProxyServer? = nil, httpsProxy: ProxyServer? = nil, exceptions: [String] = [], tunnelsHTTP: Bool = false) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.exceptions = exceptions
        self.tunnelsHTTP = tunnelsHTTP
        self.bypass = NoProxyList(entries: exceptions)
    }

    /// One proxy for both schemes.
    /// - Parameters:
    ///   - proxy: The proxy for `http://` and `https://` URLs.
    ///   - exceptions: Hosts that bypass it, none by default.
    ///   - tunnelsHTTP: Whether `http://` requests tunnel too, `false` by default.
    public init(all proxy: ProxyServer, exceptions: [String] = [], tunnelsHTTP: Bool = false) {
        self.init(httpProxy: proxy, httpsProxy: proxy, exceptions: exceptions, tunnelsHTTP: tunnelsHTTP)
    }

    /// The proxy a request to `scheme://host` goes through, or `nil` for a direct connection.
    /// - Parameters:
    ///   - scheme: `http` or `https` (lower case); anything else (`http+unix`) gets `nil`.
    ///   - host: The request's host.
    /// - Returns: The proxy, or `nil`.
    public func proxy(forScheme scheme: String, host: String) -> ProxyServer? {
        let server: ProxyServer?
        switch scheme {
        case "http": server = httpProxy
        case "https": server = httpsProxy
        default: return nil
        }
        guard let server, !bypass.matches(host: host) else { return nil }
        return server
    }

    /// Equal when the proxies, the exceptions, the tunnel choice and the preproxy are.
    public static func == (lhs: ProxyConfiguration, rhs: ProxyConfiguration) -> Bool {
        lhs.httpProxy == rhs.httpProxy && lhs.httpsProxy == rhs.httpsProxy
            && lhs.exceptions == rhs.exceptions && lhs.tunnelsHTTP == rhs.tunnelsHTTP && lhs.preproxy == rhs.preproxy
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(httpProxy)
        hasher.combine(httpsProxy)
        hasher.combine(exceptions)
        hasher.combine(tunnelsHTTP)
        hasher.combine(preproxy)
    }
}

extension ProxyConfiguration {
    /// The proxies the process environment names, read as curl reads them; `nil` when it names none.
    ///
    /// This is what ``URLSessionConfiguration/default`` starts with, as URLSession on Linux does
    /// (it runs on libcurl, which reads these variables); Apple platforms use system settings.
    public static var environment: ProxyConfiguration? {
        environment(ProcessInfo.processInfo.environment)
    }

    /// The proxies `variables` name, read as curl 7.88 reads the environment; `nil` when none.
    ///
    /// - `http_proxy` for `http://` (lower case only: `HTTP_PROXY` can be set by a CGI request's
    ///   `Proxy:` header, "httpoxy");
    /// - `https_proxy`, else `HTTPS_PROXY`, for `https://`;
    /// - `all_proxy`, else `ALL_PROXY`, for a scheme without its own;
    /// - `no_proxy`, else `NO_PROXY`, as ``exceptions``.
    ///
    /// Empty values count as unset; a value that does not parse as a ``ProxyServer`` is ignored.
    /// - Parameter variables: The environment.
    /// - Returns: The configuration, or `nil`.
    public static func environment(_ variables: [String: String]) -> ProxyConfiguration? {
        func value(_ names: String...) -> String? {
            for name in names {
                if let value = variables[name], !value.isEmpty { return value }
            }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY").flatMap(ProxyServer.init(url:))
        let http = value("http_proxy").flatMap(ProxyServer.init(url:)) ?? all
        let https = value("https_proxy", "HTTPS_PROXY").flatMap(ProxyServer.init(url:)) ?? all
        guard http != nil || https != nil else { return nil }
        let exceptions = value("no_proxy", "NO_PROXY").map { [$0] } ?? []
        return ProxyConfiguration(httpProxy: http, httpsProxy: https, exceptions: exceptions)
    }
}
