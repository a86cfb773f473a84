// What the three monitors say about a request, computed in one place: its method, its URL
// without credentials, its status class and its error type, after OpenTelemetry's HTTP
// semantic conventions (https://opentelemetry.io/docs/specs/semconv/http/http-spans/).

#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Client

enum RequestSummary {
    /// The request's method (`GET` when it has no URLRequest yet).
    static func method(of request: Request) -> String {
        request.request?.httpMethod ?? "GET"
    }

    /// `url` as `url.full` wants it: user and password removed (semconv: never record them).
    static func redacted(_ url: URL?) -> String {
        guard let url else { return "" }
        guard url.user != nil || url.password != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.url?.absoluteString ?? ""
    }

    /// `1xx`...`5xx` for a status code, `error` when there is none.
    static func statusClass(_ statusCode: Int?) -> String {
        guard let statusCode, (100...599).contains(statusCode) else { return "error" }
        return "\(statusCode / 100)xx"
    }

    /// semconv's `error.type`: the status code for a 4xx/5xx, else the error's kind, else nil.
    static func errorType(statusCode: Int?, error: AFError?) -> String? {
        if let error {
            if error.isExplicitlyCancelledError { return "cancelled" }
            if let urlError = error.underlyingError as? URLError { return "URLError.\(urlError.code.rawValue)" }
            return "AFError"
        }
        if let statusCode, statusCode >= 400 { return String(statusCode) }
        return nil
    }

    /// Seconds between two dates, if both exist and are in order.
    static func interval(_ start: Date?, _ end: Date?) -> TimeInterval? {
        guard let start, let end, end >= start else { return nil }
        return end.timeIntervalSince(start)
    }
}
