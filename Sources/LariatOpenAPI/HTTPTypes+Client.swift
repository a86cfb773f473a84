// Conversions between swift-http-types (`HTTPRequest`, `HTTPResponse`, `HTTPFields`) and
// Client's Alamofire-shaped types (`URLRequest`, `HTTPURLResponse`, `HTTPHeaders`).
//
// They live here, not in Client, because `import Client` must not pull swift-http-types in
// (README "In the ecosystem"). Lossless both ways for what both express: field order, repeated
// names (`Set-Cookie`) and the spelling of names are kept; a value swift-http-types cannot hold
// (a name that is not an RFC 9110 token, a method that is not a token, a status outside
// 0...999) is a typed ``HTTPTypesConversionError``, never a crash or a silent change.
// swift-http-types turns bytes it does not allow in a field value (CR, LF, NUL...) into
// spaces, as its `HTTPField(name:value:)` documents: such a value cannot go on the wire anyway.

#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
public import Client
public import HTTPTypes

/// A value that one side of the swift-http-types bridge cannot express.
public struct HTTPTypesConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case invalidFieldName(String)
        case invalidMethod(String)
        case missingURL
        case invalidURL(String)
        case invalidStatusCode(Int)
    }

    private let kind: Kind

    /// A header field name that is not an RFC 9110 token.
    public static func invalidFieldName(_ name: String) -> Self { Self(kind: .invalidFieldName(name)) }
    /// A request method that is not an RFC 9110 token.
    public static func invalidMethod(_ method: String) -> Self { Self(kind: .invalidMethod(method)) }
    /// A `URLRequest` without a URL, or an `HTTPRequest` without scheme/authority/path.
    public static let missingURL = Self(kind: .missingURL)
    /// A URL that is not an absolute http(s) URL with a host.
    public static func invalidURL(_ url: String) -> Self { Self(kind: .invalidURL(url)) }
    /// A status code outside 0...999.
    public static func invalidStatusCode(_ code: Int) -> Self { Self(kind: .invalidStatusCode(code)) }

    /// What could not be converted.
    public var description: String {
        switch kind {
        case .invalidFieldName(let name): "header field name \(String(reflecting: name)) is not a token"
        case .invalidMethod(let method): "request method \(String(reflecting: method)) is not a token"
        case .missingURL: "the request has no URL"
        case .invalidURL(let url): "\(String(reflecting: url)) is not an absolute URL with a host"
        case .invalidStatusCode(let code): "status code \(code) is outside 0...999"
        }
    }
}

// MARK: Header fields

extension HTTPFields {
    /// The fields of `headers`, in order, repeated names kept.
    ///
    /// - Parameter headers: Client's header fields.
    /// - Throws: ``HTTPTypesConversionError/invalidFieldName(_:)`` for a name that is not a token.
    public init(_ headers: HTTPHeaders) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(headers.count)
        for header in headers {
            guard let name = HTTPField.Name(header.name) else { throw .invalidFieldName(header.name) }
            append(HTTPField(name: name, value: header.value))
        }
    }
}

extension HTTPHeaders {
    /// The fields of `fields`, in order, repeated names kept (as in a response head; a later
    /// ``update(_:)`` collapses them, as Alamofire's headers do). Names keep the spelling
    /// swift-http-types stored (`HTTPField.Name.rawName`).
    ///
    /// - Parameter fields: swift-http-types header fields.
    public init(_ fields: HTTPFields) {
        self.init()
        for field in fields { appendField(name: field.name.rawName, value: field.value) }
    }
}

// MARK: Requests

extension HTTPRequest {
    /// The request `request` describes: method, scheme, authority, path with query, header fields.
    ///
    /// The body is not part of an `HTTPRequest`; read `request.httpBody` beside it.
    ///
    /// - Parameter request: Client's request; `httpMethod` `nil` means GET.
    /// - Throws: ``HTTPTypesConversionError`` for a missing URL, a method or field name that is
    ///   not a token.
    public init(_ request: URLRequest) throws(HTTPTypesConversionError) {
        guard let url = request.url else { throw .missingURL }
        guard url.scheme != nil, url.host != nil else { throw .invalidURL(url.absoluteString) }
        let methodName = request.httpMethod ?? "GET"
        guard let method = HTTPRequest.Method(methodName) else { throw .invalidMethod(methodName) }
        self.init(method: method, url: url, headerFields: try HTTPFields(request.headers))
    }
}

extension URLRequest {
    /// A request for `request`, with `body` as its `httpBody`.
    ///
    /// - Parameters:
    ///   - request: The method, URL (scheme, authority and path with query) and header fields.
    ///   - body: The body bytes; `nil` for none.
    /// - Throws: ``HTTPTypesConversionError/missingURL`` when `request` has no scheme,
    ///   authority or path (an `OPTIONS *` or `CONNECT` request).
    public init(_ request: HTTPRequest, body: Data? = nil) throws(HTTPTypesConversionError) {
        guard let url = request.url else { throw .missingURL }
        self.init(url: url)
        httpMethod = request.method.rawValue
        headers = HTTPHeaders(request.headerFields)
        httpBody = body
    }
}

// MARK: Responses

extension HTTPResponse {
    /// The status (code and reason phrase as received) and header fields of `response`.
    ///
    /// - Parameter response: Client's response head.
    /// - Throws: ``HTTPTypesConversionError`` for a status code outside 0...999 or a field name
    ///   that is not a token.
    public init(_ response: HTTPURLResponse) throws(HTTPTypesConversionError) {
        guard (0...999).contains(response.statusCode) else { throw .invalidStatusCode(response.statusCode) }
        self.init(status: Status(code: response.statusCode, reasonPhrase: response.reasonPhrase ?? ""),
                  headerFields: try HTTPFields(response.headers))
    }
}

extension HTTPURLResponse {
    /// A response head for `response`, answering `url`.
    ///
    /// - Parameters:
    ///   - response: The status and header fields; an empty reason phrase stays empty.
    ///   - url: The URL the response answers.
    ///   - httpVersion: The version to record; `HTTP/1.1` by default.
    public convenience init(_ response: HTTPResponse, url: URL, httpVersion: String = "HTTP/1.1") {
        self.init(url: url, statusCode: response.status.code, httpVersion: httpVersion,
                  headers: HTTPHeaders(response.headerFields), reasonPhrase: response.status.reasonPhrase)
    }
}
