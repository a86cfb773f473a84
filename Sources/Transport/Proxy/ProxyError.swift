// The typed error of everything proxy-related: a refused proxy URL, a proxy that cannot be
// reached, a CONNECT that is not answered 2xx, a SOCKS5 reply that is not "succeeded".

/// Why a request through a proxy failed.
///
/// Travels as the underlying error of the transport's `TransportError` (kind `.proxy`), inside
/// the `URLError` of `AFError.sessionTaskFailed`. A `407` from the proxy is
/// `URLError.userAuthenticationRequired`; every other proxy failure is
/// `URLError.cannotConnectToHost` (Apple reports these as CFNetwork errors 306/310, which have no
/// `URLError.Code`), except that an unknown proxy host is `URLError.cannotFindHost`, a timeout
/// `URLError.timedOut`, and a failed TLS session to an HTTPS proxy takes the code the same
/// failure has for an origin (`URLError.serverCertificateUntrusted` and its kin,
/// `URLError.secureConnectionFailed`) while staying a proxy error underneath.
public struct ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The name of the code.
        public var description: String { name }

        /// The proxy URL's scheme is not `http`, `https`, `socks5` or `socks5h` (curl: exit 7).
        public static let unsupportedScheme = Code("unsupported proxy scheme")
        /// The proxy URL could not be parsed (no host, bad port).
        public static let malformedProxyURL = Code("malformed proxy URL")
        /// The proxy's host name does not resolve (curl: exit 5).
        public static let proxyNotFound = Code("could not resolve proxy")
        /// The TCP connection to the proxy failed (curl: exit 7).
        public static let proxyUnreachable = Code("could not connect to proxy")
        /// The proxy answered `CONNECT` with `407 Proxy Authentication Required` (curl: exit 56).
        public static let authenticationRequired = Code("proxy authentication required")
        /// The proxy answered `CONNECT` with another non-2xx status (curl: exit 56).
        public static let tunnelRefused = Code("CONNECT tunnel failed")
        /// The proxy's answer broke HTTP/1.1 or SOCKS5, or was too large (curl: 56 or 97).
        public static let malformedResponse = Code("malformed proxy response")
        /// The proxy closed the connection before the tunnel was up.
        public static let closed = Code("proxy closed the connection")
        /// The TLS session to an HTTPS proxy could not be set up: the handshake failed, or the
        /// proxy's certificate was refused (the ``ProxyError/underlying`` `TLSError` says which;
        /// curl: exit 35, 60 for an untrusted certificate, 90 for a pin mismatch). Distinct from
        /// a failure of the origin's TLS session inside the tunnel, which is not a proxy error.
        public static let tlsHandshakeFailed = Code("TLS handshake with the proxy failed")
        /// The SOCKS5 proxy accepted none of the offered authentication methods (curl: exit 97).
        public static let socksNoAcceptableMethod = Code("SOCKS5 no acceptable authentication method")
        /// The SOCKS5 proxy rejected the user name and password (curl: exit 97).
        public static let socksAuthenticationFailed = Code("SOCKS5 authentication failed")
        /// The SOCKS5 or SOCKS4 proxy answered the connect request with an error reply, or a
        /// SOCKS4 request could not be made (the origin has no IPv4 address; curl: exit 97).
        public static let socksRequestFailed = Code("SOCKS5 request failed")
        /// The request cannot be expressed to the SOCKS5 proxy (a name or credential over 255 bytes).
        public static let socksRequestTooLong = Code("SOCKS5 request field too long")
    }

    /// What went wrong.
    public let code: Code
    /// The proxy, as `kind://host:port` (no credentials), or the refused proxy URL.
    public let proxy: String
    /// The status of the proxy's answer to `CONNECT`, for ``Code/authenticationRequired`` and
    /// ``Code/tunnelRefused``.
    public let status: Int?
    /// The SOCKS5 reply code (RFC 1928 §6) for ``Code/socksRequestFailed``, the RFC 1929
    /// status for ``Code/socksAuthenticationFailed``.
    public let socksReply: UInt8?
    /// A readable explanation.
    public let detail: String
    /// The lower layer's error (a socket or Wire error), or `nil`.
    public let underlying: (any Error & Sendable)?
    /// For a 407 to CONNECT that closed the connection: the `Proxy-Authorization` answering its
    /// challenge, for the CONNECT on a new connection (curl 7.88 reconnects so), or `nil`.
    package let answerOnNewConnection: String?

    init(
        _ code: Code, proxy: String, _ detail: String, status: Int? = nil, socksReply: UInt8? = nil,
        underlying: (any Error & Sendable)? = nil, answerOnNewConnection: String? = nil
    ) {
        self.answerOnNewConnection = answerOnNewConnection
        self.code = code
        self.proxy = proxy
        self.detail = detail
        self.status = status
        self.socksReply = socksReply
        self.underlying = underlying
    }

    /// `"<code>: <detail>"`.
    public var description: String { "\(code): \(detail)" }

    /// Equal when code, proxy, status and reply are (the detail and underlying error are not compared).
    public static func == (lhs: ProxyError, rhs: ProxyError) -> Bool {
        lhs.code == rhs.code && lhs.proxy == rhs.proxy && lhs.status == rhs.status && lhs.socksReply == rhs.socksReply
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(proxy)
        hasher.combine(status)
        hasher.combine(socksReply)
    }

    /// RFC 1928 §6's meaning of a SOCKS5 reply code.
    static func socksReplyMeaning(_ reply: UInt8) -> String {
        switch reply {
        case 1: "general SOCKS server failure"
        case 2: "connection not allowed by ruleset"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused"
        case 6: "TTL expired"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "unassigned reply code \(reply)"
        }
    }
}
