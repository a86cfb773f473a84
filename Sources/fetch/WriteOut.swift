// curl's -w/--write-out: a format with %{variable}s, %header{name}s, %% and \n \r \t, written
// after each transfer; %{stderr} and %{stdout} switch where the rest goes. Names fetch does not
// know are warned about, as curl does, and print nothing. Numbers use curl 7.88's formats: times
// in seconds with six decimals, speeds in whole bytes per second, codes padded to three digits.
// The values come from the transfer and its URLSessionTaskMetrics (WriteOut+Transfer.swift).

/// Renders `-w` formats.
enum WriteOut {
    /// A response header, for `%header{}` and `%{header_json}`.
    struct Header: Equatable {
        var name: String
        var value: String
    }

    /// What a transfer exposes to `-w`.
    struct Values: Equatable {
        /// `http_code`/`response_code` (0, printed `000`, when no response arrived).
        var httpCode = 0
        /// `size_download`: body bytes.
        var sizeDownload = 0
        /// `size_header`: head bytes.
        var sizeHeader = 0
        /// `content_type`.
        var contentType = ""
        /// `exitcode`.
        var exitCode: Int32 = 0
        /// `errormsg`.
        var errorMessage = ""
        /// `url`: the URL as given.
        var url = ""
        /// `url_effective`: the last URL fetched (after `-L` redirects); ``url`` when `nil`.
        var urlEffective: String?
        /// `method`.
        var method = "GET"
        /// `num_headers`.
        var numHeaders = 0
        /// `scheme` (`HTTP`/`HTTPS`, as curl 7.88 prints it).
        var scheme = "HTTP"
        /// `http_version` (`0` without a response).
        var httpVersion = "0"
        /// `time_total` in seconds.
        var timeTotal = 0.0
        /// `time_namelookup`: from the start until the name was resolved.
        var timeNamelookup = 0.0
        /// `time_connect`: until the TCP connection was up.
        var timeConnect = 0.0
        /// `time_appconnect`: until the TLS handshake was done (0 without TLS).
        var timeAppconnect = 0.0
        /// `time_pretransfer`: until the request was about to be sent.
        var timePretransfer = 0.0
        /// `time_starttransfer`: until the first response byte.
        var timeStarttransfer = 0.0
        /// `time_redirect`: spent on redirects before the last transaction.
        var timeRedirect = 0.0
        /// `size_upload`: request body bytes sent.
        var sizeUpload = 0
        /// `size_request`: request bytes sent, head and body.
        var sizeRequest = 0
        /// `remote_ip`, `remote_port`, `local_ip`, `local_port` of the last connection.
        var remoteIP = ""
        var remotePort = 0
        var localIP = ""
        var localPort = 0
        /// `num_connects`: new connections made.
        var numConnects = 0
        /// `num_redirects`.
        var numRedirects = 0
        /// The last response's headers, in received order.
        var headers: [Header] = []
        /// `filename_effective`: the `-o` file, if any.
        var filenameEffective: String?

        /// `speed_download`: bytes per second over the whole transfer, truncated.
        var speedDownload: Int { timeTotal > 0 ? Int(Double(sizeDownload) / timeTotal) : 0 }
        /// `speed_upload`.
        var speedUpload: Int { timeTotal > 0 ? Int(Double(sizeUpload) / timeTotal) : 0 }
    }

    /// Where a piece of output goes.
    enum Stream: Equatable {
        case stdout, stderr
    }

    /// `format` with `values` substituted, as pieces per stream in order, and the variable names
    /// it did not know.
    static func renderPieces(_ format: String, _ values: Values) -> (pieces: [(Stream, String)], unknown: [String]) {
        var pieces: [(Stream, String)] = []
        var stream = Stream.stdout
        var text = ""
        var unknown: [String] = []
        var rest = Substring(format)
        func flush() {
            if !text.isEmpty { pieces.append((stream, text)) }
            text = ""
        }
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "%" {
                if rest.first == "%" {
                    text.append("%")
                    rest = rest.dropFirst()
                } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                    let name = String(rest[rest.index(after: rest.startIndex)..<close])
                    rest = rest[rest.index(after: close)...]
                    switch name {
                    case "stdout", "stderr":
                        flush()
                        stream = name == "stdout" ? .stdout : .stderr
                    default:
                        if let value = variable(name, values) { text += value } else { unknown.append(name) }
                    }
                } else if rest.hasPrefix("header{"), let close = rest.firstIndex(of: "}") {
                    let name = rest[rest.index(rest.startIndex, offsetBy: 7)..<close]
                    rest = rest[rest.index(after: close)...]
                    text += header(String(name), values)
                } else {
                    text.append("%")
                }
            } else if character == "\\", let next = rest.first, let escaped = ["n": "\n", "r": "\r", "t": "\t"][next] {
                text += escaped
                rest = rest.dropFirst()
            } else {
                text.append(character)
            }
        }
        flush()
        return (pieces, unknown)
    }

    /// `format` with `values` substituted (everything, whichever stream it was meant for), and
    /// the variable names it did not know.
    static func render(_ format: String, _ values: Values) -> (text: String, unknown: [String]) {
        let rendered = renderPieces(format, values)
        return (rendered.pieces.map(\.1).joined(), rendered.unknown)
    }

    /// `%header{name}`: every value of the header, case-insensitively, joined by `, ` (curl).
    static func header(_ name: String, _ values: Values) -> String {
        let wanted = name.lowercased()
        return values.headers.filter { $0.name.lowercased() == wanted }.map(\.value).joined(separator: ", ")
    }

    /// One variable's text, or nil for a name fetch does not know.
    static func variable(_ name: String, _ values: Values) -> String? {
        switch name {
        case "http_code", "response_code":
            let code = String(values.httpCode)
            return String(repeating: "0", count: max(0, 3 - code.count)) + code
        case "size_download": return String(values.sizeDownload)
        case "size_header": return String(values.sizeHeader)
        case "size_upload": return String(values.sizeUpload)
        case "size_request": return String(values.sizeRequest)
        case "speed_download": return String(values.speedDownload)
        case "speed_upload": return String(values.speedUpload)
        case "content_type": return values.contentType
        case "exitcode": return String(values.exitCode)
        case "errormsg": return values.errorMessage
        case "url": return values.url
        case "url_effective": return values.urlEffective ?? values.url
        case "method": return values.method
        case "num_headers": return String(values.numHeaders)
        case "num_connects": return String(values.numConnects)
        case "num_redirects": return String(values.numRedirects)
        case "scheme": return values.scheme
        case "http_version": return values.httpVersion
        case "remote_ip": return values.remoteIP
        case "remote_port": return String(values.remotePort)
        case "local_ip": return values.localIP
        case "local_port": return String(values.localPort)
        case "filename_effective": return values.filenameEffective ?? ""
        case "time_total": return seconds(values.timeTotal)
        case "time_namelookup": return seconds(values.timeNamelookup)
        case "time_connect": return seconds(values.timeConnect)
        case "time_appconnect": return seconds(values.timeAppconnect)
        case "time_pretransfer": return seconds(values.timePretransfer)
        case "time_starttransfer": return seconds(values.timeStarttransfer)
        case "time_redirect": return seconds(values.timeRedirect)
        case "header_json": return headerJSON(values)
        case "json": return json(values)
        default: return nil
        }
    }

    /// curl's `%.6f` for seconds, without Foundation's `String(format:)`.
    static func seconds(_ value: Double) -> String {
        let micros = Int((max(0, value) * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
