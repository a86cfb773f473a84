#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

/// A response stored in a ``URLCache``: the head, the body, and where it may be kept.
///
/// Lariat's own (Foundation's lives in FoundationNetworking on Linux, which Lariat never links);
/// its response is an ``HTTPURLResponse``, Lariat's only response type. Immutable, so `Sendable`.
public final class CachedURLResponse: Sendable {
    /// The stored response head.
    public let response: HTTPURLResponse
    /// The stored body.
    public let data: Data
    /// Values the application attached, keyed by strings (Foundation keys by `AnyHashable`, which
    /// is not `Sendable`); kept in memory only (the disk cache does not store them).
    public let userInfo: [String: any Sendable]?
    /// Where the response may be kept.
    public let storagePolicy: URLCache.StoragePolicy

    /// When the request that got this response was sent and when the response arrived (seconds
    /// since 1970), for RFC 9111's age calculation; both "now" for an application's own entry.
    let requestTime: Double
    let responseTime: Double
    /// The request's values of the fields the response's `Vary` names, lowercased names.
    let varyValues: [String: String]

    /// Creates a cached response kept in memory and on disk.
    /// - Parameters:
    ///   - response: The response head.
    ///   - data: The body.
    public convenience init(response: HTTPURLResponse, data: Data) {
        self.init(response: response, data: data, userInfo: nil, storagePolicy: .allowed)
    }

    /// Creates a cached response.
    /// - Parameters:
    ///   - response: The response head.
    ///   - data: The body.
    ///   - userInfo: Values of your own; `nil` by default.
    ///   - storagePolicy: `.allowed` by default.
    public convenience init(response: HTTPURLResponse, data: Data, userInfo: [String: any Sendable]? = nil,
                            storagePolicy: URLCache.StoragePolicy = .allowed) {
        let now = Date().timeIntervalSince1970
        self.init(response: response, data: data, userInfo: userInfo, storagePolicy: storagePolicy,
                  requestTime: now, responseTime: now, varyValues: [:])
    }

    init(response: HTTPURLResponse, data: Data, userInfo: [String: any Sendable]?, storagePolicy: URLCache.StoragePolicy,
         requestTime: Double, responseTime: Double, varyValues: [String: String]) {
        self.response = response
        self.data = data
        self.userInfo = userInfo
        self.storagePolicy = storagePolicy
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyValues = varyValues
    }

    /// A copy with other head, body or policy (a handler's `.modify`, a 304's refreshed head).
    func with(response: HTTPURLResponse? = nil, requestTime: Double? = nil, responseTime: Double? = nil) -> CachedURLResponse {
        CachedURLResponse(response: response ?? self.response, data: data, userInfo: userInfo, storagePolicy: storagePolicy,
                          requestTime: requestTime ?? self.requestTime, responseTime: responseTime ?? self.responseTime,
                          varyValues: varyValues)
    }

    /// A copy with the vary values and times of the request that produced it.
    func bound(to request: URLRequest, requestTime: Double, responseTime: Double) -> CachedURLResponse {
        CachedURLResponse(response: response, data: data, userInfo: userInfo, storagePolicy: storagePolicy,
                          requestTime: requestTime, responseTime: responseTime,
                          varyValues: Self.varyValues(of: request, for: response))
    }

    /// The request's values of the fields `response`'s `Vary` names (RFC 9111 §4.1).
    static func varyValues(of request: URLRequest, for response: HTTPURLResponse) -> [String: String] {
        var values: [String: String] = [:]
        for name in varyNames(response) { values[name] = request.headers.values(for: name).joined(separator: ",") }
        return values
    }

    /// The lowercased field names of `Vary`.
    static func varyNames(_ response: HTTPURLResponse) -> [String] {
        response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces().lowercased() }
            .filter { !$0.isEmpty }
    }

    /// Whether this response may answer `request`: every field its `Vary` names has the value
    /// the original request had (absent matches absent).
    func matchesVary(of request: URLRequest) -> Bool {
        for name in Self.varyNames(response) {
            if name == "*" { return false }
            let now = request.headers.values(for: name).joined(separator: ",")
            if (varyValues[name] ?? "") != now { return false }
        }
        return true
    }
}

extension URLCache {
    /// Where a cached response may be kept.
    public enum StoragePolicy: UInt, Sendable {
        /// In memory and on disk.
        case allowed = 0
        /// In memory only.
        case allowedInMemoryOnly = 1
        /// Not at all.
        case notAllowed = 2
    }
}
