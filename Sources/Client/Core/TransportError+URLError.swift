// How a transport failure reads as a URLError and an AFError: Apple's codes for each kind, the
// certificate codes for trust failures, and an evaluator's own AFError carried through the
// handshake. Client's side of the boundary; the proxy codes are in TransportError+Proxy.swift.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS
import Transport

extension TransportError {
    /// The `URLError.Code` Apple's URLSession uses for this kind of failure, so RetryPolicy and
    /// user code branching on codes work unchanged.
    var urlErrorCode: URLError.Code {
        switch kind {
        case .connectionRefused: return .cannotConnectToHost
        case .hostNotFound: return .cannotFindHost
        case .timedOut: return .timedOut
        case .connectionLost: return .networkConnectionLost
        case .malformedResponse: return .badServerResponse
        case .tls: return tlsURLErrorCode
        case .invalidRequest: return .badURL
        case .unsupportedURL: return .unsupportedURL
        case .requestBodyUnreadable: return .requestBodyStreamExhausted
        case .cancelled: return .cancelled
        case .unreachable: return .notConnectedToInternet
        case .proxy: return proxyURLErrorCode
        default: return .cannotConnectToHost
        }
    }
}

extension TransportError {
    /// The `AFError.serverTrustEvaluationFailed` a ``ServerTrustManager`` evaluator threw during
    /// the handshake, carried as `TLSError.evaluatorError`; `nil` for any other failure.
    var serverTrustEvaluationError: AFError? {
        guard kind == .tls, let tls = underlying as? TLSError, tls.kind == .evaluatorRejected,
              let error = tls.evaluatorError as? AFError, error.isServerTrustEvaluationError else { return nil }
        return error
    }

    /// Apple's certificate codes for default-evaluation failures, `.secureConnectionFailed` otherwise.
    var tlsURLErrorCode: URLError.Code {
        guard let failure = (underlying as? TLSError)?.trustFailure else { return .secureConnectionFailed }
        switch failure.reason {
        case .expired, .notYetValid: return .serverCertificateHasBadDate
        case .untrustedRoot, .selfSigned, .incompleteChain: return .serverCertificateHasUnknownRoot
        default: return .serverCertificateUntrusted
        }
    }
}
