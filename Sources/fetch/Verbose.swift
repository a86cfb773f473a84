// -v in curl 7.88's shape, on standard error, from the finished request's metrics:
//
//   *   Trying 127.0.0.1:8080...
//   * Connected to host (127.0.0.1) port 8080 (#0)
//   * SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384        (https)
//   > GET /path HTTP/1.1␍                                          the head as written,
//   > Host: host:8080␍                                             CR LF kept as curl does
//   > ␍
//   } [3 bytes data]                                               body sent
//   < HTTP/1.1 200 OK␍                                             the server's own reason
//   < ␍
//   { [185 bytes data]                                             body received
//   * Connection #0 to host host left intact                       or "Closing connection 0"
//
// The data lines appear when standard output is not a terminal, as curl's. Differences from curl
// by design: the request fields are in Lariat's wire order (framing fields last), one data line
// per direction (curl writes one per read), and no TLS handshake message trace.

import Client
import FoundationEssentials
import Transport
#if canImport(Glibc)
import Glibc
#endif

enum Verbose {
    /// Writes the -v report of a finished request.
    ///
    /// - Parameters:
    ///   - session: The session that sent it (for the head as written).
    ///   - response: The request's response.
    ///   - bodyCount: The body bytes received.
    static func report(session: Session, response: AFDataResponse<Data>, bodyCount: Int, uploadBody: RequestBody? = nil) {
        let text = text(session: session, response: response, bodyCount: bodyCount, dataLines: isatty(1) != 1, uploadBody: uploadBody)
        _ = writeAll(2, Data(text.utf8))
    }

    /// The report's text.
    /// - Parameter uploadBody: An upload's file or stream body (it decides the framing fields shown).
    static func text(session: Session, response: AFDataResponse<Data>, bodyCount: Int, dataLines: Bool, uploadBody: RequestBody? = nil) -> String {
        var out = ""
        let transaction = response.metrics?.transactionMetrics.last
        // The last transaction's request: a response's `request` is the request made, across redirects.
        let lastRequest = transaction?.request ?? response.request
        let host = lastRequest?.url?.host(percentEncoded: false) ?? ""
        if let transaction, let ip = transaction.remoteAddress, let port = transaction.remotePort {
            if transaction.isReusedConnection {
                out += "* Re-using existing connection #0 with host \(host)\n"
            } else {
                // curl's --connect-to lines, when a reroute applied.
                if let url = lastRequest?.url {
                    let urlPort = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
                    let target = session.resolver.connectionTarget(host: host, port: urlPort)
                    if target.host != host { out += "* Connecting to hostname: \(target.host)\n" }
                    if target.port != urlPort { out += "* Connecting to port: \(target.port)\n" }
                }
                out += "*   Trying \(ip.contains(":") ? "[\(ip)]" : ip):\(port)...\n"
                out += "* Connected to \(host) (\(ip)) port \(port) (#0)\n"
            }
            if let version = transaction.negotiatedTLSProtocolVersion {
                out += "* SSL connection using \(version) / \(transaction.negotiatedTLSCipherSuiteName ?? "")\n"
            }
        }
        if transaction?.requestStartDate != nil, let request = lastRequest, let head = session.serializedRequestHead(for: request, uploadBody: uploadBody) {
            var lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
            lines.removeLast()  // after the blank line's CR LF
            for line in lines { out += "> \(line)\r\n" }
            if dataLines, let sent = transaction?.countOfRequestBodyBytesSent, sent > 0 { out += "} [\(sent) bytes data]\n" }
        }
        if let http = response.response {
            out += "< \(http.httpVersion) \(http.statusCode) \(http.reasonPhrase ?? "")\r\n"
            for header in http.headers { out += "< \(header.name): \(header.value)\r\n" }
            out += "< \r\n"
            if dataLines && bodyCount > 0 { out += "{ [\(bodyCount) bytes data]\n" }
        }
        if transaction != nil {
            let closes = response.response.map { http in
                http.httpVersion == "HTTP/1.0" || http.headers.value(for: "Connection")?.lowercased() == "close"
            } ?? true
            out += closes ? "* Closing connection 0\n" : "* Connection #0 to host \(host) left intact\n"
        }
        return out
    }
}
