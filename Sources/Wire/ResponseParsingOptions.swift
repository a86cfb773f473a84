// Opt-in relaxations of how one response is read, given with the request it answers
// (`ResponseParser.expectResponse(to:offeringUpgrade:options:)`). Each is off by default and
// applies to that one response only, so a connection's next response is read strictly again.
// They exist for curl's `--http0.9`, `--ignore-content-length` and `--raw` (fetch), which ask for
// exactly these readings; none of them makes framing ambiguous: a response read with them ends
// where the parser says, and one without a trustworthy length ends the connection.

/// Relaxations of the parser's strict reading of one response; all off by default
/// (``ResponseParsingOptions/strict``).
public struct ResponseParsingOptions: Sendable, Hashable {
    /// Whether a response that does not start with `HTTP/` (compared without regard to case, as
    /// curl compares it) is read as an HTTP/0.9 response: no status line and no fields, the whole
    /// stream is the body and the connection's close ends it. The head then has version 0.9,
    /// status 0 and framing ``BodyFraming/untilClose``. Off, such a response is
    /// ``WireError/Rule/version``. RFC 9110 §2.5 and RFC 9112 §2.3 leave HTTP/0.9 behind: a
    /// server's error page or a non-HTTP service would be read as a successful body.
    public var allowsHTTP09: Bool
    /// Whether `Content-Length` fields are ignored, unchecked: the body is chunked if the
    /// response says so, otherwise it ends when the connection closes. A response that carried a
    /// Content-Length next to chunked is then not kept alive (an intermediary may have framed it
    /// by the length; RFC 9112 §6.3 point 3). Off, a Content-Length frames the body (RFC 9112
    /// §6.3 point 5) and a conflicting or invalid one is an error.
    public var ignoresContentLength: Bool
    /// Whether a chunked body's ``ResponseEvent/body(_:)`` ranges carry its bytes as received:
    /// size lines, extensions, CRLFs, the last chunk and the trailer section included (the
    /// `.end` then has no trailers). The framing is still parsed and checked, so the response
    /// ends where it would otherwise (RFC 9112 §7.1). Off, the ranges hold the chunk data only.
    public var keepsChunkedFraming: Bool

    /// Creates options; every relaxation is off unless given.
    public init(allowsHTTP09: Bool = false, ignoresContentLength: Bool = false, keepsChunkedFraming: Bool = false) {
        self.allowsHTTP09 = allowsHTTP09
        self.ignoresContentLength = ignoresContentLength
        self.keepsChunkedFraming = keepsChunkedFraming
    }

    /// No relaxation: the parser's strict defaults.
    public static let strict = ResponseParsingOptions()
}

/// An outstanding request as the parser remembers it: how its method frames the response, and
/// the relaxations asked for its response.
struct Expectation: Sendable {
    var kind: ResponseKind
    var options: ResponseParsingOptions
}

/// The HTTP/0.9 check: whether the first bytes present (up to five) already differ from
/// `HTTP/`, compared without regard to case as curl 7.88's `checkhttpprefix` does. Fewer than
/// five matching bytes are not a verdict: the caller waits for more.
enum HTTP09 {
    private static let httpSlash: StaticString = "HTTP/"

    /// `true`: not HTTP/1.x; `false`: five matching bytes; `nil`: a matching prefix, wait.
    static func differs(_ p: UnsafeRawPointer, count: Int) -> Bool? {
        let expected = httpSlash.utf8Start
        var i = 0
        while i < 5 && i < count {
            var b = Scan.byte(p, i)
            if b >= 0x61 && b <= 0x7A { b -= 0x20 }
            if b != expected[i] { return true }
            i += 1
        }
        return i == 5 ? false : nil
    }

    /// The head of an HTTP/0.9 response: version 0.9, status 0, no fields, close-delimited.
    static let head = ResponseHead(
        version: HTTPVersion(major: 0, minor: 9), status: 0, reason: 0..<0, fields: HeaderFields(),
        framing: .untilClose, keepAlive: false)
}
