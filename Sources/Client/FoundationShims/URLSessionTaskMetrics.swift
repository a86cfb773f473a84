#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Timing and size measurements for one request, including every redirect.
///
/// Lariat's own `URLSessionTaskMetrics` (Foundation's lives in FoundationNetworking on Linux).
/// Immutable, so `Sendable`; the transport creates one when a request finishes.
public final class URLSessionTaskMetrics: Sendable {
    /// From the request's creation to its completion (response fully received or failure).
    public let taskInterval: DateInterval

    /// How many redirects were followed.
    public let redirectCount: Int

    /// One entry per request sent, in order: the original request, then one per redirect or retry.
    public let transactionMetrics: [URLSessionTaskTransactionMetrics]

    /// Creates metrics.
    ///
    /// - Parameters:
    ///   - taskInterval:       The whole task's start and end.
    ///   - redirectCount:      Redirects followed. `0` by default.
    ///   - transactionMetrics: Per-transaction measurements, in order. Empty by default.
    public init(taskInterval: DateInterval, redirectCount: Int = 0, transactionMetrics: [URLSessionTaskTransactionMetrics] = []) {
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.transactionMetrics = transactionMetrics
    }
}

extension URLSessionTaskMetrics: CustomStringConvertible {
    /// Duration, redirect count and transaction count.
    public var description: String {
        "URLSessionTaskMetrics(duration: \(taskInterval.duration)s, redirects: \(redirectCount), "
            + "transactions: \(transactionMetrics.count))"
    }
}

/// The TLS version negotiated for a connection (Foundation exposes `tls_protocol_version_t`).
public enum TLSProtocolVersion: String, Sendable, Hashable {
    /// TLS 1.0 (RFC 2246). Deprecated by RFC 8996.
    case tlsv10 = "TLSv1"
    /// TLS 1.1 (RFC 4346). Deprecated by RFC 8996.
    case tlsv11 = "TLSv1.1"
    /// TLS 1.2 (RFC 5246).
    case tlsv12 = "TLSv1.2"
    /// TLS 1.3 (RFC 8446).
    case tlsv13 = "TLSv1.3"
}

/// Timing and size measurements for one request/response exchange.
///
/// Dates are `nil` for phases that did not happen: a reused connection has no DNS, connect or TLS
/// dates, and a failed exchange stops where it failed. Immutable, so `Sendable`.
public final class URLSessionTaskTransactionMetrics: Sendable {
    /// How a transaction's response was obtained, with Foundation's raw values.
    public enum ResourceFetchType: Int, Sendable {
        /// Not known, for example because the exchange failed early.
        case unknown = 0
        /// Loaded over the network.
        case networkLoad = 1
        /// Pushed by the server (HTTP/2); Lariat never produces this.
        case serverPush = 2
        /// Served from a local cache; Lariat has no cache yet.
        case localCache = 3
    }

    /// The request as sent.
    public let request: URLRequest
    /// The response head, or `nil` if none arrived.
    public let response: HTTPURLResponse?
    /// When the exchange began (before any connection work).
    public let fetchStartDate: Date?
    /// When name resolution began.
    public let domainLookupStartDate: Date?
    /// When name resolution ended.
    public let domainLookupEndDate: Date?
    /// When the TCP connection attempt began.
    public let connectStartDate: Date?
    /// When the TLS handshake began.
    public let secureConnectionStartDate: Date?
    /// When the TLS handshake ended.
    public let secureConnectionEndDate: Date?
    /// When the connection (including TLS) was ready.
    public let connectEndDate: Date?
    /// When the first request byte was written.
    public let requestStartDate: Date?
    /// When the last request byte was written.
    public let requestEndDate: Date?
    /// When the first response byte arrived.
    public let responseStartDate: Date?
    /// When the last response byte arrived.
    public let responseEndDate: Date?
    /// The application protocol, `http/1.1` for everything Lariat sends.
    public let networkProtocolName: String?
    /// Whether a proxy was used. Always `false`: Lariat does not use proxies yet.
    public let isProxyConnection: Bool
    /// Whether the exchange used a connection kept alive from an earlier one.
    public let isReusedConnection: Bool
    /// How the response was obtained.
    public let resourceFetchType: ResourceFetchType
    /// Bytes of request head written (request line and fields).
    public let countOfRequestHeaderBytesSent: Int64
    /// Bytes of request body written, including chunked framing.
    public let countOfRequestBodyBytesSent: Int64
    /// Bytes of request body before content coding; Lariat applies none, so this equals ``countOfRequestBodyBytesSent``.
    public let countOfRequestBodyBytesBeforeEncoding: Int64
    /// Bytes of response head received (status line and fields).
    public let countOfResponseHeaderBytesReceived: Int64
    /// Bytes of response body received, including chunked framing.
    public let countOfResponseBodyBytesReceived: Int64
    /// Bytes of response body after content decoding; Lariat decodes none, so this equals ``countOfResponseBodyBytesReceived``.
    public let countOfResponseBodyBytesAfterDecoding: Int64
    /// The local IP address of the connection.
    public let localAddress: String?
    /// The local port of the connection.
    public let localPort: Int?
    /// The remote IP address of the connection.
    public let remoteAddress: String?
    /// The remote port of the connection.
    public let remotePort: Int?
    /// The TLS version, or `nil` for plain HTTP.
    public let negotiatedTLSProtocolVersion: TLSProtocolVersion?
    /// The TLS cipher suite's standard name (for example `TLS_AES_128_GCM_SHA256`), or `nil` for plain HTTP.
    public let negotiatedTLSCipherSuite: String?

    /// Creates transaction metrics. Every measurement defaults to "did not happen" (`nil` or `0`).
    ///
    /// - Parameters:
    ///   - request:  The request as sent.
    ///   - response: The response head, if one arrived.
    ///   - fetchStartDate ... responseEndDate: The phase dates; see the properties.
    ///   - networkProtocolName: `http/1.1` by default.
    ///   - isReusedConnection: `false` by default.
    ///   - resourceFetchType: ``ResourceFetchType/networkLoad`` by default.
    ///   - countOfRequestHeaderBytesSent ... countOfResponseBodyBytesReceived: Byte counts. `0` by default.
    ///   - localAddress, localPort, remoteAddress, remotePort: The connection's endpoints. `nil` by default.
    ///   - negotiatedTLSProtocolVersion, negotiatedTLSCipherSuite: TLS details. `nil` by default.
    public init(
        request: URLRequest,
        response: HTTPURLResponse? = nil,
        fetchStartDate: Date? = nil,
        domainLookupStartDate: Date? = nil,
        domainLookupEndDate: Date? = nil,
        connectStartDate: Date? = nil,
        secureConnectionStartDate: Date? = nil,
        secureConnectionEndDate: Date? = nil,
        connectEndDate: Date? = nil,
        requestStartDate: Date? = nil,
        requestEndDate: Date? = nil,
        responseStartDate: Date? = nil,
        responseEndDate: Date? = nil,
        networkProtocolName: String? = "http/1.1",
        isReusedConnection: Bool = false,
        resourceFetchType: ResourceFetchType = .networkLoad,
        countOfRequestHeaderBytesSent: Int64 = 0,
        countOfRequestBodyBytesSent: Int64 = 0,
        countOfResponseHeaderBytesReceived: Int64 = 0,
        countOfResponseBodyBytesReceived: Int64 = 0,
        localAddress: String? = nil,
        localPort: Int? = nil,
        remoteAddress: String? = nil,
        remotePort: Int? = nil,
        negotiatedTLSProtocolVersion: TLSProtocolVersion? = nil,
        negotiatedTLSCipherSuite: String? = nil
    ) {
        self.request = request
        self.response = response
        self.fetchStartDate = fetchStartDate
        self.domainLookupStartDate = domainLookupStartDate
        self.domainLookupEndDate = domainLookupEndDate
        self.connectStartDate = connectStartDate
        self.secureConnectionStartDate = secureConnectionStartDate
        self.secureConnectionEndDate = secureConnectionEndDate
        self.connectEndDate = connectEndDate
        self.requestStartDate = requestStartDate
        self.requestEndDate = requestEndDate
        self.responseStartDate = responseStartDate
        self.responseEndDate = responseEndDate
        self.networkProtocolName = networkProtocolName
        self.isProxyConnection = false
        self.isReusedConnection = isReusedConnection
        self.resourceFetchType = resourceFetchType
        self.countOfRequestHeaderBytesSent = countOfRequestHeaderBytesSent
        self.countOfRequestBodyBytesSent = countOfRequestBodyBytesSent
        self.countOfRequestBodyBytesBeforeEncoding = countOfRequestBodyBytesSent
        self.countOfResponseHeaderBytesReceived = countOfResponseHeaderBytesReceived
        self.countOfResponseBodyBytesReceived = countOfResponseBodyBytesReceived
        self.countOfResponseBodyBytesAfterDecoding = countOfResponseBodyBytesReceived
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.negotiatedTLSProtocolVersion = negotiatedTLSProtocolVersion
        self.negotiatedTLSCipherSuite = negotiatedTLSCipherSuite
    }
}
