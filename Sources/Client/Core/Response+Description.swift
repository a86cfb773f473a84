#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

/// The shared text layout of `DataResponse` and `DownloadResponse` debug descriptions.
enum ResponseDescription {
    /// Bodies longer than this are summarized by size instead of printed.
    static let maxPrintedBodyBytes = 2_048

    /// A body as text when it is short UTF-8, otherwise its size; `None` when absent or empty.
    static func body(_ data: Data?) -> String {
        guard let data, !data.isEmpty else { return "None" }
        if data.count <= maxPrintedBodyBytes, let text = String(data: data, encoding: .utf8) {
            return text
        }
        return "\(data.count) bytes"
    }

    static func render(
        request: URLRequest?,
        response: HTTPURLResponse?,
        body: String,
        metrics: URLSessionTaskMetrics?,
        serializationDuration: TimeInterval,
        result: String
    ) -> String {
        var lines: [String] = []
        if let request {
            lines.append("[Request]: \(request.httpMethod ?? "GET") \(request.description)")
            lines.append(contentsOf: headerLines(request.headers))
            let requestBody = request.httpBodyStream != nil ? "Stream" : self.body(request.httpBody)
            lines.append("    [Body]: \(requestBody)")
        } else {
            lines.append("[Request]: None")
        }
        if let response {
            lines.append("[Response]:")
            lines.append("    [Status Code]: \(response.statusCode)")
            lines.append(contentsOf: headerLines(response.headers))
            lines.append("    [Body]: \(body)")
        } else {
            lines.append("[Response]: None")
        }
        lines.append("[Network Duration]: " + (metrics.map { "\($0.taskInterval.duration)s" } ?? "None"))
        lines.append("[Serialization Duration]: \(serializationDuration)s")
        lines.append("[Result]: \(result)")
        return lines.joined(separator: "\n")
    }

    private static func headerLines(_ headers: HTTPHeaders) -> [String] {
        guard !headers.isEmpty else { return ["    [Headers]: None"] }
        return ["    [Headers]:"] + headers.map { "        \($0)" }
    }
}
