// The wire mapping: a URLRequest and the session's settings in, the TransportRequest the
// connection sends out. A pure function of its arguments (no session, no storage, no clock but
// the `start` it is given), so `Session` (every exchange, every redirect hop), `fetch -v`
// (`Session+RequestHead.swift`) and the tests (TransportRequestMappingTests, one row per concern)
// share it and see the same bytes.
//
// Concerns, in the order they are applied:
//   scheme      http, https, http+unix; anything else is unsupported (`.unsupportedURL`)
//   host        percent-decoded, refused if it could smuggle another host, A-labels (IDNA)
//   Unix socket the decoded host of `http+unix://` is the socket's path; `Host: localhost`
//   headers     the configuration's `httpAdditionalHeaders` where the request has none
//   framing     Content-Length/Transfer-Encoding written from the body, never the caller's
//   cookies     the `Cookie` field the caller looked up for this URL
//   target      origin-form path and query, as percent-encoded in the URL
//   timeouts    idle, connect and the total deadline (`TimeoutLimit`)
//   proxy       the route into the pool key; absolute-form and Proxy-Authorization for plain
//               http through an HTTP proxy (`TransportRequest+Proxy.swift`)
//
// It lives in Client, not beside TransportRequest: the transport knows nothing of URLRequest.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Wire
import EventLoop
import Transport

extension TransportRequest {
    /// Maps a URLRequest to what the transport sends: scheme and host checked, the host converted
    /// to A-labels, default headers added, framing decided, cookies added, the target and
    /// timeouts computed and the proxy route chosen. Header fields are checked for injection by
    /// Wire when serialized, not here.
    ///
    /// - Parameters:
    ///   - urlRequest: The request.
    ///   - settings: The session's configuration: additional headers, timeouts, proxies.
    ///   - body: An upload's body (a file streamed from disk, a stream or bytes); `nil` sends
    ///     `urlRequest.httpBody`.
    ///   - cookies: The `Cookie` field's value for this URL (`Settings.cookieFieldValue(for:url:)`),
    ///     or `nil` for none: text, or bytes written as they are (a cookie set with obs-text).
    ///   - start: When the request started, for the total deadline (`timeoutIntervalForResource`);
    ///     a retry passes its first start.
    /// - Throws: `TransportError` of kind ``TransportError/Kind/unsupportedURL`` for a URL without
    ///   a scheme or with one other than http, https and http+unix (URLSession makes a task for
    ///   such a request and fails it with `URLError.unsupportedURL`: `Session.transportRequest`
    ///   turns this error into a refused exchange); `AFError.invalidURL` for a request without a
    ///   URL, or a host that is empty or breaks ``HostName``'s rules; `AFError.sessionTaskFailed` with
    ///   `URLError.timedOut` for a timeout that is zero, negative or NaN (``TimeoutLimit``).
    init(_ urlRequest: URLRequest, settings: URLSessionConfiguration.Settings, body: RequestBody?,
         cookies: CookieFieldValue?, start: Deadline) throws {
        guard let url = urlRequest.url else { throw AFError.invalidURL(url: "") }
        let scheme = try Self.scheme(of: url)
        let route = try Self.origin(of: url, scheme: scheme)
        var authority = route.authority
        // The request's fields, then each additional header it does not set itself, written
        // straight into the one array the head keeps (a merged HTTPHeaders first was a second
        // array per request).
        let requestHeaders = urlRequest.headers
        let additional = settings.httpAdditionalHeaders ?? [:]
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(requestHeaders.count + additional.count)
        func add(_ name: String, _ value: String) {
            switch name.lowercased() {
            case "host": authority = value
            // Framing is written from the body: an in-memory body always has a known length, so
            // a caller's Content-Length or Transfer-Encoding is replaced by the real one.
            case "content-length", "transfer-encoding": break
            default: fields.append((name, value))
            }
        }
        for header in requestHeaders { add(header.name, header.value) }
        for index in additional.indices {
            let (name, value) = additional[index]
            if Self.addsAdditionalHeader(at: index, of: additional, to: requestHeaders) { add(name, value) }
        }
        // Cookies for this exchange's own URL (every redirect hop asks again); the caller gives
        // none when the request carries its own Cookie field, kept as URLSession keeps it.
        // A value with bytes that are not UTF-8 (obs-text a server set) goes as those bytes.
        var byteFields: [(name: String, value: [UInt8])] = []
        switch cookies {
        case .text(let text): fields.append(("Cookie", text))
        case .bytes(let bytes): byteFields.append(("Cookie", bytes))
        case nil: break
        }
        let method = urlRequest.httpMethod ?? "GET"
        let body = body ?? urlRequest.httpBody.map(RequestBody.data)
        var target = Self.originFormTarget(of: url)
        // URLSession's rule: the request's own timeout when it set one, else the configuration's
        // (`configuration.timeoutIntervalForRequest = 10` is how Alamofire users set timeouts).
        let idleTimeout = urlRequest.hasExplicitTimeout
            ? try TimeoutLimit.duration(urlRequest.timeoutInterval, setting: "URLRequest.timeoutInterval", url: url)
            : try TimeoutLimit.duration(settings.timeoutIntervalForRequest, setting: "timeoutIntervalForRequest", url: url)
        let connectTimeout = try TimeoutLimit.duration(settings.timeoutIntervalForConnect, setting: "timeoutIntervalForConnect", url: url)
        let total = try TimeoutLimit.duration(settings.timeoutIntervalForResource, setting: "timeoutIntervalForResource", url: url)
        var key = route.key
        Self.routeThroughProxy(&key, proxy: settings.proxy, scheme: scheme, authority: route.authority, target: &target, fields: &fields)
        if let requestTarget = settings.requestTarget { target = requestTarget }
        self.init(
            key: key,
            head: RequestHead(method: RequestMethod(method), target: target, authority: authority, fields: fields,
                              framing: Self.framing(of: body, method: method)),
            body: body,
            isIdempotent: Self.isIdempotent(method),
            idleTimeout: idleTimeout,
            connectTimeout: connectTimeout,
            deadline: total.map { start + $0 } ?? .distantFuture
        )
        head.byteFields = byteFields
        head.isHTTP10 = settings.usesHTTP10
        responseParsing = settings.responseReading.parsingOptions
    }

    /// The URL's scheme, lower case, if Lariat sends it.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: `http`, `https` or `http+unix`.
    /// - Throws: `TransportError` of kind `.unsupportedURL` for any other scheme or none (a
    ///   relative reference such as `invalid`, `file:`, `ftp:`).
    static func scheme(of url: URL) throws -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" || scheme == "http+unix" else {
            throw TransportError(.unsupportedURL, "unsupported URL \(url.absoluteString): Lariat sends http, https and http+unix URLs only")
        }
        return scheme
    }

    /// Where the connection goes: the pool key without its proxy route, and the origin's
    /// `host[:port]` as written in the request's authority (IPv6 literals in brackets).
    ///
    /// The host is checked after percent-decoding and before anything resolves or sends it:
    /// `%00`, `%2F`, `%40` and friends never reach the resolver, the `Host` line, SNI or trust
    /// checks. `http+unix://%2Fvar%2Frun%2Fdocker.sock/path` (async-http-client's form): the
    /// decoded host is the Unix socket's path; the authority is `localhost`, as Docker's API expects.
    ///
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - scheme: Its scheme, from ``scheme(of:)``.
    /// - Returns: The key and the authority.
    /// - Throws: `AFError.invalidURL` for an empty host, one ``HostName`` refuses, or a socket
    ///   path that is not one.
    static func origin(of url: URL, scheme: String) throws -> (key: ConnectionKey, authority: String) {
        guard let decodedHost = url.host(percentEncoded: false), !decodedHost.isEmpty else { throw AFError.invalidURL(url: url) }
        if scheme == "http+unix" {
            do { _ = try SocketAddress(unixPath: decodedHost) } catch { throw AFError.invalidURL(url: url) }
            return (ConnectionKey(isTLS: false, host: decodedHost, port: 0, unixSocketPath: decodedHost), "localhost")
        }
        let bareHost: String
        do { bareHost = try HostName.wireForm(of: decodedHost) } catch { throw AFError.invalidURL(url: url) }
        let isTLS = scheme == "https"
        let port = url.port ?? (isTLS ? 443 : 80)
        // `utf8.contains`, not `String.contains(_:)`: the latter allocated on every request.
        let hostForHeader = bareHost.utf8.contains(UInt8(ascii: ":")) ? "[\(bareHost)]" : bareHost
        let authority = url.port == nil ? hostForHeader : "\(hostForHeader):\(port)"
        return (ConnectionKey(isTLS: isTLS, host: bareHost, port: port), authority)
    }

    /// Whether the configuration's additional header at `index` is sent, as URLSession merges
    /// them: only when the request does not set that name itself, nor an additional header
    /// before it in the dictionary's order (names compared case-insensitively).
    ///
    /// - Parameters:
    ///   - index: The header's position in `additional`.
    ///   - additional: `httpAdditionalHeaders`.
    ///   - requestHeaders: The request's own fields.
    /// - Returns: `true` to send it after the request's fields.
    static func addsAdditionalHeader(at index: Dictionary<String, String>.Index, of additional: [String: String],
                                     to requestHeaders: HTTPHeaders) -> Bool {
        let name = additional[index].key
        guard requestHeaders.value(for: name) == nil else { return false }
        return !additional[additional.startIndex..<index].contains { HTTPHeader(name: $0.key, value: "").hasName(name) }
    }

    /// The framing of `body` for `method`: its length, chunked for a stream of unknown length,
    /// `Content-Length: 0` for POST, PUT and PATCH without a body, nothing otherwise.
    ///
    /// - Parameters:
    ///   - body: The body sent, or `nil`.
    ///   - method: The request method.
    /// - Returns: The framing the serializer writes.
    static func framing(of body: RequestBody?, method: String) -> RequestFraming {
        if let body { return body.isChunked ? .chunked : .contentLength(body.count) }
        return methodsFramingEmptyBody(method) ? .contentLength(0) : .none
    }

    /// The origin-form target: the URL's path and query as percent-encoded in it, `/` for an
    /// empty path (RFC 9112 §3.2.1).
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The target.
    static func originFormTarget(of url: URL) -> String {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// POST, PUT and PATCH without a body still say `Content-Length: 0` (RFC 9110 §8.6: a user
    /// agent should send it when a method defines a meaning for content). A switch, not an array
    /// literal's `contains`: the literal was an allocation per request.
    static func methodsFramingEmptyBody(_ method: String) -> Bool {
        switch method {
        case "POST", "PUT", "PATCH": true
        default: false
        }
    }

    /// RFC 9110 §9.2.2's idempotent methods: safe to retry silently on a fresh connection.
    static func isIdempotent(_ method: String) -> Bool {
        switch method {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }
}
