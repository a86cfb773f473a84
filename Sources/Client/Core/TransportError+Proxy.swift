// How a proxy failure reads as a URLError. Client's side of the boundary: the transport reports
// `TransportError` with a `ProxyError` beneath and knows nothing of URLError.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

extension TransportError {
    /// The `URLError.Code` for a proxy failure: see ``ProxyError``.
    var proxyURLErrorCode: URLError.Code {
        switch (underlying as? ProxyError)?.code {
        case ProxyError.Code.authenticationRequired?: .userAuthenticationRequired
        case ProxyError.Code.proxyNotFound?: .cannotFindHost
        default: .cannotConnectToHost
        }
    }
}
