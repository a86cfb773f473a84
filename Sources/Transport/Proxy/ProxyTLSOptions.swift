// The TLS settings of the session to an HTTPS proxy: trust roots, verification, client identity
// and a trust evaluator (a pin) for the proxy's certificate, kept apart from the origins' (curl's
// --proxy-cacert, --proxy-insecure, --proxy-pinnedpubkey, --proxy-cert are separate options for
// the same reason: the proxy and the origin are different parties).

public import TLS

/// How the TLS session to an HTTPS proxy (``ProxyServer/Kind/https``) is set up and verified.
///
/// The counterpart of the `tlsOptions` of Network framework's
/// `ProxyConfiguration(httpCONNECTProxy:tlsOptions:)`: these settings apply to the proxy
/// only; the origin behind it keeps the session's own TLS configuration and trust evaluation.
///
/// ```swift
/// var tls = TLSConfiguration()
/// tls.trustRoots = .file("/etc/proxy-ca.pem")
/// let proxy = ProxyServer(kind: .https, host: "proxy.example", port: 8443,
///                         tlsOptions: ProxyTLSOptions(configuration: tls))
/// ```
///
/// A reference type: proxies that share one instance share its TLS context (built on the first
/// connection) and its session cache, and connections are pooled per instance.
public final class ProxyTLSOptions: Sendable, Hashable {
    /// The TLS configuration for the proxy's session (trust roots, verification, versions,
    /// ciphers, client identity). Its `applicationProtocols` are ignored: the
    /// proxy is always offered `http/1.1`.
    public let configuration: TLSConfiguration
    /// A decision on the proxy's certificate that replaces the default one (a public key pin,
    /// for instance); `nil` for the default evaluation by ``configuration``.
    public let evaluator: (@Sendable (TrustEvaluationContext) throws -> Void)?

    /// The context built from ``configuration`` on first use.
    package let context: LazyTLSContext

    /// Creates options for an HTTPS proxy's session.
    /// - Parameters:
    ///   - configuration: Trust roots, verification and identity for the proxy; by default the
    ///     system trust store with full verification.
    ///   - evaluator: Replaces the default trust decision on the proxy's certificate; `nil` by default.
    public init(configuration: TLSConfiguration = TLSConfiguration(), evaluator: (@Sendable (TrustEvaluationContext) throws -> Void)? = nil) {
        var configuration = configuration
        configuration.applicationProtocols = ["http/1.1"]
        self.configuration = configuration
        self.evaluator = evaluator
        self.context = LazyTLSContext(configuration: configuration)
    }

    /// The options used for an HTTPS proxy with none set: the system trust store, verified.
    package static let systemDefault = ProxyTLSOptions()

    /// Identity: two options are equal only when they are the same instance.
    public static func == (lhs: ProxyTLSOptions, rhs: ProxyTLSOptions) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
