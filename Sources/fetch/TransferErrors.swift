// curl's exit status and one-line message for a failed transfer, and -v's trace.
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
import Transport

/// Maps Client errors to curl's statuses and messages.
enum TransferErrors {
    /// curl's message for `error` (status already mapped), e.g. `Failed to connect to
    /// 127.0.0.1 port 1: Connection refused`.
    static func message(for error: AFError, status: Int32, url: String) -> String {
        if let proxyMessage = proxyMessage(for: error) { return proxyMessage }
        let (host, port) = hostAndPort(url)
        if let decoding = contentDecodingError(in: error) {
            // curl 7.88's 61 wording with zlib's reason; a bomb, which curl would write whole,
            // is stopped by Client's ContentDecoding limits and reported as a size limit.
            guard decoding.kind == .expansionLimitExceeded else { return "Error while processing content unencoding: \(decoding.detail)" }
            return "Maximum file size exceeded: the \(decoding.coding) body decodes to \(decoding.detail), "
                + "stopped as a decompression bomb after \(decoding.decodedCount) bytes"
        }
        switch status {
        case 6: return "Could not resolve host: \(host)"
        case 7: return "Failed to connect to \(host) port \(port): Connection refused"
        case 28: return "Operation timed out"
        default: return describe(error)
        }
    }

    /// The host (without brackets) and port of a normalized URL.
    static func hostAndPort(_ url: String) -> (String, Int) {
        let https = url.lowercased().hasPrefix("https:")
        var rest = Substring(url)
        if let scheme = rest.firstOccurrence(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        var host = authority
        var port = https ? 443 : 80
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":"), let value = Int(after.dropFirst()) { port = value }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            if let value = Int(authority[authority.index(after: colon)...]) { port = value }
        }
        return (String(host), port)
    }

    /// The error as one line.
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
        if let status = proxyExitStatus(for: error) { return status }
        if certificateStatusRequired, trustFailure(in: error)?.origin == .stapledOCSP { return 91 }
        if case .serverTrustEvaluationFailed(let reason) = error {
            if case .publicKeyPinningFailed = reason { return 90 }  // curl: CURLE_SSL_PINNEDPUBKEYNOTMATCH
            return 60
        }
        if let decoding = contentDecodingError(in: error) { return decoding.kind == .expansionLimitExceeded ? 63 : 61 }
        guard case .sessionTaskFailed(let underlying) = error, let code = (underlying as? URLError)?.code else { return 1 }
        switch code {
        case .cannotFindHost: return 6
        case .cannotConnectToHost: return 7
        case .badServerResponse: return 8
        case .timedOut: return 28
        case .secureConnectionFailed: return 35
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate: return 60  // curl: peer verification failed
        case .networkConnectionLost: return 56
        case .httpTooManyRedirects: return 47  // curl: CURLE_TOO_MANY_REDIRECTS
        default: return 1
        }
    }

    /// The content-decoding failure behind `error` (`--compressed`): corrupt or truncated
    /// coded bytes (curl's 61), or a decoded body past Client's limits (63).
    static func contentDecodingError(in error: AFError) -> ContentDecodingError? {
        guard case .sessionTaskFailed(let underlying) = error else { return nil }
        return (underlying as? URLError)?.underlyingError as? ContentDecodingError
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
}
