#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS

extension AFError {
    /// Why server trust evaluation failed (Alamofire's reasons that apply to OpenSSL).
    public enum ServerTrustFailureReason: Sendable {
        /// What an evaluation produced: the host, the trust object and the TLS module's result.
        public struct Output: Sendable {
            /// The host evaluated.
            public let host: String
            /// The server's trust object.
            public let trust: SecTrust
            /// The TLS module's verdict; `TrustResult.failure` says which check failed.
            public let result: TrustResult

            /// Creates an output.
            ///
            /// - Parameters:
            ///   - host: the host evaluated.
            ///   - trust: the server's trust object.
            ///   - result: the verdict.
            public init(_ host: String, _ trust: SecTrust, _ result: TrustResult) {
                self.host = host
                self.trust = trust
                self.result = result
            }
        }

        /// The `ServerTrustManager` requires every host to be evaluated and has no evaluator for `host`.
        case noRequiredEvaluator(host: String)
        /// A certificate pinning evaluator was given no certificates.
        case noCertificatesFound
        /// A public key pinning evaluator was given no keys.
        case noPublicKeysFound
        /// Default validation (chain to a trusted root, validity, security level) failed.
        case defaultEvaluationFailed(output: Output)
        /// The certificate does not match the host.
        case hostValidationFailed(output: Output)
        /// The revocation check failed or gave no positive answer.
        case revocationCheckFailed(output: Output, options: RevocationTrustEvaluator.Options)
        /// None of the server's certificates is one of the pinned certificates.
        case certificatePinningFailed(host: String, trust: SecTrust, pinnedCertificates: [SecCertificate], serverCertificates: [SecCertificate])
        /// None of the server's public keys is one of the pinned keys.
        case publicKeyPinningFailed(host: String, trust: SecTrust, pinnedKeys: [SecKey], serverKeys: [SecKey])
        /// A custom evaluator threw `error`.
        case customEvaluationFailed(error: any Error)

        /// The reason as a sentence.
        public var localizedDescription: String {
            switch self {
            case let .noRequiredEvaluator(host):
                "A ServerTrustEvaluating value is required for host \(host) but none was found."
            case .noCertificatesFound:
                "No certificates were found or provided for evaluation."
            case .noPublicKeysFound:
                "No public keys were found or provided for evaluation."
            case let .defaultEvaluationFailed(output):
                "Default evaluation failed for host \(output.host): \(output.result)"
            case let .hostValidationFailed(output):
                "Host validation failed for host \(output.host): \(output.result)"
            case let .revocationCheckFailed(output, _):
                "Revocation check failed for host \(output.host): \(output.result)"
            case let .certificatePinningFailed(host, _, _, _):
                "Certificate pinning failed for host \(host)."
            case let .publicKeyPinningFailed(host, _, _, _):
                "Public key pinning failed for host \(host)."
            case let .customEvaluationFailed(error):
                "Custom trust evaluation failed with error: \(error.localizedDescription)"
            }
        }

        /// The error a custom evaluator threw, or `nil`.
        public var underlyingError: (any Error)? {
            if case let .customEvaluationFailed(error) = self { return error }
            return nil
        }
    }

    /// Whether the error is `serverTrustEvaluationFailed`.
    public var isServerTrustEvaluationError: Bool {
        if case .serverTrustEvaluationFailed = self { return true }
        return false
    }
}
