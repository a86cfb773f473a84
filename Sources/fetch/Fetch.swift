// fetch: a small curl-compatible command-line client built on Lariat's Alamofire API, like any
// user's program. Options are spelled as curl spells them so scripts can switch.
//
//   fetch URL [-X METHOD] [-H 'Name: value']... [-d DATA | --data-binary @FILE] [-o FILE] [-i] [-v]
//         [--max-time S] [--connect-timeout S] [-f] [--resolve HOST:PORT:ADDR]... [TLS options]
//   (TLS options: FetchOptions.usage and FetchTLS.swift.)
//
// Exit status: 0 on success; 22 for HTTP errors with -f (as curl); 3 malformed URL or host name,
// 6 unknown host, 7 connection refused, 28 timeout (--connect-timeout while connecting,
// --max-time for the whole transfer), 8 malformed response, 35 TLS handshake, 56 connection lost,
// 58 unusable client certificate, 59 cipher list, 60 untrusted certificate, 77 CA file, 82 CRL
// file, 90 pinned key mismatch, 91 --cert-status failure, 49 bad --resolve, 1 otherwise (curl's).

import Client


import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
#if canImport(Glibc)
import Glibc
#endif

@main
struct Fetch {
    static func main() async {
        let options: FetchOptions
        do {
            options = try FetchOptions(Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail("fetch: \(error)\n\(FetchOptions.usage)", status: 2)
        }
        let configuration = URLSessionConfiguration.af.default
        if let maxTime = options.maxTime {
            // curl's --max-time bounds the whole transfer, connecting included: the total
            // (resource) deadline. curl has no idle timeout; a silence cannot outlast the total,
            // so the idle limit is raised to match rather than left at 60 s.
            configuration.timeoutIntervalForResource = maxTime
            configuration.timeoutIntervalForRequest = maxTime
        }
        if let connectTimeout = options.connectTimeout { configuration.timeoutIntervalForConnect = connectTimeout }
        if options.insecure { printError("fetch: warning: -k/--insecure: the server's certificate is NOT verified") }
        let trustManager: ServerTrustManager?
        do {
            trustManager = try options.serverTrustManager()
        } catch {
            fail("fetch: --pinnedpubkey: \(error)", status: 2)
        }
        let tlsConfiguration: TLSConfiguration
        let resolver: HostResolver
        do throws(FetchSetupError) {
            // curl reads certificate files only for TLS transfers; so does fetch.
            tlsConfiguration = options.url.lowercased().hasPrefix("https:") ? try options.tlsConfiguration() : TLSConfiguration()
            resolver = try options.hostResolver()
        } catch {
            fail("fetch: \(error)", status: error.status)
        }
        // One transfer needs one loop: a second loop thread is only start-up time (it is created
        // and scheduled before the first byte is sent; cold start is measured against curl).
        let session = Session(
            configuration: configuration, serverTrustManager: trustManager, tlsConfiguration: tlsConfiguration,
            eventLoopGroup: EventLoopGroup(numberOfThreads: 1), resolver: resolver)
        var request: URLRequest
        do {
            request = try URLRequest(url: options.url, method: HTTPMethod(rawValue: options.method), headers: options.headers)
        } catch {
            fail("fetch: invalid URL \(options.url)", status: 3)
        }
        request.httpBody = options.body
        let started = Date()
        let dataRequest = session.request(request)
        let response = await dataRequest.serializingData(emptyResponseCodes: Set(100...599), emptyRequestMethods: Set([.head, .get, .post, .put, .delete, .patch, .options])).response

        if options.verbose { printVerbose(request: response.request, response: response, started: started) }
        switch response.result {
        case .failure(let error):
            fail("fetch: \(describe(error))", status: exitStatus(for: error, certificateStatusRequired: options.requireCertificateStatus))
        case .success(let body):
            guard let http = response.response else { fail("fetch: no response", status: 1) }
            if options.failOnHTTPError && http.statusCode >= 400 {
                fail("fetch: the requested URL returned error: \(http.statusCode)", status: 22)
            }
            var output = Data()
            if options.includeHeaders {
                var head = "\(http.httpVersion) \(http.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: http.statusCode).capitalized)\r\n"
                for header in http.headers { head += "\(header.name): \(header.value)\r\n" }
                output.append(contentsOf: Array((head + "\r\n").utf8))
            }
            output.append(body)
            if let path = options.outputPath {
                guard writeFile(path, output) else { fail("fetch: cannot write \(path)", status: 23) }
            } else {
                writeAll(1, output)
            }
        }
    }

    static func describe(_ error: AFError) -> String {
        if case .sessionTaskFailed(let underlying) = error, let urlError = underlying as? URLError {
            if let transport = urlError.underlyingError as? TransportError { return transport.description }
            return "\(urlError.code)"
        }
        return error.errorDescription ?? "\(error)"
    }

    /// curl's exit status for a failed transfer.
    ///
    /// - Parameters:
    ///   - error: the request's error.
    ///   - certificateStatusRequired: `--cert-status` was given: a failure found by the stapled
    ///     OCSP check is 91 (CURLE_SSL_INVALIDCERTSTATUS) rather than 60.
    static func exitStatus(for error: AFError, certificateStatusRequired: Bool) -> Int32 {
        if case .invalidURL = error { return 3 }  // curl: CURLE_URL_MALFORMAT (a host that fails validation)
        if certificateStatusRequired, trustFailure(in: error)?.origin == .stapledOCSP { return 91 }
        if case .serverTrustEvaluationFailed(let reason) = error {
            if case .publicKeyPinningFailed = reason { return 90 }  // curl: CURLE_SSL_PINNEDPUBKEYNOTMATCH
            return 60
        }
        guard case .sessionTaskFailed(let underlying) = error, let code = (underlying as? URLError)?.code else { return 1 }
        switch code {
        case .cannotFindHost: return 6
        case .cannotConnectToHost: return 7
        case .badServerResponse: return 8
        case .timedOut: return 28
        case .secureConnectionFailed: return 35
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate: return 60  // curl: peer verification failed
        case .networkConnectionLost: return 56
        default: return 1
        }
    }

    /// The TLS module's trust failure behind `error`: from an evaluator's output, or from the
    /// default evaluation carried under the URLError.
    static func trustFailure(in error: AFError) -> TrustFailure? {
        if case .serverTrustEvaluationFailed(let reason) = error {
            switch reason {
            case .defaultEvaluationFailed(let output), .hostValidationFailed(let output), .revocationCheckFailed(let output, _):
                return output.result.failure
            default:
                return nil
            }
        }
        guard case .sessionTaskFailed(let underlying) = error,
              let transport = (underlying as? URLError)?.underlyingError as? TransportError else { return nil }
        return (transport.underlying as? TLSError)?.trustFailure
    }

    static func printVerbose(request: URLRequest?, response: AFDataResponse<Data>, started: Date) {
        var lines: [String] = []
        if let request, let url = request.url {
            lines.append("> \(request.httpMethod ?? "GET") \(url.absoluteString)")
            for header in request.headers { lines.append("> \(header.name): \(header.value)") }
        }
        if let http = response.response {
            lines.append("< \(http.httpVersion) \(http.statusCode)")
            for header in http.headers { lines.append("< \(header.name): \(header.value)") }
        }
        if let t = response.metrics?.transactionMetrics.first {
            func ms(_ date: Date?) -> String {
                guard let date else { return "-" }
                return String(Int((date.timeIntervalSince(started) * 1000).rounded())) + " ms"
            }
            lines.append("* connected \(t.remoteAddress ?? "?"):\(t.remotePort.map(String.init) ?? "?") reused=\(t.isReusedConnection)")
            lines.append("* timings: connect \(ms(t.connectEndDate)), request sent \(ms(t.requestEndDate)), first byte \(ms(t.responseStartDate)), done \(ms(t.responseEndDate))")
        }
        printError(lines.joined(separator: "\n"))
    }
}

/// Writes to standard error.
func printError(_ message: String) {
    writeAll(2, Data((message + "\n").utf8))
}

/// Prints `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    printError(message)
    exit(status)
}

/// Writes every byte of `data` to `fd`.
func writeAll(_ fd: Int32, _ data: Data) {
    data.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

/// Writes `data` to a new file at `path`.
func writeFile(_ path: String, _ data: Data) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    writeAll(fd, data)
    return true
}
