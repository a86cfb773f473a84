// curl's four options that change how a response is framed and decoded, and what each does to
// the session and the request (curl-7_88_1 lib/http.c, lib/http_chunks.c, lib/content_encoding.c):
//   --http0.9                a response without a status line is a body (status 000), not
//                            "(1) Received HTTP/0.9 when not allowed"
//   --ignore-content-length  Content-Length is not read: the body ends at the close (or with
//                            chunked's last chunk); -i still writes the field
//   --raw                    no transfer or content decoding: chunked framing, trailers and
//                            compressed bytes are written as received (the framing is still
//                            parsed to find the end)
//   --tr-encoding            `TE: gzip` with `Connection: TE` (merged into the caller's own
//                            Connection field; none of it when the caller set TE), and a
//                            `Transfer-Encoding: gzip, chunked` body decoded
// Each is off by default and applies to its `--next` group only, as curl's.
import Client

/// The four options' values (one field of ``FetchExtras``).
struct ResponseFraming: Equatable {
    /// `--http0.9`.
    var http09 = false
    /// `--ignore-content-length`.
    var ignoreContentLength = false
    /// `--raw`.
    var raw = false
    /// `--tr-encoding`.
    var trEncoding = false

    /// The options, as OptionTable specs.
    static let options: [OptionSpec] = [
        OptionTable.flag("http0.9") { $0.extras.framing.http09 = $1 },
        OptionTable.flag("ignore-content-length") { $0.extras.framing.ignoreContentLength = $1 },
        OptionTable.flag("raw") { $0.extras.framing.raw = $1 },
        OptionTable.flag("tr-encoding") { $0.extras.framing.trEncoding = $1 },
    ]

    /// What the session does with every response of the run.
    var reading: ResponseReading {
        var reading = ResponseReading()
        reading.allowsHTTP09 = http09
        reading.ignoresContentLength = ignoreContentLength
        reading.keepsRawBody = raw
        reading.decodesTransferCoding = trEncoding && !raw
        return reading
    }

    /// `headers` with `--tr-encoding`'s fields, as curl's `Curl_transferencode` adds them: none
    /// when a `-H` line names TE (even to remove it); otherwise `TE` joins the request's own
    /// Connection value (`Connection: close, TE`) or is the whole of a new one, then `TE: gzip`.
    func addingTE(to headers: [HeaderField], headerLines: [String]) -> [HeaderField] {
        guard trEncoding else { return headers }
        let namesTE = headerLines.contains { line in
            let end = line.firstIndex(where: { $0 == ":" || $0 == ";" }) ?? line.endIndex
            return line[..<end].lowercased() == "te"
        }
        guard !namesTE else { return headers }
        var headers = headers
        if let index = headers.firstIndex(where: { $0.name.lowercased() == "connection" }) {
            let value = headers.remove(at: index).value
            headers.append(HeaderField(name: "Connection", value: value.isEmpty ? "TE" : value + ", TE"))
        } else {
            headers.append(HeaderField(name: "Connection", value: "TE"))
        }
        headers.append(HeaderField(name: "TE", value: "gzip"))
        return headers
    }
}
