#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension Session {
    /// Creates a ``WebSocketRequest`` to `url` (`ws://`, `wss://`, `http://` or `https://`).
    /// - Parameters:
    ///   - url: The URL.
    ///   - configuration: Subprotocol, message size limit, pings; `.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries the opening handshake, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Start when the first handler is added; `nil` (the
    ///     session's `startRequestsImmediately`) by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request.
    public func webSocketRequest(
        to url: any URLConvertible, configuration: WebSocketRequest.Configuration = .default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> WebSocketRequest {
        let request = ClosureRequestConvertible { try URLRequest(url: url, method: .get, headers: headers) }
        return WebSocketRequest(convertible: request, configuration: configuration, modifier: requestModifier,
                                shouldAutomaticallyResume: shouldAutomaticallyResume, interceptor: interceptor, context: context)
    }

    /// Creates a ``WebSocketRequest`` to `url` with `Encodable` parameters (in the query, by
    /// default).
    /// - Parameters:
    ///   - url: The URL.
    ///   - configuration: Subprotocol, message size limit, pings; `.default` by default.
    ///   - parameters: Encoded by `encoder`; `nil` by default.
    ///   - encoder: `URLEncodedFormParameterEncoder.default` by default.
    ///   - headers: Added to the session's default headers; `nil` by default.
    ///   - interceptor: Adapts and retries the opening handshake, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Start when the first handler is added; `nil` (the
    ///     session's `startRequestsImmediately`) by default.
    ///   - requestModifier: Last changes to the URLRequest; `nil` by default.
    /// - Returns: The request.
    public func webSocketRequest<Parameters: Encodable & Sendable>(
        to url: any URLConvertible, configuration: WebSocketRequest.Configuration = .default, parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        requestModifier: RequestModifier? = nil
    ) -> WebSocketRequest {
        let request = ClosureRequestConvertible {
            let request = try URLRequest(url: url, method: .get, headers: headers)
            return try encoder.encode(parameters, into: request)
        }
        return WebSocketRequest(convertible: request, configuration: configuration, modifier: requestModifier,
                                shouldAutomaticallyResume: shouldAutomaticallyResume, interceptor: interceptor, context: context)
    }

    /// Creates a ``WebSocketRequest`` from a URLRequest or another `URLRequestConvertible`.
    /// - Parameters:
    ///   - convertible: The request (its method should be `GET`).
    ///   - configuration: Subprotocol, message size limit, pings; `.default` by default.
    ///   - interceptor: Adapts and retries the opening handshake, after the session's; `nil` by default.
    ///   - shouldAutomaticallyResume: Start when the first handler is added; `nil` (the
    ///     session's `startRequestsImmediately`) by default.
    /// - Returns: The request.
    public func webSocketRequest(
        performing convertible: any URLRequestConvertible, configuration: WebSocketRequest.Configuration = .default,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil
    ) -> WebSocketRequest {
        WebSocketRequest(convertible: convertible, configuration: configuration, modifier: nil,
                         shouldAutomaticallyResume: shouldAutomaticallyResume, interceptor: interceptor, context: context)
    }
}
