// How a proxy failure reads as a URLError. Client's side of the boundary: the transport reports
// `TransportError` with a `ProxyError` beneath and knows nothing of URLError.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS
import Transport

extension TransportError {
    /// The `URLError.Code` for a proxy failure: see ``ProxyError``.
    var proxyURLErrorCode: URLError.Code {
        let proxyError = underlying as? ProxyError
        switch proxyError?.code {
        case ProxyError.Code.authenticationRequired?: return .userAuthenticationRequired
        case ProxyError.Code.proxyNotFound?: return .cannotFindHost
        case ProxyError.Code.tlsHandshakeFailed?:
            // The code the same failure has for an origin (certificate codes, else
            // secureConnectionFailed); the TransportError beneath stays `.proxy`, so a caller
            // can still tell the proxy's certificate from the origin's.
            return TransportError(.tls, detail, underlying: proxyError?.underlying).tlsURLErrorCode
        default: return .cannotConnectToHost
        }
    }
}
