// MetricsEventMonitor against httpbin, recorded by swift-metrics' TestMetrics: requests by
// method and status class, timers from URLSessionTaskMetrics, bytes, retries and redirects.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import Synchronization
import MetricsTestKit
import Client
import ClientObservability

/// Retries a request once, whatever failed.
private final class RetryOnce: RequestInterceptor {
    private let retried = Mutex(false)
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(retried.withLock { done in defer { done = true }; return done } ? .doNotRetry : .retry)
    }
}

@Suite("MetricsEventMonitor", .enabled(if: observabilityHTTPBin != nil, "needs LARIAT_HTTPBIN"))
struct MetricsEventMonitorTests {
    private typealias Label = MetricsEventMonitor.Label
    private let base = observabilityHTTPBin ?? "http://127.0.0.1:1"

    @Test("a GET counts under GET/2xx and records total, connect and first-byte timers and bytes")
    func successfulGet() async throws {
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = Session(eventMonitors: [monitor])
        let response = await session.request("\(base)/bytes/1000").serializingData().response
        #expect(response.data?.count == 1000)
        #expect(await eventually { metrics.counterTotal(label: Label.requests) == 1 })
        monitor.queue.sync {}
        #expect(metrics.counterTotal(label: Label.requests, dimensions: [("method", "GET"), ("status_class", "2xx")]) == 1)
        #expect(try metrics.expectTimer(Label.requestDuration).values.count == 1)
        #expect(try metrics.expectTimer(Label.requestDuration).values.allSatisfy { $0 > 0 })
        #expect(try metrics.expectTimer(Label.connectDuration).values.count == 1)
        #expect(try metrics.expectTimer(Label.firstByteDuration).values.count == 1)
        // A plain-http request makes no handshake.
        #expect(try metrics.expectTimer(Label.tlsDuration).values.isEmpty)
        #expect(metrics.counterTotal(label: Label.bytesReceived) > 1000)
        #expect(metrics.counterTotal(label: Label.bytesSent) > 30)

        // A second request on a reused connection records no second connect time. Whether it is
        // reused is the server's call (gunicorn closes an idle connection after 2 s, which a
        // loaded machine can exceed), so the expectation follows the attempt's own metrics.
        let second = await session.request("\(base)/get").serializingData().response
        #expect(await eventually { metrics.counterTotal(label: Label.requests) == 2 })
        monitor.queue.sync {}
        let reused = try #require(second.metrics?.transactionMetrics.last).isReusedConnection
        #expect(try metrics.expectTimer(Label.connectDuration).values.count == (reused ? 1 : 2))
        #expect(try metrics.expectTimer(Label.requestDuration).values.count == 2)
    }

    @Test("status classes, a failure, redirects and retries", arguments: [
        // (path, method, expected status class)
        ("/status/404", "GET", "4xx"),
        ("/status/503", "GET", "5xx"),
    ])
    func statusClasses(path: String, method: String, statusClass: String) async throws {
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        _ = await retained(Session(eventMonitors: [monitor])).request("\(base)\(path)").serializingData().response
        #expect(await eventually { metrics.counterTotal(label: Label.requests) == 1 })
        #expect(metrics.counterTotal(label: Label.requests, dimensions: [("method", method), ("status_class", statusClass)]) == 1)
    }

    @Test("a refused connection counts as error; /redirect/2 adds 2 redirects; a retry counts")
    func failuresRedirectsRetries() async throws {
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = Session(eventMonitors: [monitor])
        _ = await session.request("http://127.0.0.1:1/").serializingData().response
        _ = await session.request("\(base)/redirect/2").serializingData().response
        _ = await session.request("\(base)/status/500", interceptor: RetryOnce()).validate().serializingData().response
        #expect(await eventually { metrics.counterTotal(label: Label.requests) == 3 })
        monitor.queue.sync {}
        #expect(metrics.counterTotal(label: Label.requests, dimensions: [("method", "GET"), ("status_class", "error")]) == 2)
        #expect(metrics.counterTotal(label: Label.requests, dimensions: [("method", "GET"), ("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: Label.redirects) == 2)
        #expect(metrics.counterTotal(label: Label.retries) == 1)
    }
}
