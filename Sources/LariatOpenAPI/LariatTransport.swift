// swift-openapi-runtime's ClientTransport on a Client Session: a generated OpenAPI client
// (swift-openapi-generator) sends its requests through Lariat.
//
// One call: HTTPRequest -> URLRequest -> a DataStreamRequest on the session, its body streamed
// from the HTTPBody (HTTPBodySource.swift) -> the response head as an HTTPResponse and the body
// as an HTTPBody fed by the request's stream, chunk by chunk, with the stream's back-pressure.

#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Client
public import HTTPTypes
public import OpenAPIRuntime

/// A `ClientTransport` (swift-openapi-runtime) that sends each request through a Lariat ``Session``.
///
/// Everything configured on the session applies to generated clients: its request
/// interceptors (adapters and retriers, `RetryPolicy`), its `ServerTrustManager` (certificate
/// and public-key pinning, trust profiles), proxies, cookie storage, redirect handler, event
/// monitors (`ClientObservability`'s logging, metrics and tracing monitors among them),
/// timeouts and connection pool.
///
/// ```swift
/// let session = Session(serverTrustManager: ServerTrustManager(evaluators: ["api.example.com": pinning]))
/// let client = Client(serverURL: try Servers.server1(), transport: LariatTransport(session: session))
/// ```
///
/// - **Response bodies are streamed**: the `HTTPBody` returned yields the body as the
///   connection reads it. Lariat stops reading the socket while more than
///   `DataStreamRequest.maxBufferedBytes` (1 MiB) are waiting for the consumer, so a 64 MiB
///   download iterated chunk by chunk stays within a few MiB of memory. The body can be
///   iterated once.
/// - **Request bodies are streamed** as the socket drains: the `HTTPBody` is iterated by a task
///   into a buffer of at most 256 KiB (plus one of its chunks), which the connection empties;
///   a full buffer suspends the iteration, an empty one pauses the connection's writing, so a
///   64 MiB upload stays within a few MiB of memory. A body of known length goes out with
///   `Content-Length`, one of unknown length chunked. A body over
///   ``Configuration/maximumRequestBodySize`` fails with
///   ``LariatTransportError/requestBodyTooLarge(limit:)``: before anything is sent when its
///   length is known, else when the limit is crossed. A streamed body is never retried.
/// - **Cancellation**: cancelling the Swift task that awaits ``send(_:body:baseURL:operationID:)``
///   or iterates the body cancels the Lariat request (and its connection's exchange); the call
///   or the iteration then throws `CancellationError`.
/// - **Errors** are thrown as Lariat reported them (an `AFError`, whose `underlyingError` is the
///   `URLError` or the interceptor's error), so the runtime's `ClientError.underlyingError`
///   keeps them. A status code is never an error: a 4xx is a response, as the runtime expects.
public struct LariatTransport: ClientTransport {
    /// Limits of a ``LariatTransport``.
    public struct Configuration: Sendable {
        /// The largest request body sent, in bytes; no limit (`Int.max`) by default.
        public var maximumRequestBodySize: Int

        /// Creates a configuration.
        ///
        /// - Parameter maximumRequestBodySize: The largest request body, in bytes; no limit by default.
        public init(maximumRequestBodySize: Int = .max) {
            self.maximumRequestBodySize = maximumRequestBodySize
        }
    }

    /// The session every request goes through.
    public let session: Session
    /// The transport's limits.
    public let configuration: Configuration

    /// Creates a transport on `session`.
    ///
    /// - Parameters:
    ///   - session: The session to send through; `Session.default` by default.
    ///   - configuration: Limits; the defaults by default.
    public init(session: Session = .default, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
    }

    /// Sends `request` (with `body`) to `baseURL` and returns the response head at once, its body
    /// streamed as it arrives.
    ///
    /// - Parameters:
    ///   - request: The request; its path (with query) is appended to `baseURL`'s path.
    ///   - body: The request body, streamed, at most ``Configuration/maximumRequestBodySize`` bytes.
    ///   - baseURL: The server URL.
    ///   - operationID: The OpenAPI operation (kept by the runtime in its errors).
    /// - Returns: The response head and, unless the response has no body, its body.
    /// - Throws: ``LariatTransportError``, the `AFError` Lariat reported, or `CancellationError`.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try makeURLRequest(request, baseURL: baseURL)
        var length: Int?
        let limit = configuration.maximumRequestBodySize
        if let body, case .known(let known) = body.length {
            guard known <= limit else { throw LariatTransportError.requestBodyTooLarge(limit: limit) }
            length = Int(known)
            // The transport frames a stream of known length by this header (else chunked).
            urlRequest.setValue(String(known), forHTTPHeaderField: "Content-Length")
        }
        let streamRequest = session.streamRequest(urlRequest, shouldAutomaticallyResume: false)
        let source = body.map { HTTPBodySource($0, limit: limit) }
        if let source { streamRequest.uploadBody(from: source, length: length) }
        let exchange = ResponseExchange(request: streamRequest, session: session)
        let head: HTTPURLResponse
        do {
            head = try await exchange.responseHead()
        } catch {
            // The body's own failure (its error, or over the limit) says more than the
            // transport's "request body unreadable".
            if let failure = source?.failure { throw failure }
            throw error
        }
        let response: HTTPResponse
        do {
            response = try HTTPResponse(head)
        } catch {
            streamRequest.cancel()
            throw error
        }
        if request.method == .head || head.statusCode == 204 || head.statusCode == 304 {
            exchange.expectNoBody()
            return (response, nil)
        }
        return (response, exchange.body(length: Self.bodyLength(of: head)))
    }

    /// The URLRequest for `request` at `baseURL` (the body goes separately, streamed).
    func makeURLRequest(_ request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw HTTPTypesConversionError.invalidURL(baseURL.absoluteString)
        }
        let path = request.path ?? ""
        let (pathPart, query) = path.firstIndex(of: "?").map { (path[..<$0], path[path.index(after: $0)...]) } ?? (path[...], nil)
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") && pathPart.hasPrefix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + pathPart
        components.percentEncodedQuery = query.map(String.init)
        guard let url = components.url else { throw HTTPTypesConversionError.invalidURL(baseURL.absoluteString + path) }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.headers = HTTPHeaders(request.headerFields)
        return urlRequest
    }

    /// The body's length from `Content-Length`, when the bytes delivered are the bytes framed
    /// (no content coding, which Lariat decodes).
    static func bodyLength(of head: HTTPURLResponse) -> HTTPBody.Length {
        guard head.value(forHTTPHeaderField: "Content-Encoding") == nil,
              let text = head.value(forHTTPHeaderField: "Content-Length"), let length = Int64(text), length >= 0 else {
            return .unknown
        }
        return .known(length)
    }
}

/// An error of ``LariatTransport`` itself (Lariat's own errors are thrown as they are).
public struct LariatTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case requestBodyTooLarge(Int)
        case noResponse
        case retriedAfterResponse
    }

    private let kind: Kind

    /// The request body is larger than ``LariatTransport/Configuration/maximumRequestBodySize``.
    public static func requestBodyTooLarge(limit: Int) -> Self { Self(kind: .requestBodyTooLarge(limit)) }
    /// The request ended without a response head and without an error (not expected).
    public static let noResponse = Self(kind: .noResponse)

    /// The session's retrier retried the request after its response head was returned (for
    /// example after the connection was lost mid-body): the body fails, as the bytes already
    /// handed out cannot be taken back.
    public static let retriedAfterResponse = Self(kind: .retriedAfterResponse)

    /// What went wrong.
    public var description: String {
        switch kind {
        case .requestBodyTooLarge(let limit): "the request body is larger than the transport's limit of \(limit) bytes"
        case .noResponse: "the request ended without a response"
        case .retriedAfterResponse: "the request was retried after its response was returned; the body is incomplete"
        }
    }
}
