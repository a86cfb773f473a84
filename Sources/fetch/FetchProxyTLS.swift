// curl's HTTPS-proxy TLS options (--proxy-cacert, --proxy-capath, --proxy-insecure,
// --proxy-pinnedpubkey, --proxy-cert/--proxy-cert-type/--proxy-key/--proxy-key-type/--proxy-pass,
// --proxy-crlfile, --proxy-ciphers, --proxy-tls13-ciphers, --proxy-tlsv1) and curl's statuses and
// messages for a failed TLS session to the proxy:
//   35 the handshake failed       "OpenSSL SSL_connect: ... in connection to PROXY:PORT"
//   60 the proxy's certificate    "SSL certificate problem: ..."
//   90 the proxy's pin            "SSL: public key does not match pinned public key"
// The options apply only to an https:// proxy; the origin keeps --cacert, -k, --pinnedpubkey.
import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif

/// The `--proxy-*` TLS options of one run: the same settings as the origin's, for the proxy.
struct FetchProxyTLSOptions: Equatable, Sendable {
    /// `--proxy-cacert FILE`.
    var caCertificateFile: String?
    /// `--proxy-capath DIR`.
    var caCertificateDirectory: String?
    /// `--proxy-insecure`: the proxy's certificate is not verified.
    var insecure = false
    /// `--proxy-pinnedpubkey HASHES|FILE`.
    var pinnedPublicKey: String?
    /// `--proxy-cert FILE[:PASSWORD]`.
    var clientCertificate: String?
    /// `--proxy-cert-type PEM|DER|P12`.
    var clientCertificateType: String?
    /// `--proxy-key FILE`.
    var clientKey: String?
    /// `--proxy-pass PHRASE`.
    var passphrase: String?
    /// `--proxy-crlfile FILE`.
    var crlFile: String?
    /// `--proxy-ciphers LIST` (TLS 1.2).
    var ciphers: String?
    /// `--proxy-tls13-ciphers LIST`.
    var tls13Ciphers: String?
}

extension FetchOptions {
    /// The proxy's TLS options: the `--proxy-*` settings read exactly as their origin
    /// counterparts are (FetchTLS.swift), with their statuses (77, 82, 58, 59) and the option
    /// named `--proxy-…` in messages.
    func proxyTLSOptions() throws(FetchSetupError) -> ProxyTLSOptions {
        var asOrigin = FetchOptions()
        let tls = proxy.tls
        asOrigin.caCertificateFile = tls.caCertificateFile
        asOrigin.caCertificateDirectory = tls.caCertificateDirectory
        asOrigin.insecure = tls.insecure
        asOrigin.pinnedPublicKey = tls.pinnedPublicKey
        asOrigin.clientCertificate = tls.clientCertificate
        asOrigin.clientCertificateType = tls.clientCertificateType
        asOrigin.clientKey = tls.clientKey
        asOrigin.passphrase = tls.passphrase
        asOrigin.crlFile = tls.crlFile
        asOrigin.ciphers = tls.ciphers
        asOrigin.tls13Ciphers = tls.tls13Ciphers
        let configuration: TLSConfiguration
        do throws(FetchSetupError) {
            configuration = try asOrigin.tlsConfiguration()
        } catch {
            let text = error.description
            throw FetchSetupError(status: error.status, description: text.hasPrefix("--") ? "--proxy-" + text.dropFirst(2) : text)
        }
        guard let pin = tls.pinnedPublicKey else { return ProxyTLSOptions(configuration: configuration) }
        do {
            let evaluator = try PinnedPublicKeyEvaluator(pin, performDefaultValidation: !tls.insecure)
            return ProxyTLSOptions(configuration: configuration, trustEvaluator: evaluator)
        } catch {
            throw FetchSetupError(status: 2, description: "--proxy-pinnedpubkey: \(error)")
        }
    }
}

extension TransferErrors {
    /// curl's exit status for a failed TLS session to an HTTPS proxy: 90 for a pin mismatch, 60
    /// for a certificate the proxy's trust settings refuse, 35 for any other handshake failure.
    static func proxyTLSExitStatus(_ proxy: ProxyError) -> Int32 {
        guard let tls = proxy.underlying as? TLSError else { return 35 }
        if case .serverTrustEvaluationFailed(let reason)? = tls.evaluatorError as? AFError {
            if case .publicKeyPinningFailed = reason { return 90 }
            return 60
        }
        return tls.trustFailure != nil ? 60 : 35
    }

    /// curl's message for a failed TLS session to an HTTPS proxy.
    static func proxyTLSMessage(_ proxy: ProxyError) -> String {
        switch proxyTLSExitStatus(proxy) {
        case 90: return "SSL: public key does not match pinned public key"
        case 60:
            // OpenSSL's verification text, as curl prints it ("unable to get local issuer certificate").
            let reason = ((proxy.underlying as? TLSError)?.trustFailure).map(\.message) ?? "unable to verify the proxy's certificate"
            return "SSL certificate problem: \(reason)"
        default:
            let (host, port) = hostAndPort(proxy.proxy)
            return "OpenSSL SSL_connect: \(proxy.detail) in connection to \(host):\(port) "
        }
    }
}
