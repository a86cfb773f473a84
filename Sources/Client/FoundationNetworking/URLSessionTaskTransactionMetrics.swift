#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import TLS

/// Timing and size measurements for one request/response exchange.
///
/// Dates are `nil` for phases that did not happen: a reused connection has no lookup, connect or
/// TLS dates (as on Apple platforms), a host given as an IP literal has no lookup dates, and a
/// failed exchange stops where it failed. Immutable, so `Sendable`.
public final class URLSessionTaskTransactionMetrics: Sendable {
    /// How a transaction's response was obtained, with Foundation's raw values.
    public enum ResourceFetchType: Int, Sendable {
        /// Not known, for example because the exchange failed early.
        case unknown = 0
        /// Loaded over the network.
        case networkLoad = 1
        /// Pushed by the server (HTTP/2); Lariat never produces this.
        case serverPush = 2
        /// Served from a local cache.
        case localCache = 3
    }

    /// The request as sent.
    public let request: URLRequest
    /// The response head, or `nil` if none arrived.
    public let response: HTTPURLResponse?
    /// When the exchange began (before any connection work).
    public let fetchStartDate: Date?
    /// When name resolution began; `nil` when none was needed.
    public let domainLookupStartDate: Date?
    /// When name resolution ended.
    public let domainLookupEndDate: Date?
    /// When the connection attempt began (name resolution included, as on Apple platforms).
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
    /// Whether a proxy was used.
    public let isProxyConnection: Bool
    /// Whether the exchange used a connection kept alive from an earlier one.
    public let isReusedConnection: Bool
    /// How the response was obtained.
    public let resourceFetchType: ResourceFetchType
    /// Bytes of request head written (request line and fields).
    public let countOfRequestHeaderBytesSent: Int64
    /// Bytes of request body written.
    public let countOfRequestBodyBytesSent: Int64
    /// Bytes of request body before content coding; Lariat applies none, so this equals ``countOfRequestBodyBytesSent``.
    public let countOfRequestBodyBytesBeforeEncoding: Int64
    /// Bytes of response head received (status line and fields).
    public let countOfResponseHeaderBytesReceived: Int64
    /// Bytes of response body received, including chunked framing.
    public let countOfResponseBodyBytesReceived: Int64
    /// Bytes of response body after content decoding.
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
    public let negotiatedTLSProtocolVersion: tls_protocol_version_t?
    /// The TLS cipher suite, or `nil` for plain HTTP.
    public let negotiatedTLSCipherSuite: tls_ciphersuite_t?
    /// The cipher suite's OpenSSL name (`TLS_AES_128_GCM_SHA256`, `ECDHE-RSA-AES128-GCM-SHA256`),
    /// as curl prints it, or `nil` for plain HTTP. Lariat's own addition.
    public let negotiatedTLSCipherSuiteName: String?
    /// Whether the connection went over a cellular interface: always `false` on Linux.
    public let isCellular: Bool
    /// Whether the interface was marked expensive: always `false` on Linux.
    public let isExpensive: Bool
    /// Whether the interface was in Low Data Mode: always `false` on Linux.
    public let isConstrained: Bool
    /// Whether Multipath TCP was used: always `false`.
    public let isMultipath: Bool

    /// Creates transaction metrics. Every measurement defaults to "did not happen" (`nil` or `0`).
    ///
    /// - Parameters:
    ///   - request:  The request as sent.
    ///   - response: The response head, if one arrived.
    ///   - fetchStartDate: When the exchange began (before any connection work).
    ///   - domainLookupStartDate: When name resolution started.
    ///   - domainLookupEndDate: When name resolution ended.
    ///   - connectStartDate: When the connection attempt began (name resolution included).
    ///   - secureConnectionStartDate: When the TLS handshake started.
    ///   - secureConnectionEndDate: When the TLS handshake ended.
    ///   - connectEndDate: When the connection (including TLS) was ready.
    ///   - requestStartDate: When the first request byte was written.
    ///   - requestEndDate: When the last request byte was written.
    ///   - responseStartDate: When the first response byte arrived.
    ///   - responseEndDate: When the last response byte arrived.
    ///   - networkProtocolName: `http/1.1` by default.
    ///   - isProxyConnection: `false` by default.
    ///   - isReusedConnection: `false` by default.
    ///   - resourceFetchType: ``ResourceFetchType/networkLoad`` by default.
    ///   - countOfRequestHeaderBytesSent: Bytes of the request head written. `0` by default.
    ///   - countOfRequestBodyBytesSent: Bytes of the request body written. `0` by default.
    ///   - countOfResponseHeaderBytesReceived: Bytes of the response head read. `0` by default.
    ///   - countOfResponseBodyBytesReceived: Bytes of the response body read, chunked framing
    ///     included. `0` by default.
    ///   - countOfResponseBodyBytesAfterDecoding: `nil` (the default) means the same as received.
    ///   - localAddress: The connection's local address. `nil` by default.
    ///   - localPort: The connection's local port. `nil` by default.
    ///   - remoteAddress: The connection's peer address. `nil` by default.
    ///   - remotePort: The connection's peer port. `nil` by default.
    ///   - negotiatedTLSProtocolVersion: The TLS version. `nil` by default.
    ///   - negotiatedTLSCipherSuite: The TLS cipher suite. `nil` by default.
    ///   - negotiatedTLSCipherSuiteName: The suite's OpenSSL name. `nil` by default.
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
        isProxyConnection: Bool = false,
        isReusedConnection: Bool = false,
        resourceFetchType: ResourceFetchType = .networkLoad,
        countOfRequestHeaderBytesSent: Int64 = 0,
        countOfRequestBodyBytesSent: Int64 = 0,
        countOfResponseHeaderBytesReceived: Int64 = 0,
        countOfResponseBodyBytesReceived: Int64 = 0,
        countOfResponseBodyBytesAfterDecoding: Int64? = nil,
        localAddress: String? = nil,
        localPort: Int? = nil,
        remoteAddress: String? = nil,
        remotePort: Int? = nil,
        negotiatedTLSProtocolVersion: tls_protocol_version_t? = nil,
        negotiatedTLSCipherSuite: tls_ciphersuite_t? = nil,
        negotiatedTLSCipherSuiteName: String? = nil
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
        self.isProxyConnection = isProxyConnection
        self.isReusedConnection = isReusedConnection
        self.resourceFetchType = resourceFetchType
        self.countOfRequestHeaderBytesSent = countOfRequestHeaderBytesSent
        self.countOfRequestBodyBytesSent = countOfRequestBodyBytesSent
        self.countOfRequestBodyBytesBeforeEncoding = countOfRequestBodyBytesSent
        self.countOfResponseHeaderBytesReceived = countOfResponseHeaderBytesReceived
        self.countOfResponseBodyBytesReceived = countOfResponseBodyBytesReceived
        self.countOfResponseBodyBytesAfterDecoding = countOfResponseBodyBytesAfterDecoding ?? countOfResponseBodyBytesReceived
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.negotiatedTLSProtocolVersion = negotiatedTLSProtocolVersion
        self.negotiatedTLSCipherSuite = negotiatedTLSCipherSuite
        self.negotiatedTLSCipherSuiteName = negotiatedTLSCipherSuiteName
        self.isCellular = false
        self.isExpensive = false
        self.isConstrained = false
        self.isMultipath = false
    }

    /// Builds the metrics of one transaction from the transport's record (on first read of
    /// `URLSessionTaskMetrics.transactionMetrics`).
    convenience init(record: TransactionRecord) {
        let summary = record.summary
        let t = summary.timings
        self.init(
            request: record.request, response: record.response,
            fetchStartDate: t.fetchStart, domainLookupStartDate: t.domainLookupStart, domainLookupEndDate: t.domainLookupEnd,
            connectStartDate: t.connectStart,
            secureConnectionStartDate: t.secureConnectionStart, secureConnectionEndDate: t.secureConnectionEnd,
            connectEndDate: t.connectEnd, requestStartDate: t.requestStart, requestEndDate: t.requestEnd,
            responseStartDate: t.responseStart, responseEndDate: t.responseEnd,
            isReusedConnection: summary.isReusedConnection,
            // A failure before any byte came back (refused, timed out) fetched nothing.
            resourceFetchType: t.responseStart == nil ? .unknown : .networkLoad,
            countOfRequestHeaderBytesSent: t.requestStart == nil ? 0 : Int64(summary.requestHeaderBytes),
            countOfRequestBodyBytesSent: Int64(summary.requestBodyBytesSent),
            countOfResponseHeaderBytesReceived: Int64(summary.responseHeaderBytes),
            countOfResponseBodyBytesReceived: Int64(summary.responseBodyBytes),
            countOfResponseBodyBytesAfterDecoding: record.decodedBodyBytes,
            localAddress: summary.localAddress, localPort: summary.localPort,
            remoteAddress: summary.remoteAddress, remotePort: summary.remotePort,
            negotiatedTLSProtocolVersion: summary.tlsVersion.flatMap { tls_protocol_version_t(rawValue: UInt16(truncatingIfNeeded: $0.wireValue)) },
            negotiatedTLSCipherSuite: summary.tlsCipherID.flatMap(tls_ciphersuite_t.init(rawValue:)),
            negotiatedTLSCipherSuiteName: summary.tlsCipher
        )
    }
}
