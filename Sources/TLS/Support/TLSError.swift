/// The error type of the TLS module: what failed, why, and OpenSSL's own reasons.
///
/// A public struct around a private enum (see STYLE.md section 5), so new kinds can be
/// added without breaking anyone's `switch`: compare ``kind`` against the static members
/// of ``Kind``. Trust failures carry a ``TrustFailure``; a caller-supplied trust evaluator
/// that threw is carried unchanged in ``evaluatorError``.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    /// The category of a ``TLSError``; compare with `==` against the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case configuration, decoding, fileAccess, trust, evaluatorRejected
            case protocolVersion, handshake, connection, closed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The configuration is invalid: a cipher string OpenSSL rejects, a key that does
        /// not match its certificate, a wrong PKCS#12 password, an unsupported option.
        public static let configuration = Kind(.configuration)
        /// Bytes given as a certificate, key, CRL, OCSP response or base64 text are malformed.
        public static let decoding = Kind(.decoding)
        /// A file or directory could not be opened or read.
        public static let fileAccess = Kind(.fileAccess)
        /// Certificate verification failed; ``TLSError/trustFailure`` says which check and why.
        public static let trust = Kind(.trust)
        /// The caller's trust evaluator threw; ``TLSError/evaluatorError`` holds what it threw.
        public static let evaluatorRejected = Kind(.evaluatorRejected)
        /// Client and server have no protocol version in common (for example a TLS 1.0-only server).
        public static let protocolVersion = Kind(.protocolVersion)
        /// Any other handshake failure: an alert from the peer, no shared cipher, bad messages.
        public static let handshake = Kind(.handshake)
        /// A failure after the handshake: a bad record MAC, a decryption failure, a peer alert.
        public static let connection = Kind(.connection)
        /// The transport ended (without close_notify) before the handshake finished.
        public static let closed = Kind(.closed)

        /// The kind's name, such as `trust`.
        public var description: String { base.rawValue }
    }

    /// What failed.
    public let kind: Kind

    /// A human-readable account of the failure; wording may change, so match on ``kind``.
    public let message: String

    /// The failed certificate check when ``kind`` is ``Kind/trust``, otherwise `nil`.
    public let trustFailure: TrustFailure?

    /// The error the caller's evaluator threw when ``kind`` is ``Kind/evaluatorRejected``, otherwise `nil`.
    public let evaluatorError: (any Error)?

    /// OpenSSL's error queue at the time of the failure, oldest first; may be empty.
    public let openSSLErrors: [OpenSSLError]

    init(
        _ kind: Kind,
        _ message: String,
        trustFailure: TrustFailure? = nil,
        evaluatorError: (any Error)? = nil,
        openSSLErrors: [OpenSSLError] = []
    ) {
        self.kind = kind
        self.message = message
        self.trustFailure = trustFailure
        self.evaluatorError = evaluatorError
        self.openSSLErrors = openSSLErrors
    }

    /// Builds an error of `kind` whose ``openSSLErrors`` are the drained queue of this thread.
    static func drainingQueue(_ kind: Kind, _ message: String) -> TLSError {
        TLSError(kind, message, openSSLErrors: OpenSSLError.drain())
    }

    /// Wraps a trust failure.
    static func trust(_ failure: TrustFailure, openSSLErrors: [OpenSSLError] = []) -> TLSError {
        TLSError(.trust, failure.description, trustFailure: failure, openSSLErrors: openSSLErrors)
    }

    /// `kind: message`, then the OpenSSL reasons when there are any.
    public var description: String {
        var text = "TLSError.\(kind): \(message)"
        if let evaluatorError { text += " [evaluator: \(evaluatorError)]" }
        if !openSSLErrors.isEmpty {
            text += " [" + openSSLErrors.map(\.description).joined(separator: "; ") + "]"
        }
        return text
    }
}
