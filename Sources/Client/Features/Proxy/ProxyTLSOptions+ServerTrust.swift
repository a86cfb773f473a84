// An HTTPS proxy's certificate checked by one of Alamofire's trust evaluators (a public key pin,
// pinned certificates, revocation), the proxy's own, never the session's ServerTrustManager.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS
import Transport

extension ProxyTLSOptions {
    /// Options whose trust decision on the proxy's certificate is `evaluator`'s, for the proxy's
    /// host name.
    ///
    /// ```swift
    /// let pinned = ProxyTLSOptions(trustEvaluator: PublicKeysTrustEvaluator(keys: [proxyKey]))
    /// ```
    /// A refusal fails the request with a proxy error (`TransportError` of kind `.proxy`,
    /// `ProxyError.Code.tlsHandshakeFailed`), never `AFError.serverTrustEvaluationFailed`, which
    /// stays the origin's.
    /// - Parameters:
    ///   - configuration: Trust roots, verification and identity for the proxy; the system trust
    ///     store by default.
    ///   - trustEvaluator: The evaluator for the proxy's certificate.
    public convenience init(configuration: TLSConfiguration = TLSConfiguration(), trustEvaluator: any ServerTrustEvaluating) {
        self.init(configuration: configuration, evaluator: { context in
            try trustEvaluator.evaluate(SecTrust(context: context), forHost: context.host)
        })
    }
}
