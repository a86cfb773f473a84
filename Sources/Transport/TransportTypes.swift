// Values that cross the boundary between the Alamofire-shaped API and the transport. The
// transport knows nothing of URLRequest or DataRequest: Session maps a URLRequest to a
// TransportRequest, and TransportEvents back to HTTPURLResponse, Data and metrics.

package import FoundationEssentials
package import Wire
package import EventLoop
package import TLS

/// The pool key: connections are shared per (scheme, host, port).
package struct ConnectionKey: Hashable, Sendable, CustomStringConvertible {
    package var isTLS: Bool
    package var host: String
    package var port: Int
    /// The Unix domain socket an `http+unix://` URL names (then `host` is that path too):
    /// connections go there instead of to a TCP address.
    package var unixSocketPath: String? = nil
    /// The proxy connections go through, and whether through a tunnel (CONNECT or SOCKS5):
    /// part of the key, so a connection is shared only by requests taking the same route.
    package var proxy: ProxyRoute? = nil

    package init(isTLS: Bool, host: String, port: Int, unixSocketPath: String? = nil, proxy: ProxyRoute? = nil) {
        self.isTLS = isTLS
        self.host = host
        self.port = port
        self.unixSocketPath = unixSocketPath
        self.proxy = proxy
    }


    package var description: String {
        if let unixSocketPath { return "http+unix://\(unixSocketPath)" }
        let origin = "\(isTLS ? "https" : "http")://\(host):\(port)"
        return proxy.map { "\(origin) via \($0.server)" } ?? origin
    }
}

/// One request, ready for the wire.
package struct TransportRequest: Sendable {
    package var key: ConnectionKey
    package var head: RequestHead
    package var body: RequestBody?
    /// RFC 9110 §9.2.2: may be retried silently when a reused connection fails before any byte
    /// of the response arrived.
    package var isIdempotent: Bool
    /// Longest silence while the request is under way: no byte read and none taken by the
    /// server (URLSession's `timeoutIntervalForRequest`). `nil`: no idle limit.
    package var idleTimeout: Duration?
    /// Limit on establishing a new connection: name resolution, TCP and the TLS handshake
    /// (`URLSessionConfiguration.timeoutIntervalForConnect`, curl's `--connect-timeout`).
    /// `nil`: none of its own (the idle timeout and the deadline still apply).
    package var connectTimeout: Duration?
    /// When the whole request must be over, queueing and connecting included (URLSession's
    /// `timeoutIntervalForResource`, measured from the request's start; curl's `--max-time`).
    /// `.distantFuture`: none.
    package var deadline: Deadline = .distantFuture
    /// A protocol switch the head offers (a WebSocket's), and who takes the connection after a
    /// `101`; `nil`: a `101` is refused (Features/WebSocket/UpgradedConnection.swift).
    package var upgrade: TransportUpgrade?
    /// Why the request cannot be sent at all (an unsupported URL), or `nil`. The pool ends a
    /// refused exchange at once with this error, without a connection: URLSession, too, makes a
    /// task for such a request and then fails it.
    package var refusal: TransportError?
    /// Relaxations of how the response is read (fetch's `--http0.9`, `--ignore-content-length`,
    /// `--raw`); ``ResponseParsingOptions/strict``, the default, relaxes nothing.
    package var responseParsing: ResponseParsingOptions = .strict

    package init(
        key: ConnectionKey, head: RequestHead, body: RequestBody? = nil, isIdempotent: Bool,
        idleTimeout: Duration? = nil, connectTimeout: Duration? = nil, deadline: Deadline = .distantFuture,
        upgrade: TransportUpgrade? = nil, refusal: TransportError? = nil
    ) {
        self.key = key
        self.head = head
        self.body = body
        self.isIdempotent = isIdempotent
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.deadline = deadline
        self.upgrade = upgrade
        self.refusal = refusal
    }

    /// A request that fails as soon as it is executed, with `refusal`.
    ///
    /// - Parameter refusal: The error the exchange ends with.
    /// - Returns: A request with an empty key and head that never reach the pool's machine.
    package static func refused(_ refusal: TransportError) -> TransportRequest {
        TransportRequest(
            key: ConnectionKey(isTLS: false, host: "", port: 0),
            head: RequestHead(method: .get, target: "/", authority: "", fields: [], framing: .none),
            isIdempotent: false, refusal: refusal
        )
    }
}

/// Timestamps of one exchange, for URLSessionTaskMetrics. Plain `Date` values (a `clock_gettime`
/// each, no allocation): the Date-based metrics objects are built from them only when read.
/// Phases that did not happen stay `nil` (a reused connection has no lookup, connect or TLS).
package struct TransportTimings: Sendable {
    package var fetchStart = Date()
    /// Name resolution, when the connection had to resolve its host (not for IP literals,
    /// address overrides or Unix sockets, which Apple also reports without lookup dates).
    package var domainLookupStart: Date?
    package var domainLookupEnd: Date?
    package var connectStart: Date?
    package var connectEnd: Date?
    package var secureConnectionStart: Date?
    package var secureConnectionEnd: Date?
    package var requestStart: Date?
    package var requestEnd: Date?
    package var responseStart: Date?
    package var responseEnd: Date?

    package init() {}
}

/// What the transport tells the request, in order: one head, then end or failure. Body bytes
/// go to the exchange's body handler in between, as borrowed buffers (see `Exchange`).
package enum TransportEvent: Sendable {
    case head(TransportResponseHead)
    /// Request body bytes written to the socket so far (`sent`), of `total` (`-1`: unknown),
    /// on the connection's loop after each write that moved the body on: upload progress.
    case bodySent(sent: Int64, total: Int64)
    case end(TransportSummary)
    case failure(TransportError, TransportSummary?)
}

/// A response head copied out of the receive buffer.
package struct TransportResponseHead: Sendable {
    package var status: Int
    package var version: HTTPVersion
    package var reason: String
    /// The header fields, copied as bytes in one allocation: a name or value is decoded when
    /// read, and `Set-Cookie` values are read as the bytes received.
    package var fields: FieldBlock
    /// The body's length when the parser framed it by Content-Length (validated by Wire).
    package var contentLength: Int?

    package init(status: Int, version: HTTPVersion, reason: String, fields: FieldBlock, contentLength: Int? = nil) {
        self.status = status
        self.version = version
        self.reason = reason
        self.fields = fields
        self.contentLength = contentLength
    }
}

/// Facts about a finished exchange.
package struct TransportSummary: Sendable {
    package var timings: TransportTimings
    package var trailers: [(name: String, value: String)] = []
    package var isReusedConnection: Bool
    package var localAddress: String?
    package var remoteAddress: String?
    package var remotePort: Int?
    package var localPort: Int?
    package var requestHeaderBytes = 0
    /// The body's framed length (what Content-Length said).
    package var requestBodyBytes = 0
    /// Body bytes actually written (less than `requestBodyBytes` when the exchange failed or a
    /// `100 Continue` never came).
    package var requestBodyBytesSent = 0
    package var responseHeaderBytes = 0
    package var responseBodyBytes = 0
    package var tlsVersion: TLSVersion?
    /// OpenSSL's name of the cipher suite and its IANA number (for `tls_ciphersuite_t`).
    package var tlsCipher: String?
    package var tlsCipherID: UInt16?

    package init(
        timings: TransportTimings, trailers: [(name: String, value: String)] = [], isReusedConnection: Bool,
        localAddress: String? = nil, remoteAddress: String? = nil, remotePort: Int? = nil, localPort: Int? = nil,
        requestHeaderBytes: Int = 0, requestBodyBytes: Int = 0, requestBodyBytesSent: Int = 0,
        responseHeaderBytes: Int = 0, responseBodyBytes: Int = 0,
        tlsVersion: TLSVersion? = nil, tlsCipher: String? = nil, tlsCipherID: UInt16? = nil
    ) {
        self.timings = timings
        self.trailers = trailers
        self.isReusedConnection = isReusedConnection
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localPort = localPort
        self.requestHeaderBytes = requestHeaderBytes
        self.requestBodyBytes = requestBodyBytes
        self.requestBodyBytesSent = requestBodyBytesSent
        self.responseHeaderBytes = responseHeaderBytes
        self.responseBodyBytes = responseBodyBytes
        self.tlsVersion = tlsVersion
        self.tlsCipher = tlsCipher
        self.tlsCipherID = tlsCipherID
    }
}

/// A transport failure: what went wrong, at which step, and the lower layer's own error.
///
/// Travels as the underlying error of the `URLError` inside `AFError.sessionTaskFailed`:
/// `(afError.underlyingError as? URLError)?.underlyingError as? TransportError`.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The class of failure; each maps to one `URLError.Code`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The name of the kind.
        public var description: String { name }
        /// Nothing listens at the address (ECONNREFUSED): `.cannotConnectToHost`.
        public static let connectionRefused = Kind("connection refused")
        /// The host name does not resolve: `.cannotFindHost`.
        public static let hostNotFound = Kind("unknown host")
        /// A connect or idle deadline passed: `.timedOut`.
        public static let timedOut = Kind("timed out")
        /// The server closed or reset the connection before the response was complete:
        /// `.networkConnectionLost`.
        public static let connectionLost = Kind("connection lost")
        /// The response broke HTTP/1.1 (the Wire rule is the underlying error): `.badServerResponse`.
        public static let malformedResponse = Kind("malformed response")
        /// The TLS handshake or record layer failed, or the certificate was not trusted:
        /// `.secureConnectionFailed` or a certificate code.
        public static let tls = Kind("TLS failure")
        /// The request could not be written (header injection, bad method): `.badURL`.
        public static let invalidRequest = Kind("invalid request")
        /// The URL has no scheme or one Lariat does not send (`file:`, `ftp:`): `.unsupportedURL`.
        public static let unsupportedURL = Kind("unsupported URL")
        /// The request body's file could not be opened or read, or ended early:
        /// `.requestBodyStreamExhausted`.
        public static let requestBodyUnreadable = Kind("request body unreadable")
        /// The request was cancelled: `.cancelled`.
        public static let cancelled = Kind("cancelled")
        /// The network is unreachable: `.notConnectedToInternet`.
        public static let unreachable = Kind("network unreachable")
        /// The proxy could not be reached or refused the tunnel (a ``ProxyError`` is the
        /// underlying error): `.cannotConnectToHost`, `.userAuthenticationRequired` for a 407,
        /// `.cannotFindHost` for an unknown proxy host.
        public static let proxy = Kind("proxy failure")
        /// Any other socket failure: `.cannotConnectToHost` while connecting, else `.networkConnectionLost`.
        public static let other = Kind("socket error")
    }

    /// What went wrong.
    public let kind: Kind
    /// A readable explanation.
    public let detail: String
    /// The lower layer's error: a `SocketError`, `WireError` or `TLSError`, or `nil`.
    public let underlying: (any Error & Sendable)?

    package init(_ kind: Kind, _ detail: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.detail = detail
        self.underlying = underlying
    }

    /// `"<kind>: <detail>"`.
    public var description: String { "\(kind): \(detail)" }

    /// The stable name of the codec rule the response broke (`"truncated-body"`,
    /// `"header-section-too-large"`, as `wire-decode` prints it), when the lower layer's error is
    /// the codec's; `nil` otherwise. Lets callers react to one rule without parsing messages.
    public var wireRule: String? { (underlying as? WireError)?.rule.rawValue }

    /// The codec's explanation of ``wireRule``'s failure; `nil` when the codec is not at fault.
    public var wireDetail: String? { (underlying as? WireError)?.detail }

    /// Classifies a socket error raised while connecting.
    package static func connecting(_ error: SocketError, host: String) -> TransportError {
        switch error.kind {
        case .connectionRefused: return TransportError(.connectionRefused, "could not connect to \(host): connection refused", underlying: error)
        case .hostNotFound: return TransportError(.hostNotFound, "could not resolve host \(host)", underlying: error)
        case .timedOut: return TransportError(.timedOut, "connecting to \(host) timed out", underlying: error)
        case .cancelled: return TransportError(.cancelled, "cancelled while connecting", underlying: error)
        // No route to the network is "offline" (`.notConnectedToInternet`, what OfflineRetrier
        // waits on); no route to one host on a network that works is not (Apple reports
        // `.cannotConnectToHost`): ConnectErrorMappingTests.
        case .networkUnreachable: return TransportError(.unreachable, "\(host) is unreachable: \(error)", underlying: error)
        case .hostUnreachable: return TransportError(.other, "could not connect to \(host): no route to host (\(error))", underlying: error)
        default: return TransportError(.other, "could not connect to \(host): \(error)", underlying: error)
        }
    }
}

extension TransportResponseHead {
    /// The version as `HTTPURLResponse` wants it: `HTTP/1.1` and `HTTP/1.0` as literals (the
    /// interpolation cost an allocation per response).
    package var versionString: String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        default: "\(version)"
        }
    }
}

extension Date {
    /// The wall-clock date of a monotonic instant (now, minus how long ago `instant` was).
    package init(monotonic instant: Deadline) {
        let ago = Deadline.now() - instant
        let seconds = Double(ago.components.seconds) + Double(ago.components.attoseconds) / 1e18
        self = Date().addingTimeInterval(-seconds)
    }
}
