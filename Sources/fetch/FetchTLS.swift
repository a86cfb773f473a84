// fetch's TLS options, spelled as curl's: --cacert, -k/--insecure, --pinnedpubkey.

import Client
import TLS

/// curl's `--pinnedpubkey`: the *leaf* certificate's SubjectPublicKeyInfo must hash (SHA-256) to
/// one of the pins; the chain is also validated unless `-k` was given.
struct PinnedPublicKeyEvaluator: ServerTrustEvaluating {
    let pins: PublicKeyPins
    let performDefaultValidation: Bool

    /// Pins from `sha256//BASE64[;sha256//BASE64…]` or from a PEM/DER public key file.
    init(_ specification: String, performDefaultValidation: Bool) throws {
        if specification.hasPrefix("sha256//") {
            pins = try PublicKeyPins(curlSyntax: specification)
        } else {
            pins = PublicKeyPins(keys: try SecKey.publicKeys(inFile: specification).map(\.publicKey))
        }
        self.performDefaultValidation = performDefaultValidation
    }

    func evaluate(_ trust: SecTrust, forHost host: String) throws {
        if performDefaultValidation { try trust.af.performDefaultValidation(forHost: host) }
        let serverKeys = Array(trust.af.publicKeys.prefix(1))
        guard let leaf = serverKeys.first, pins.matches(leaf.publicKey) else {
            throw AFError.serverTrustEvaluationFailed(reason: .publicKeyPinningFailed(
                host: host, trust: trust, pinnedKeys: [], serverKeys: serverKeys))
        }
    }
}

extension FetchOptions {
    /// The TLS configuration the options ask for.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration()
        if let caCertificateFile { configuration.trustRoots = .file(caCertificateFile) }
        if insecure { configuration.verification = .none }
        return configuration
    }

    /// A trust manager applying `--pinnedpubkey` to every host, or `nil`.
    func serverTrustManager() throws -> ServerTrustManager? {
        guard let pinnedPublicKey else { return nil }
        let evaluator = try PinnedPublicKeyEvaluator(pinnedPublicKey, performDefaultValidation: !insecure)
        return ServerTrustManager(allHostsMustBeEvaluated: false, evaluatorForHost: { _ in evaluator })
    }
}
