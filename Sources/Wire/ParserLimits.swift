/// Upper bounds on everything a server controls in a response's framing.
///
/// Exceeding a limit is a typed ``WireError`` naming the limit; nothing is ever truncated silently.
/// Body sizes are not limited here: bodies stream through the parser without being buffered, and the
/// client decides how much it keeps.
public struct ParserLimits: Sendable, Hashable {
    /// The longest status line, CRLF included. 8 KiB by default (nginx's `large_client_header_buffers`).
    public var maxStatusLineLength: Int
    /// The largest header section (status line, fields and the final CRLF). 256 KiB by default:
    /// Chrome's bound (`kMaxHeaderBufSize`, net/http/http_stream_parser.h), under curl 7.88's
    /// 300 KiB (`MAX_HTTP_RESP_HEADER_SIZE`; measured: 307,222 bytes refused, 220 KB accepted).
    public var maxHeaderSectionSize: Int
    /// The most field lines in a header or trailer section. 16,384 by default, so the byte limit
    /// decides for any section whose lines average 16 bytes or more: curl 7.88.1 (measured:
    /// 10,002 fields accepted), Chrome and Go have no count limit of their own, and nginx as a proxy
    /// only a byte limit; 128 (the old default) refused real responses with 120 `Set-Cookie`
    /// fields. Each field costs about 40 bytes here, so the default bounds that at 640 KiB.
    public var maxFieldCount: Int
    /// The most hexadecimal digits in a chunk size, leading zeros included. 16 by default; values
    /// that do not fit in 63 bits are rejected regardless.
    public var maxChunkSizeDigits: Int
    /// The longest chunk extension text on one chunk-size line. 4 KiB by default.
    public var maxChunkExtensionLength: Int
    /// The largest trailer section, final CRLF included. 16 KiB by default.
    public var maxTrailerSectionSize: Int
    /// The most interim (1xx) responses before a final response. 16 by default.
    public var maxInterimResponses: Int
    /// The framing bytes a chunked body may spend before its framing must stay under three
    /// quarters of what was read: past this many bytes of size lines, extensions and CRLFs, a body
    /// whose framing exceeds three times its data is refused
    /// (``WireError/Rule/chunkedOverhead``). 100 KiB by default, picohttpparser's bound; it stops
    /// a server from keeping a client busy with endless one-byte chunks and long extensions.
    public var maxChunkedOverhead: Int

    /// Creates limits; every parameter defaults to the value documented on its property.
    public init(
        maxStatusLineLength: Int = 8 * 1024,
        maxHeaderSectionSize: Int = 256 * 1024,
        maxFieldCount: Int = 16_384,
        maxChunkSizeDigits: Int = 16,
        maxChunkExtensionLength: Int = 4 * 1024,
        maxTrailerSectionSize: Int = 16 * 1024,
        maxInterimResponses: Int = 16,
        maxChunkedOverhead: Int = 100 * 1024
    ) {
        self.maxStatusLineLength = maxStatusLineLength
        self.maxHeaderSectionSize = maxHeaderSectionSize
        self.maxFieldCount = maxFieldCount
        self.maxChunkSizeDigits = maxChunkSizeDigits
        self.maxChunkExtensionLength = maxChunkExtensionLength
        self.maxTrailerSectionSize = maxTrailerSectionSize
        self.maxInterimResponses = maxInterimResponses
        self.maxChunkedOverhead = maxChunkedOverhead
    }

    /// The documented defaults.
    public static let `default` = ParserLimits()
}
