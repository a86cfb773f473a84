#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif
import Transport

/// The head of an HTTP response: status, header fields and the URL it answers.
///
/// Lariat's own `HTTPURLResponse`, with the members of Foundation's that HTTP code uses (Foundation's
/// lives in FoundationNetworking on Linux, which Lariat never links). Immutable, so `Sendable`.
/// Header fields keep their received order; lookups ignore case.
///
/// `Equatable` and `Hashable` by identity, as Foundation's (an `NSObject` that does not override
/// `isEqual:`): a response equals only itself, not another with the same status and headers.
public final class HTTPURLResponse: Sendable, Hashable {
    /// Whether `lhs` and `rhs` are the same response object.
    public static func == (lhs: HTTPURLResponse, rhs: HTTPURLResponse) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The URL of the response (after any redirects).
    public let url: URL?

    /// The status code, for example `200`.
    public let statusCode: Int

    /// The protocol version from the status line, for example `HTTP/1.1`.
    public let httpVersion: String

    /// The header fields in received order, repeats kept. Also available as ``headers``.
    let fields: HTTPHeaders

    /// The reason phrase of the status line exactly as the server sent it (`OK`, possibly empty),
    /// or `nil` for a response not read from a server. Lariat's own addition: Foundation keeps
    /// only the code (see ``localizedString(forStatusCode:)``); `fetch -i` prints this one.
    public let reasonPhrase: String?

    /// Creates a response from ordered header fields; this is what Lariat's transport uses.
    ///
    /// - Parameters:
    ///   - url:         The URL the response answers.
    ///   - statusCode:  The status code.
    ///   - httpVersion: The version from the status line. `HTTP/1.1` by default.
    ///   - headers:     The header fields, in received order.
    ///   - reasonPhrase: The status line's reason phrase as received. `nil` by default.
    public init(url: URL, statusCode: Int, httpVersion: String = "HTTP/1.1", headers: HTTPHeaders, reasonPhrase: String? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.fields = headers
        self.reasonPhrase = reasonPhrase
    }

    /// Creates a response, as Foundation's initializer does.
    ///
    /// - Parameters:
    ///   - url:          The URL the response answers.
    ///   - statusCode:   The status code; must be in `100...999`.
    ///   - httpVersion:  The version, for example `HTTP/1.1`; `nil` means `HTTP/1.1`.
    ///   - headerFields: The header fields; dictionaries have no order, so they are sorted by name. `nil` means none.
    /// - Returns: `nil` if `statusCode` is not a three-digit code.
    public convenience init?(url: URL, statusCode: Int, httpVersion: String?, headerFields: [String: String]?) {
        guard (100...999).contains(statusCode) else { return nil }
        self.init(
            url: url,
            statusCode: statusCode,
            httpVersion: httpVersion ?? "HTTP/1.1",
            headers: headerFields.map(HTTPHeaders.init) ?? HTTPHeaders()
        )
    }

    /// The header fields as Foundation presents them: names as received, values of repeated names
    /// joined with `, ` (RFC 9110 §5.3).
    ///
    /// Keys are `String`s, so `allHeaderFields["Content-Type"] as? String` works, but the lookup is
    /// case-sensitive. Prefer ``value(forHTTPHeaderField:)`` or ``headers``, which ignore case.
    public var allHeaderFields: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        var firstSpelling: [String: String] = [:]
        for field in fields {
            let folded = field.name.lowercased()
            if let name = firstSpelling[folded], let existing = result[name] as? String {
                result[name] = "\(existing), \(field.value)"
            } else {
                firstSpelling[folded] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    /// Returns a header field's value.
    ///
    /// - Parameter field: The field name, matched case-insensitively.
    /// - Returns: The values of every field with that name joined with `, `, or `nil` if there is none.
    public func value(forHTTPHeaderField field: String) -> String? {
        let values = fields.values(for: field)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The media type from `Content-Type`, lower-cased and without parameters, such as `application/json`.
    public var mimeType: String? {
        fields.value(for: "Content-Type").flatMap(MIMEType.init).map(\.essence)
    }

    /// The `charset` parameter of `Content-Type`, lower-cased, such as `utf-8`.
    public var textEncodingName: String? {
        fields.value(for: "Content-Type").flatMap(MIMEType.init)?.parameter("charset")?.lowercased()
    }

    /// The body length from `Content-Length`, or `-1` when it is absent or not a valid length.
    public var expectedContentLength: Int64 {
        guard let text = fields.value(for: "Content-Length"),
              let length = Int64(trimmedWhitespace(Substring(text))), length >= 0
        else { return -1 }
        return length
    }

    /// A file name for saving the body: the `Content-Disposition` `filename*` or `filename`
    /// parameter, else the URL's last path component, else the host, else `Unknown`.
    ///
    /// Directory parts are removed (`../../x` gives `x`), so the name is safe to append to a folder.
    public var suggestedFilename: String? {
        if let disposition = fields.value(for: "Content-Disposition") {
            let parameters = HeaderValueParameters.split(disposition).parameters
            let extended = parameters.first { $0.name == "filename*" }.flatMap { decodeExtendedValue($0.value) }
            let plain = parameters.first { $0.name == "filename" }?.value
            if let name = (extended ?? plain).flatMap(safeFileName) { return name }
        }
        if let last = url?.lastPathComponent, let name = safeFileName(last) { return name }
        if let host = url?.host, !host.isEmpty { return host }
        return "Unknown"
    }

    /// A short description of a status code, such as `not found` for 404.
    ///
    /// - Parameter statusCode: Any status code.
    /// - Returns: The RFC 9110 reason phrase in lower case; for unknown codes, the name of the code's
    ///   class (`informational`, `success`, `redirected`, `client error`, `server error`).
    public class func localizedString(forStatusCode statusCode: Int) -> String {
        if let phrase = reasonPhrases[statusCode] { return phrase }
        switch statusCode {
        case 100..<200: return "informational"
        case 200..<300: return "success"
        case 300..<400: return "redirected"
        case 400..<500: return "client error"
        default: return "server error"
        }
    }
}

extension HTTPURLResponse: CustomStringConvertible {
    /// The status line and URL, for example `HTTP/1.1 200 no error, https://example.com/`.
    public var description: String {
        "\(httpVersion) \(statusCode) \(HTTPURLResponse.localizedString(forStatusCode: statusCode)), "
            + (url?.absoluteString ?? "(no URL)")
    }
}

/// Decodes an RFC 8187 extended value, `charset'language'percent-encoded`, for UTF-8 and ISO-8859-1.
private func decodeExtendedValue(_ value: String) -> String? {
    let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = percentDecodedBytes(parts[2]) else { return nil }
    switch parts[0].lowercased() {
    case "utf-8": return String(validating: bytes, as: UTF8.self)
    case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
    default: return nil
    }
}

/// The last path component of `name`, or `nil` if that is empty, `.` or `..`.
private func safeFileName(_ name: String) -> String? {
    let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
    return ["", ".", ".."].contains(last) ? nil : last
}

/// RFC 9110 §15 reason phrases (plus 418, 425, 429, 431, 451 from their RFCs), lower-cased as
/// Foundation presents them.
private let reasonPhrases: [Int: String] = [
    100: "continue", 101: "switching protocols", 103: "early hints",
    200: "no error", 201: "created", 202: "accepted", 203: "non-authoritative information",
    204: "no content", 205: "reset content", 206: "partial content",
    300: "multiple choices", 301: "moved permanently", 302: "found", 303: "see other",
    304: "not modified", 305: "use proxy", 307: "temporary redirect", 308: "permanent redirect",
    400: "bad request", 401: "unauthorized", 402: "payment required", 403: "forbidden",
    404: "not found", 405: "method not allowed", 406: "not acceptable",
    407: "proxy authentication required", 408: "request timeout", 409: "conflict", 410: "gone",
    411: "length required", 412: "precondition failed", 413: "content too large",
    414: "uri too long", 415: "unsupported media type", 416: "range not satisfiable",
    417: "expectation failed", 418: "i'm a teapot", 421: "misdirected request",
    422: "unprocessable content", 425: "too early", 426: "upgrade required",
    428: "precondition required", 429: "too many requests", 431: "request header fields too large",
    451: "unavailable for legal reasons",
    500: "internal server error", 501: "not implemented", 502: "bad gateway",
    503: "service unavailable", 504: "gateway timeout", 505: "http version not supported",
]
