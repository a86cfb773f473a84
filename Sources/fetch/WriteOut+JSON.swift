// -w's two JSON variables, in curl 7.88's shape:
//   %{header_json}: one member per header name (lower case, first-seen order), each an array of
//                   its values, one member per line: {"a":["1"],\n"b":["2"]\n}
//   %{json}:        every variable fetch knows, keys sorted as curl sorts them, numbers bare,
//                   empty optional strings as null, curl_version last.

extension WriteOut {
    /// `%{header_json}`.
    static func headerJSON(_ values: Values) -> String {
        var order: [String] = []
        var byName: [String: [String]] = [:]
        for header in values.headers {
            let name = header.name.lowercased()
            if byName[name] == nil { order.append(name) }
            byName[name, default: []].append(header.value)
        }
        let members = order.map { name in
            "\(quoted(name)):[" + byName[name, default: []].map(quoted).joined(separator: ",") + "]"
        }
        return "{" + members.joined(separator: ",\n") + "\n}"
    }

    /// `%{json}`.
    static func json(_ values: Values) -> String {
        func string(_ text: String) -> String { quoted(text) }
        func optional(_ text: String?) -> String { text.map(quoted) ?? "null" }
        let members: [(String, String)] = [
            ("certs", string("")),
            ("content_type", values.contentType.isEmpty ? "null" : string(values.contentType)),
            ("errormsg", values.errorMessage.isEmpty ? "null" : string(values.errorMessage)),
            ("exitcode", String(values.exitCode)),
            ("filename_effective", optional(values.filenameEffective)),
            ("ftp_entry_path", "null"),
            ("http_code", String(values.httpCode)),
            ("http_connect", "0"),
            ("http_version", string(values.httpVersion)),
            ("local_ip", string(values.localIP)),
            ("local_port", String(values.localPort)),
            ("method", string(values.method)),
            ("num_certs", "0"),
            ("num_connects", String(values.numConnects)),
            ("num_headers", String(values.numHeaders)),
            ("num_redirects", String(values.numRedirects)),
            ("proxy_ssl_verify_result", "0"),
            ("redirect_url", "null"),
            ("referer", "null"),
            ("remote_ip", string(values.remoteIP)),
            ("remote_port", String(values.remotePort)),
            ("response_code", String(values.httpCode)),
            ("scheme", string(values.scheme)),
            ("size_download", String(values.sizeDownload)),
            ("size_header", String(values.sizeHeader)),
            ("size_request", String(values.sizeRequest)),
            ("size_upload", String(values.sizeUpload)),
            ("speed_download", String(values.speedDownload)),
            ("speed_upload", String(values.speedUpload)),
            ("ssl_verify_result", "0"),
            ("time_appconnect", seconds(values.timeAppconnect)),
            ("time_connect", seconds(values.timeConnect)),
            ("time_namelookup", seconds(values.timeNamelookup)),
            ("time_pretransfer", seconds(values.timePretransfer)),
            ("time_redirect", seconds(values.timeRedirect)),
            ("time_starttransfer", seconds(values.timeStarttransfer)),
            ("time_total", seconds(values.timeTotal)),
            ("url", string(values.url)),
            ("url_effective", string(values.url)),
            ("urlnum", "0"),
            ("curl_version", string("fetch/\(FetchVersion.number)")),
        ]
        return "{" + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
