// curl's -w/--write-out: a format with %{variable}s, %% and \n \r \t, written after each
// transfer. The variables a script checks are here; others are warned about, as curl does with
// names it does not know, and print nothing.

/// Renders `-w` formats.
enum WriteOut {
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
    }

    /// `format` with `values` substituted, and the variable names it did not know.
    static func render(_ format: String, _ values: Values) -> (text: String, unknown: [String]) {
        var text = ""
        var unknown: [String] = []
        var rest = Substring(format)
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "%" {
                if rest.first == "%" {
                    text.append("%")
                    rest = rest.dropFirst()
                } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                    let name = String(rest[rest.index(after: rest.startIndex)..<close])
                    rest = rest[rest.index(after: close)...]
                    if let value = variable(name, values) { text += value } else { unknown.append(name) }
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
        return (text, unknown)
    }

    /// One variable's text, or nil for a name fetch does not know.
    static func variable(_ name: String, _ values: Values) -> String? {
        switch name {
        case "http_code", "response_code":
            let code = String(values.httpCode)
            return String(repeating: "0", count: max(0, 3 - code.count)) + code
        case "size_download": return String(values.sizeDownload)
        case "size_header": return String(values.sizeHeader)
        case "content_type": return values.contentType
        case "exitcode": return String(values.exitCode)
        case "errormsg": return values.errorMessage
        case "url": return values.url
        case "url_effective": return values.urlEffective ?? values.url
        case "method": return values.method
        case "num_headers": return String(values.numHeaders)
        case "scheme": return values.scheme
        case "http_version": return values.httpVersion
        case "time_total":
            let micros = Int((values.timeTotal * 1_000_000).rounded())
            let fraction = String(micros % 1_000_000)
            return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        default: return nil
        }
    }
}
