#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// Lariat's stand-in for Foundation's `URLSessionTask`, which lives in FoundationNetworking on
/// Linux (never linked): a snapshot of one request's exchange handed to ``RedirectHandler`` (and
/// later to event monitors), so code written against Alamofire's signatures compiles unchanged.
///
/// Lariat has no task objects: each call gets a new snapshot of the request at that moment. It
/// cannot be resumed, suspended or cancelled; use the ``Request`` for that.
// MERGE: the monitors agent's EventMonitor methods take a URLSessionTask too; keep one type.
public final class URLSessionTask: Sendable {
    /// An identifier unique among the session's requests while they live (the request's
    /// exchange number; Lariat's tasks are snapshots, so two snapshots may share it).
    public let taskIdentifier: Int
    /// The request as it was first built (before any redirect or authentication hop).
    public let originalRequest: URLRequest?
    /// The request of the current exchange.
    public let currentRequest: URLRequest?
    /// The response of the current exchange, once its head arrived.
    public let response: HTTPURLResponse?

    /// A snapshot.
    /// - Parameters:
    ///   - taskIdentifier: See ``taskIdentifier``.
    ///   - originalRequest: The first request.
    ///   - currentRequest: The current request.
    ///   - response: The current response, `nil` before its head.
    init(taskIdentifier: Int, originalRequest: URLRequest?, currentRequest: URLRequest?, response: HTTPURLResponse?) {
        self.taskIdentifier = taskIdentifier
        self.originalRequest = originalRequest
        self.currentRequest = currentRequest
        self.response = response
    }
}
