#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif

// Transport failures surface as URLError (Foundation's with the FullFoundation trait, Client's own
// without), so code written for Alamofire can keep matching `error as? URLError`. Lariat's typed
// transport error rides along as the underlying error, under NSUnderlyingErrorKey in both builds.

extension URLError {
    /// Makes a URL error that carries Lariat's own error as its cause.
    ///
    /// - Parameters:
    ///   - code:       The Foundation-compatible code users match on.
    ///   - underlying: Lariat's typed error, stored under `NSUnderlyingErrorKey`.
    ///   - url:        The URL being loaded, stored under `NSURLErrorFailingURLErrorKey`; `nil` stores none.
    /// - Returns: The error.
    static func lariat(_ code: URLError.Code, underlying: any Error, url: URL?) -> URLError {
        #if FullFoundation
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: underlying]
        #else
        var userInfo: [String: any Sendable] = [NSUnderlyingErrorKey: underlying]
        #endif
        if let url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        return URLError(code, userInfo: userInfo)
    }
}

#if FullFoundation
extension URLError {
    /// The error that caused this one, read from `userInfo[NSUnderlyingErrorKey]`.
    ///
    /// For errors produced by Lariat's transport this is Lariat's typed error, so
    /// `urlError.underlyingError as? SomeLariatError` recovers it.
    public var underlyingError: (any Error)? {
        userInfo[NSUnderlyingErrorKey] as? any Error
    }
}
#endif
