// swift-openapi-runtime's ClientTransport on a Client Session: a generated OpenAPI client
// (swift-openapi-generator) sends its requests through Lariat.
//
// One call: HTTPRequest + HTTPBody -> URLRequest (the body collected, see below) -> a
// DataStreamRequest on the session -> the response head as an HTTPResponse and the body as an
// HTTPBody fed by the request's stream, chunk by chunk, with the stream's back-pressure.

#if FullFoundation
import Foundation
#else
import FoundationEssentials
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
/// - **Request bodies are collected** into memory before sending, at most
///   ``Configuration/maximumRequestBodySize`` bytes (a larger body fails with
///   ``LariatTransportError/requestBodyTooLarge(limit:)`` before anything is sent). Lariat's
///   stream uploads read their `InputStream` synchronously on the connection's event loop,
///   which an async `HTTPBody` cannot feed without blocking that loop; until Client has an
///   async body source, collecting is the safe choice.
/// - **Cancellation**: cancelling the Swift task that awaits ``send(_:body:baseURL:operationID:)``
///   or iterates the body cancels the Lariat request (and its connection's exchange); the call
///   or the iteration then throws `CancellationError`.
/// - **Errors** are thrown as Lariat reported them (an `AFError`, whose `underlyingError` is the
///   `URLError` or the interceptor's error), so the runtime's `ClientError.underlyingError`
///   keeps them. A status code is never an error: a 4xx is a response, as the runtime expects.
public struct LariatTransport: ClientTransport {
    /// Limits of a ``LariatTransport``.
    public struct Configuration: Sendable {
        /// The largest request body collected before sending, in bytes; 16 MiB by default.
        public var maximumRequestBodySize: Int

        /// Creates a configuration.
        ///
        /// - Parameter maximumRequestBodySize: The largest request body, in bytes; 16 MiB by default.
        public init(maximumRequestBodySize: Int = 16 << 20) {
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
    ///   - body: The request body, collected up to ``Configuration/maximumRequestBodySize``.
    ///   - baseURL: The server URL.
    ///   - operationID: The OpenAPI operation (kept by the runtime in its errors).
    /// - Returns: The response head and, unless the response has no body, its body.
    /// - Throws: ``LariatTransportError``, the `AFError` Lariat reported, or `CancellationError`.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let urlRequest = try await makeURLRequest(request, body: body, baseURL: baseURL)
        let streamRequest = session.streamRequest(urlRequest, shouldAutomaticallyResume: false)
        let exchange = ResponseExchange(request: streamRequest, session: session)
        let head = try await exchange.responseHead()
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

    /// The URLRequest for `request` at `baseURL`, with `body` collected.
    func makeURLRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) async throws -> URLRequest {
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
        if let body {
            urlRequest.httpBody = try await collect(body)
        }
        return urlRequest
    }

    /// The bytes of `body`, at most the configured limit.
    private func collect(_ body: HTTPBody) async throws -> Data {
        let limit = configuration.maximumRequestBodySize
        if case .known(let length) = body.length, length > limit {
            throw LariatTransportError.requestBodyTooLarge(limit: limit)
        }
        var data = Data()
        if case .known(let length) = body.length { data.reserveCapacity(Int(length)) }
        for try await chunk in body {
            guard data.count + chunk.count <= limit else { throw LariatTransportError.requestBodyTooLarge(limit: limit) }
            data.append(contentsOf: chunk)
        }
        return data
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
