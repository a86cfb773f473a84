// One proxy server: its protocol, address and credentials, parsed from curl's
// `[scheme://][user:password@]host[:port]` form (the form of `-x`, `http_proxy` and friends).

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// A proxy that requests can go through: an HTTP proxy (absolute-form requests for `http://`,
/// a `CONNECT` tunnel for `https://`), the same over TLS to the proxy (an HTTPS proxy), or a
/// SOCKS5 or SOCKS4 proxy (a tunnel for both).
///
/// ```swift
/// let proxy = ProxyServer(url: "http://user:secret@proxy.example:3128")
/// var secure = ProxyServer(url: "https://proxy.example:8443")!  // TLS to the proxy, system trust
/// secure.tlsOptions = ProxyTLSOptions(configuration: proxyTLS)   // or the proxy's own CA
/// ```
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The protocol spoken to the proxy.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP/1.1 proxy (`http://`).
        case http
        /// An HTTP/1.1 proxy reached over TLS (`https://`): the proxy's certificate is checked
        /// with ``ProxyServer/tlsOptions``, then `https://` origins get a `CONNECT` tunnel with a
        /// second TLS session inside the first, and `http://` requests go in absolute-form.
        case https
        /// SOCKS5, the origin's name resolved locally (`socks5://`, RFC 1928).
        case socks5
        /// SOCKS5, the origin's name sent to the proxy to resolve (`socks5h://`).
        case socks5h
        /// SOCKS4, the origin's name resolved locally to an IPv4 address (`socks4://`); the
        /// user name is sent as the user id, the password never.
        case socks4
        /// SOCKS4a, the origin's name sent to the proxy to resolve (`socks4a://`).
        case socks4a
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP literal (IPv6 without brackets).
    public var host: String
    /// The proxy's TCP port.
    public var port: Int
    /// The user name for `Proxy-Authorization: Basic` (HTTP) or RFC 1929 authentication (SOCKS5);
    /// `nil` for none.
    public var username: String?
    /// The password that goes with ``username``.
    public var password: String?
    /// How the TLS session to an ``Kind/https`` proxy is verified and what it offers: the
    /// proxy's own trust roots, pin and client identity, separate from the origins' (Network
    /// framework's `ProxyConfiguration(httpCONNECTProxy:tlsOptions:)`). `nil`, the default,
    /// verifies the proxy against the system trust store. Ignored for other kinds.
    public var tlsOptions: ProxyTLSOptions?
    /// Header fields for the proxy alone (curl's `--proxy-header`), in order: appended to the
    /// `CONNECT` request of a tunnel, where one named `Host`, `User-Agent` or `Proxy-Connection`
    /// replaces the built-in field of that name, and after the request's own fields in an
    /// absolute-form request to an HTTP proxy. Empty by default.
    public var headers: [HeaderField] = []
    /// Whether the `CONNECT` request says `HTTP/1.0` (curl's `--proxy1.0`); absolute-form
    /// requests are unchanged. `false` by default.
    public var connectsWithHTTP10 = false
    /// The schemes ``username`` and ``password`` answer an HTTP or HTTPS proxy's `407` with
    /// (curl's `CURLOPT_PROXYAUTH`). ``AuthenticationMethods/basic`` alone, the default, sends
    /// `Proxy-Authorization: Basic` with the first request; a set with Digest sends nothing
    /// until the proxy's `407` and answers its strongest challenge within the set, once, in the
    /// `CONNECT` exchange of a tunnel (on the same connection, or a new one when the `407`
    /// closes it) or with the request again when it is forwarded. SOCKS proxies ignore it.
    public var authenticationMethods: AuthenticationMethods = .basic
    /// The `User-Agent` of the `CONNECT` request (curl sends its `-A` value there), `Lariat` by
    /// default; `nil` sends none. A field of that name in ``headers`` wins.
    public var connectUserAgent: String? = "Lariat"

    /// Which schemes answer a proxy's `407` (see ``ProxyServer/authenticationMethods``).
    public struct AuthenticationMethods: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// A set from its bits.
        /// - Parameter rawValue: The bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Basic (RFC 7617).
        public static let basic = AuthenticationMethods(rawValue: 1)
        /// Digest (RFC 7616): MD5, SHA-256 and their `-sess` forms, `qop=auth`.
        public static let digest = AuthenticationMethods(rawValue: 2)
        /// Every scheme Lariat answers, the strongest the proxy offers first (curl's `--proxy-anyauth`).
        public static let any: AuthenticationMethods = [.basic, .digest]
    }

    /// One of ``ProxyServer/headers``.
    public struct HeaderField: Sendable, Hashable {
        /// The field's name.
        public var name: String
        /// Its value; `nil` sends no field of this name (in `CONNECT`: not the built-in one either).
        public var value: String?

        /// A field `name: value`; a `nil` value suppresses the field.
        /// - Parameters:
        ///   - name: The field's name.
        ///   - value: Its value, or `nil`.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// The port curl assumes when a proxy URL has none: 1080 (443 for `https://`, see
    /// ``defaultPort(for:)``).
    public static let defaultPort = 1080

    /// The port curl 7.88 assumes for a proxy of `kind` without one: 443 for an HTTPS proxy,
    /// 1080 for the others.
    /// - Parameter kind: The proxy's protocol.
    /// - Returns: The port.
    public static func defaultPort(for kind: Kind) -> Int {
        kind == .https ? 443 : defaultPort
    }

    /// Creates a proxy description.
    /// - Parameters:
    ///   - kind: The protocol, HTTP by default.
    ///   - host: Host name or IP literal.
    ///   - port: TCP port, ``defaultPort`` by default.
    ///   - username: User name for proxy authentication, none by default.
    ///   - password: Its password, none by default.
    ///   - tlsOptions: For an HTTPS proxy, how its certificate is checked; `nil` (the default)
    ///     for the system trust store.
    public init(
        kind: Kind = .http, host: String, port: Int = ProxyServer.defaultPort, username: String? = nil, password: String? = nil,
        tlsOptions: ProxyTLSOptions? = nil
    ) {
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.tlsOptions = tlsOptions
    }

    /// Parses curl's proxy form `[scheme://][user:password@]host[:port]`: scheme `http` (the
    /// default), `https`, `socks5`, `socks5h`, `socks4` or `socks4a` (case-insensitive); port 1080
    /// when absent (443 for `https`); user and password percent-decoded. `nil` for anything else
    /// (an unsupported scheme such as `ftp://`, an empty host, a bad port, a path other than `/`).
    /// - Parameter url: The proxy URL.
    public init?(url: String) {
        guard let parsed = try? ProxyServer(parsing: url) else { return nil }
        self = parsed
    }

    /// ``init(url:)``, saying why a URL is refused.
    /// - Parameter text: The proxy URL.
    /// - Throws: ``ProxyError`` with code ``ProxyError/Code/unsupportedScheme`` or
    ///   ``ProxyError/Code/malformedProxyURL``.
    public init(parsing text: String) throws(ProxyError) {
        self = try Self.parse(text)
    }

    private static func parse(_ text: String) throws(ProxyError) -> ProxyServer {
        var rest = Substring(text)
        var kind = Kind.http
        if let separator = rest.firstOccurrence(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard let known = Kind(rawValue: scheme) else {
                throw ProxyError(.unsupportedScheme, proxy: text, "unsupported proxy scheme for '\(text)'")
            }
            kind = known
            rest = rest[separator.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw ProxyError(.malformedProxyURL, proxy: text, "malformed proxy URL '\(text)'")
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            username = Self.percentDecoded(parts[0])
            if parts.count > 1 { password = Self.percentDecoded(parts[1]) }
        }
        var host = rest
        var port = defaultPort(for: kind)
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw ProxyError(.malformedProxyURL, proxy: text, "malformed proxy URL '\(text)'")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65535).contains(value) else {
                    throw ProxyError(.malformedProxyURL, proxy: text, "bad port in proxy URL '\(text)'")
                }
                port = value
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let value = Int(rest[rest.index(after: colon)...]), (1...65535).contains(value) else {
                throw ProxyError(.malformedProxyURL, proxy: text, "bad port in proxy URL '\(text)'")
            }
            port = value
        }
        guard !host.isEmpty, !host.contains(" ") else {
            throw ProxyError(.malformedProxyURL, proxy: text, "no host in proxy URL '\(text)'")
        }
        return ProxyServer(kind: kind, host: String(host), port: port, username: username, password: password)
    }

    /// `text` with `%XX` escapes decoded as UTF-8; as given when it has a bad escape.
    private static func percentDecoded(_ text: Substring) -> String {
        guard let bytes = percentDecodedBytes(text) else { return String(text) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `kind://host:port`, without the credentials.
    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(shown):\(port)"
    }

    /// `Basic base64(user:password)` for `Proxy-Authorization` with the first request, when a
    /// user name is set and Basic alone is asked for (``authenticationMethods``).
    package var basicAuthorization: String? {
        guard let username, authenticationMethods == .basic else { return nil }
        let pair = "\(username):\(password ?? "")"
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// Whether the proxy is reached through a tunnel for a request of this kind: always for
    /// SOCKS, for an HTTP or HTTPS proxy when the origin is `https` or `tunnelsHTTP` asks for one.
    package func tunnels(isTLS: Bool, tunnelsHTTP: Bool) -> Bool {
        !speaksHTTP || isTLS || tunnelsHTTP
    }

    /// Whether the proxy speaks HTTP (`http://` or `https://`), as opposed to SOCKS.
    package var speaksHTTP: Bool { kind == .http || kind == .https }
}
