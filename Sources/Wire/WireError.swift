/// An error raised by the Wire codec: which rule the bytes broke, where, and why.
///
/// `WireError` is a struct around a rule rather than a public enum, so new rules can be added without
/// breaking anyone's `switch`. Compare ``rule`` against the static members of ``WireError/Rule``.
/// "Need more data" is never an error: the parser reports it as ``ResponseEvent/needMoreData``.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule that was broken, named in kebab-case (`"content-length-with-transfer-encoding"`).
    public struct Rule: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The rule's stable name, as printed by `wire-decode` in its `"error"` field.
        public let rawValue: String
        /// Creates a rule from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The rule's stable name.
        public var description: String { rawValue }
    }

    /// The rule the input broke.
    public let rule: Rule
    /// A human-readable explanation, for logs and error messages.
    public let detail: String
    /// The offset of the offending byte from the start of the stream (for the serializer: of the
    /// offending field or component). `nil` when no single byte is at fault (a closed connection).
    public let offset: Int?

    /// Creates an error. Wire throws these; other modules may create them to report codec misuse.
    public init(_ rule: Rule, _ detail: String, offset: Int? = nil) {
        self.rule = rule
        self.detail = detail
        self.offset = offset
    }

    /// `"<rule> at byte <offset>: <detail>"`.
    public var description: String {
        if let offset { return "\(rule) at byte \(offset): \(detail)" }
        return "\(rule): \(detail)"
    }

    /// A copy of this error with its offset moved by `delta` (used to turn section-relative offsets
    /// into stream offsets).
    func shifted(by delta: Int) -> WireError {
        WireError(rule, detail, offset: offset.map { $0 + delta })
    }
}

extension WireError.Rule {
    // MARK: Status line (RFC 9112 §4)

    /// The status line is not `HTTP-version SP status-code [SP reason-phrase]`.
    public static let statusLine = Self(rawValue: "status-line")
    /// The version is not `HTTP/DIGIT.DIGIT`.
    public static let version = Self(rawValue: "version")
    /// The HTTP major version is not 1 (RFC 9112 §2.3).
    public static let unsupportedVersion = Self(rawValue: "unsupported-version")
    /// The status code is not exactly three digits (RFC 9112 §4).
    public static let statusCode = Self(rawValue: "status-code")
    /// The reason phrase holds a control character (RFC 9112 §4).
    public static let reasonPhrase = Self(rawValue: "reason-phrase")

    // MARK: Lines and fields (RFC 9112 §2.2, §5)

    /// A line ends in a bare LF: the CR of CRLF is missing (RFC 9112 §2.2; accepted by lenient
    /// parsers, rejected here because disagreement about line ends enables smuggling).
    public static let bareLF = Self(rawValue: "bare-lf")
    /// A CR that is not followed by LF (RFC 9112 §2.2).
    public static let bareCR = Self(rawValue: "bare-cr")
    /// A field name is empty or holds a character that is not a token character (RFC 9110 §5.1).
    public static let fieldName = Self(rawValue: "field-name")
    /// Whitespace between a field name and the colon (RFC 9112 §5.1: MUST be rejected).
    public static let whitespaceBeforeColon = Self(rawValue: "whitespace-before-colon")
    /// A field line without a colon.
    public static let missingColon = Self(rawValue: "missing-colon")
    /// A field value holds NUL, a bare CR or another control character (RFC 9110 §5.5).
    public static let fieldValue = Self(rawValue: "field-value")
    /// Whitespace before the first field line (RFC 9112 §2.2: reject or ignore; we reject).
    public static let leadingWhitespace = Self(rawValue: "leading-whitespace")
    /// A line folded with obs-fold on a field that decides framing (RFC 9112 §5.2).
    public static let foldedFramingField = Self(rawValue: "folded-framing-field")

    // MARK: Framing (RFC 9112 §6)

    /// A Content-Length value that is not a non-negative decimal number that fits in 63 bits.
    public static let contentLength = Self(rawValue: "content-length")
    /// Several Content-Length values that differ (RFC 9112 §6.3 point 5).
    public static let contentLengthMismatch = Self(rawValue: "content-length-mismatch")
    /// Both Transfer-Encoding and Content-Length (RFC 9112 §6.3 point 3: the smuggling vector).
    public static let contentLengthWithTransferEncoding = Self(rawValue: "content-length-with-transfer-encoding")
    /// A Transfer-Encoding that is empty, applies chunked twice or not last with parameters, or
    /// appears in an HTTP/1.0 response (RFC 9112 §6.1).
    public static let transferEncoding = Self(rawValue: "transfer-encoding")
    /// A chunk size that is missing, not hexadecimal, or does not fit in 63 bits.
    public static let chunkSize = Self(rawValue: "chunk-size")
    /// A chunk extension off its grammar (RFC 9112 §7.1.1): a name that is not a token, `=`
    /// without a token or quoted-string value, an unterminated quoted string, an invalid
    /// quoted-pair, or a control character.
    public static let chunkExtension = Self(rawValue: "chunk-extension")
    /// Chunk data not followed by CRLF (RFC 9112 §7.1).
    public static let chunkTerminator = Self(rawValue: "chunk-terminator")

    // MARK: Limits (see ``ParserLimits``)

    /// The status line is longer than ``ParserLimits/maxStatusLineLength``.
    public static let statusLineTooLong = Self(rawValue: "status-line-too-long")
    /// The header section is larger than ``ParserLimits/maxHeaderSectionSize``.
    public static let headerSectionTooLarge = Self(rawValue: "header-section-too-large")
    /// More field lines than ``ParserLimits/maxFieldCount``.
    public static let tooManyFields = Self(rawValue: "too-many-fields")
    /// A chunk size with more hex digits than ``ParserLimits/maxChunkSizeDigits``.
    public static let chunkSizeTooLong = Self(rawValue: "chunk-size-too-long")
    /// A chunk-size line's extensions longer than ``ParserLimits/maxChunkExtensionLength``.
    public static let chunkExtensionTooLong = Self(rawValue: "chunk-extension-too-long")
    /// The trailer section is larger than ``ParserLimits/maxTrailerSectionSize``.
    public static let trailerSectionTooLarge = Self(rawValue: "trailer-section-too-large")
    /// More interim (1xx) responses before a final one than ``ParserLimits/maxInterimResponses``.
    public static let tooManyInterimResponses = Self(rawValue: "too-many-interim-responses")
    /// A chunked body's framing outweighs its data: more than ``ParserLimits/maxChunkedOverhead``
    /// framing bytes and more than three times the data bytes (picohttpparser's guard).
    public static let chunkedOverhead = Self(rawValue: "chunked-overhead")

    // MARK: Upgrade (RFC 9110 §7.8, §15.2.2)

    /// A 101 (Switching Protocols) to a request that offered no upgrade: a server MUST NOT switch
    /// to a protocol the client did not name in `Upgrade` (RFC 9110 §7.8).
    public static let unsolicitedUpgrade = Self(rawValue: "unsolicited-upgrade")
    /// A 101 without an `Upgrade` field naming the new protocol (RFC 9110 §15.2.2: the server
    /// MUST generate one).
    public static let upgradeField = Self(rawValue: "upgrade-field")

    // MARK: Connection-level

    /// The stream ended inside a response head.
    public static let truncatedHead = Self(rawValue: "truncated-head")
    /// The stream ended before a Content-Length or chunked body was complete: never a short success.
    public static let truncatedBody = Self(rawValue: "truncated-body")
    /// The stream ended before any byte of an expected response arrived.
    public static let closedBeforeResponse = Self(rawValue: "closed-before-response")
    /// Bytes arrived when no response was expected (RFC 9112 §6.3, last paragraph): the connection
    /// is unusable.
    public static let unsolicitedData = Self(rawValue: "unsolicited-data")

    // MARK: Serializer

    /// A method that is not a token (RFC 9110 §9.1).
    public static let requestMethod = Self(rawValue: "request-method")
    /// A request target holding whitespace, a control character or a non-ASCII byte.
    public static let requestTarget = Self(rawValue: "request-target")
    /// An outgoing field name that is not a token (header injection guard).
    public static let requestFieldName = Self(rawValue: "request-field-name")
    /// An outgoing field value holding CR, LF, NUL or another control character (header injection guard).
    public static let requestFieldValue = Self(rawValue: "request-field-value")
    /// Content-Length, Transfer-Encoding or Host among the caller's fields: the serializer writes
    /// those itself from ``RequestHead/framing`` and ``RequestHead/authority``.
    public static let requestFramingField = Self(rawValue: "request-framing-field")
}
