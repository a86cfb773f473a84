// How a session's responses are read beyond Lariat's strict defaults: the package-only switches
// behind fetch's `--http0.9`, `--ignore-content-length`, `--raw` and `--tr-encoding`. Alamofire
// has no public name for any of them, so they stay `package`: `import Client` users see none.
// Each one is off by default and applies to the requests of the session that set it.
import Wire

/// Relaxations of how responses are read, and the transfer decoding fetch asks for.
package struct ResponseReading: Sendable, Equatable {
    /// A response without a status line is an HTTP/0.9 body (curl's `--http0.9`).
    package var allowsHTTP09 = false
    /// Content-Length is ignored: the body ends at the close unless chunked (curl's
    /// `--ignore-content-length`).
    package var ignoresContentLength = false
    /// Bodies are delivered as received: chunked framing kept, no transfer or content decoding
    /// (curl's `--raw`). The framing is still parsed to find the response's end.
    package var keepsRawBody = false
    /// A `gzip` or `deflate` transfer coding under chunked (`Transfer-Encoding: gzip, chunked`)
    /// is decoded, within the session's ``ContentDecoding`` limits (curl's `--tr-encoding`).
    /// Off, such a body is delivered with the coding still applied.
    package var decodesTransferCoding = false

    package init() {}

    /// The parser's options for a request of this session.
    var parsingOptions: ResponseParsingOptions {
        ResponseParsingOptions(allowsHTTP09: allowsHTTP09, ignoresContentLength: ignoresContentLength, keepsChunkedFraming: keepsRawBody)
    }
}
