// A request nobody asks about keeps its metrics as the transport's record and builds the
// `URLSessionTaskMetrics` object only when read: `Request.metrics`, a response's `metrics`, or a
// monitor. Every public value must read the same as when the object was built at the end of the
// exchange: the task's interval is fixed when recorded, not when read.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

/// Keeps the metrics a monitor was given.
private final class MetricsMonitor: EventMonitor {
    let queue = DispatchQueue(label: "org.lariat.test.metricsMonitor")
    private let seen = Mutex<[URLSessionTaskMetrics]>([])
    var gathered: [URLSessionTaskMetrics] { queue.sync {}; return seen.withLock { $0 } }
    func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        seen.withLock { $0.append(metrics) }
    }
}

extension ClientIntegrationTests {
    @Suite("Metrics built when read")
    struct LazyMetricsTests {
        private static let script: [ScriptedServer.Step] = [
            .expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n"),
            .expectRequest, cannedResponse("landed"),
        ]

        /// The public values of `metrics`, for comparison.
        private static func values(_ metrics: URLSessionTaskMetrics?) -> [String] {
            guard let metrics else { return ["nil"] }
            return ["\(metrics.taskInterval)", "\(metrics.redirectCount)"] + metrics.transactionMetrics.map { transaction in
                "\(transaction.request.url?.path ?? "-") \(transaction.response.map { "\($0.statusCode)" } ?? "-") "
                    + "\(String(describing: transaction.fetchStartDate)) \(String(describing: transaction.responseEndDate)) "
                    + "\(transaction.countOfResponseBodyBytesReceived) \(transaction.isReusedConnection)"
            }
        }

        @Test("unread metrics: a response's and the request's read the same, later reads too")
        func readLater() async throws {
            let server = try ScriptedServer(script: Self.script)
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/a")
            let response = await request.serializingString().response
            #expect(response.value == "landed")
            let fromResponse = Self.values(response.metrics)
            try await Task.sleep(for: .milliseconds(50))  // a build that stamped "now" would differ
            #expect(fromResponse.count == 4, "\(fromResponse)")
            #expect(response.metrics?.redirectCount == 1)
            #expect(Self.values(response.metrics) == fromResponse)
            #expect(Self.values(request.metrics) == fromResponse)
            #expect(request.metrics === request.metrics, "the request keeps the object it built")
            #expect(Self.values(request.allMetrics.last) == fromResponse)
        }

        @Test("a monitor's metrics are the request's object")
        func monitored() async throws {
            let server = try ScriptedServer(script: Self.script)
            defer { server.stop() }
            let monitor = MetricsMonitor()
            let request = retained(Session(eventMonitors: [monitor])).request("http://127.0.0.1:\(server.port)/a")
            let response = await request.serializingString().response
            #expect(response.value == "landed")
            let gathered = try #require(monitor.gathered.first)
            #expect(gathered === request.metrics)
            #expect(gathered === response.metrics)
            #expect(Self.values(gathered).count == 4)
        }
    }
}
