#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension Session {
    /// Creates a ``DataStreamRequest`` for `convertible` with `Encodable` parameters.
    /// - Parameters:
    ///   - convertible: The URL.
    ///   - method: `.get` by default.
    ///   - parameters: Encoded by `encoder`; `nil` by default.
    ///   - encoder: `URLEncodedFormParameterEncoder.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - automaticallyCancelOnStreamError: Cancel when a handler throws or a chunk fails to
    ///     serialize; `false` by default.
    ///   - interceptor: Adapts and retries this request, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Start when the first handler is added; `nil` (the
    ///     session's `startRequestsImmediately`) by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    public func streamRequest<Parameters: Encodable & Sendable>(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        let request = ClosureRequestConvertible {
            let request = try URLRequest(url: convertible, method: method, headers: headers)
            return try encoder.encode(parameters, into: request)
        }
        return DataStreamRequest(convertible: request, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError,
                                 modifier: requestModifier, shouldAutomaticallyResume: shouldAutomaticallyResume,
                                 interceptor: interceptor, context: context)
    }

    /// Creates a ``DataStreamRequest`` for `convertible` without parameters (see the generic
    /// form for the parameters).
    public func streamRequest(
        _ convertible: any URLConvertible, method: HTTPMethod = .get, headers: HTTPHeaders? = nil,
        automaticallyCancelOnStreamError: Bool = false, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, requestModifier: RequestModifier? = nil
    ) -> DataStreamRequest {
        let request = ClosureRequestConvertible { try URLRequest(url: convertible, method: method, headers: headers) }
        return DataStreamRequest(convertible: request, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError,
                                 modifier: requestModifier, shouldAutomaticallyResume: shouldAutomaticallyResume,
                                 interceptor: interceptor, context: context)
    }

    /// Creates a ``DataStreamRequest`` from a URLRequest or another `URLRequestConvertible`.
    public func streamRequest(
        _ convertible: any URLRequestConvertible, automaticallyCancelOnStreamError: Bool = false,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil
    ) -> DataStreamRequest {
        DataStreamRequest(convertible: convertible, automaticallyCancelOnStreamError: automaticallyCancelOnStreamError,
                          modifier: nil, shouldAutomaticallyResume: shouldAutomaticallyResume,
                          interceptor: interceptor, context: context)
    }
}
