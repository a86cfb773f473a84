#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// A description of one HTTP request: URL, method, header fields, body and load options.
///
/// Lariat's own `URLRequest`, with the members of Foundation's that HTTP code uses. On Linux,
/// Foundation's lives in FoundationNetworking, which Lariat never links, so this type is used in
/// every build. Header fields keep the order they were set in (an ``HTTPHeaders`` underneath) and
/// are looked up case-insensitively.
///
/// ## Body streams and `Sendable`
/// ``httpBodyStream`` holds a reference to a stream, as Foundation's does: copies of a request
/// share one stream, and a stream can be read only once. The request stays `Sendable` by keeping
/// the stream in a small immutable box; hand a request with a stream to exactly one reader (the
/// transport), and do not read the stream yourself afterwards.
public struct URLRequest: Sendable {
    /// How a load may use cached responses, with Foundation's raw values.
    ///
    /// Lariat has no response cache yet, so every policy currently loads from the network; the value
    /// is kept so code that sets it compiles and so a future cache can honour it.
    public enum CachePolicy: UInt, Sendable {
        /// Follow the protocol's caching rules (the default).
        case useProtocolCachePolicy = 0
        /// Ignore any local cache and load from the origin.
        case reloadIgnoringLocalCacheData = 1
        /// Use cached data of any age, loading only when there is none.
        case returnCacheDataElseLoad = 2
        /// Use cached data of any age, and fail instead of loading when there is none.
        case returnCacheDataDontLoad = 3
        /// Ignore local and intermediate caches.
        case reloadIgnoringLocalAndRemoteCacheData = 4
        /// Revalidate cached data with the origin before using it.
        case reloadRevalidatingCacheData = 5

        /// Foundation's older name for ``reloadIgnoringLocalCacheData``.
        public static var reloadIgnoringCacheData: CachePolicy { .reloadIgnoringLocalCacheData }
    }

    /// The request body, as bytes or as a stream; never both (setting one clears the other, as in Foundation).
    enum Body: Sendable, Equatable, Hashable {
        case data(Data)
        case stream(BodyStream)
    }

    /// The URL to load.
    public var url: URL?

    /// How cached responses may be used. ``CachePolicy/useProtocolCachePolicy`` by default.
    public var cachePolicy: CachePolicy

    /// Seconds the request may stay idle (no bytes moving) before it fails with `URLError.timedOut`.
    /// `60` by default. As with URLSession, a value you set (here or in `init`) wins; while it is
    /// the default, the session's `timeoutIntervalForRequest` applies. `.infinity` means none;
    /// zero, negative or NaN make the request fail at once with `URLError.timedOut` (see
    /// ``URLSessionConfiguration/timeoutIntervalForRequest``). The total time is bounded by the
    /// session's ``URLSessionConfiguration/timeoutIntervalForResource``.
    public var timeoutInterval: TimeInterval {
        didSet { hasExplicitTimeout = true }
    }

    /// Whether ``timeoutInterval`` was set by the caller rather than left at its default.
    private(set) var hasExplicitTimeout = false

    /// Whether the session's cookie storage applies to this request. `true` by default.
    public var httpShouldHandleCookies: Bool = true

    /// The URL of the page this request loads for, which ``HTTPCookie/AcceptPolicy/onlyFromMainDocumentDomain``
    /// compares cookie domains with. `nil` by default: the request's own URL is used.
    public var mainDocumentURL: URL?

    /// Whether the request may be pipelined on a connection. `false` by default; Lariat never
    /// pipelines, so this is recorded only.
    public var httpShouldUsePipelining: Bool = false

    /// Whether cellular interfaces may be used. `true` by default; ignored on Linux.
    public var allowsCellularAccess: Bool = true

    /// The header fields in order. Read and write them through ``headers``, ``allHTTPHeaderFields``
    /// or the `value(forHTTPHeaderField:)` family.
    var headerFields = HTTPHeaders()

    /// The method token; `GET` unless set.
    private var methodToken = "GET"

    /// The body, if any.
    var body: Body?

    /// Creates a `GET` request with no header fields and no body.
    ///
    /// - Parameters:
    ///   - url:             The URL to load.
    ///   - cachePolicy:     How cached responses may be used. ``CachePolicy/useProtocolCachePolicy`` by default.
    ///   - timeoutInterval: Idle timeout in seconds. `60` by default.
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.timeoutInterval = timeoutInterval
        self.hasExplicitTimeout = timeoutInterval != 60
    }

    /// The HTTP method, `GET` by default. Setting `nil` restores `GET`.
    public var httpMethod: String? {
        get { methodToken }
        set { methodToken = newValue ?? "GET" }
    }

    /// The header fields as a dictionary, or `nil` when there are none.
    ///
    /// Reading collapses repeated names (last value wins, see ``HTTPHeaders/dictionary``).
    /// Setting replaces every field; the new fields are ordered by name, because dictionaries have
    /// no order. Use ``headers`` to control order.
    public var allHTTPHeaderFields: [String: String]? {
        get { headerFields.isEmpty ? nil : headerFields.dictionary }
        set { headerFields = newValue.map(HTTPHeaders.init) ?? HTTPHeaders() }
    }

    /// The body bytes. Setting a value clears ``httpBodyStream``; `nil` by default.
    public var httpBody: Data? {
        get {
            guard case let .data(data) = body else { return nil }
            return data
        }
        set { body = newValue.map(Body.data) }
    }

    /// A stream the body is read from. Setting a value clears ``httpBody``; `nil` by default.
    ///
    /// The stream is shared by copies of this request and is read once, by the transport. Send the
    /// length in a `Content-Length` field if you know it; otherwise the body goes out chunked.
    public var httpBodyStream: InputStream? {
        get {
            guard case let .stream(box) = body else { return nil }
            return box.stream
        }
        set { body = newValue.map { .stream(BodyStream($0)) } }
    }

    /// Returns the value of a header field.
    ///
    /// - Parameter field: The field name, matched case-insensitively.
    /// - Returns: The first value with that name, or `nil`.
    public func value(forHTTPHeaderField field: String) -> String? {
        headerFields.value(for: field)
    }

    /// Sets or removes a header field.
    ///
    /// - Parameters:
    ///   - value: The new value, replacing any fields with this name; `nil` removes them.
    ///   - field: The field name, matched case-insensitively.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        headerFields[field] = value
    }

    /// Adds a value to a header field, comma-joining it with an existing value as Foundation does
    /// (RFC 9110 §5.3 allows a list-valued field to be combined this way).
    ///
    /// - Parameters:
    ///   - value: The value to add.
    ///   - field: The field name, matched case-insensitively.
    public mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        if let existing = headerFields.value(for: field) {
            headerFields.update(name: field, value: "\(existing),\(value)")
        } else {
            headerFields.add(name: field, value: value)
        }
    }
}

/// An immutable box around a body stream, so ``URLRequest`` can be `Sendable`.
///
/// `@unchecked` because Foundation's `InputStream` is not `Sendable`. This is sound under the
/// contract documented on ``URLRequest``: only one reader (the transport) ever reads the stream.
/// The box compares and hashes by the stream's identity, as Foundation's request does.
final class BodyStream: @unchecked Sendable, Equatable, Hashable {
    /// The shared stream.
    let stream: InputStream

    init(_ stream: InputStream) {
        self.stream = stream
    }

    static func == (lhs: BodyStream, rhs: BodyStream) -> Bool {
        lhs.stream === rhs.stream
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(stream))
    }
}

extension URLRequest: Equatable, Hashable {
    /// Two requests are equal when every member is: URL, method, fields (in order), body (streams
    /// by identity) and load options.
    ///
    /// - Parameters:
    ///   - lhs: A request.
    ///   - rhs: Another request.
    /// - Returns: Whether they are equal.
    public static func == (lhs: URLRequest, rhs: URLRequest) -> Bool {
        lhs.url == rhs.url && lhs.methodToken == rhs.methodToken && lhs.headerFields == rhs.headerFields
            && lhs.body == rhs.body && lhs.cachePolicy == rhs.cachePolicy
            && lhs.timeoutInterval == rhs.timeoutInterval
            && lhs.httpShouldHandleCookies == rhs.httpShouldHandleCookies && lhs.mainDocumentURL == rhs.mainDocumentURL
            && lhs.httpShouldUsePipelining == rhs.httpShouldUsePipelining
            && lhs.allowsCellularAccess == rhs.allowsCellularAccess
    }

    /// Hashes the URL, method, fields and body.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(methodToken)
        hasher.combine(headerFields)
        hasher.combine(body)
    }
}

extension URLRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The URL's absolute string, as Foundation prints a request.
    public var description: String {
        url?.absoluteString ?? "(no URL)"
    }

    /// The method, URL, header fields and body size.
    public var debugDescription: String {
        var lines = ["\(methodToken) \(description)"]
        lines += headerFields.map { "    \($0)" }
        switch body {
        case let .data(data): lines.append("    [Body: \(data.count) bytes]")
        case .stream: lines.append("    [Body: stream]")
        case nil: break
        }
        return lines.joined(separator: "\n")
    }
}
