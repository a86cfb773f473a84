// MetricsEventMonitor's connection-pool gauges against httpbin, recorded by swift-metrics'
// TestMetrics: they rise while requests are in flight (leased, connecting, waiters at the
// per-host limit) and fall back once they are done.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import MetricsTestKit
import Client
import ClientObservability

@Suite("MetricsEventMonitor pool gauges", .enabled(if: observabilityHTTPBin != nil, "needs LARIAT_HTTPBIN"))
struct PoolGaugesTests {
    private typealias Label = MetricsEventMonitor.Label
    private let base = observabilityHTTPBin ?? "http://127.0.0.1:1"

    /// The origin's dimensions for the httpbin URL.
    private var origin: [(String, String)] {
        let url = URL(string: base)!
        return [("scheme", "http"), ("host", url.host ?? ""), ("port", String(url.port ?? 80))]
    }

    private func gauge(_ metrics: TestMetrics, _ state: String) -> Double? {
        try? metrics.expectGauge(Label.poolConnections, origin + [("state", state)]).lastValue
    }

    private func waiters(_ metrics: TestMetrics) -> Double? {
        try? metrics.expectGauge(Label.poolWaiters, origin).lastValue
    }

    @Test("four slow requests at a limit of two: two leased, two waiting; then none leased or waiting")
    func gaugesFollowRequestsInFlight() async throws {
        let metrics = TestMetrics()
        let configuration = URLSessionConfiguration.af.default
        configuration.httpMaximumConnectionsPerHost = 2
        let session: Session? = Session(configuration: configuration, eventMonitors: [MetricsEventMonitor(factory: metrics)])
        #expect(gauge(metrics, "leased") == nil, "nothing recorded before any request")

        do {
            let requests = (0..<4).map { _ in session!.request("\(base)/delay/1") }
            let tasks = requests.map { request in Task { await request.serializingData().response } }
            #expect(await eventually { gauge(metrics, "leased") == 2 && waiters(metrics) == 2 },
                    "leased \(String(describing: gauge(metrics, "leased"))), waiters \(String(describing: waiters(metrics)))")
            #expect(gauge(metrics, "connecting") == 0)
            // The connecting gauge rose before the connections were leased.
            #expect(try metrics.expectGauge(Label.poolConnections, origin + [("state", "connecting")]).values.contains { $0 >= 1 })
            #expect(try metrics.expectGauge(Label.poolConnections, origin + [("state", "connecting")]).values.allSatisfy { $0 <= 2 })

            for task in tasks { #expect(await task.value.response?.statusCode == 200) }
            #expect(await eventually { gauge(metrics, "leased") == 0 && waiters(metrics) == 0 })
            #expect(gauge(metrics, "connecting") == 0)
            // Kept alive unless httpbin closed them meanwhile.
            let idle = try #require(gauge(metrics, "idle"))
            #expect((0...2).contains(idle))
        }
        withExtendedLifetime(session) {}
    }

    @Test("origins beyond the cap add up under host=other")
    func originCap() async throws {
        let metrics = TestMetrics()
        let session = Session(eventMonitors: [MetricsEventMonitor(factory: metrics, maximumPoolOrigins: 1)])
        let url = URL(string: base)!
        // The same server under two names: 127.0.0.1 gets its own label, localhost goes to other.
        let second = "http://localhost:\(url.port ?? 80)"
        let first = await session.request("\(base)/get").serializingData().response
        let other = await session.request("\(second)/get").serializingData().response
        #expect(first.response?.statusCode == 200)
        #expect(other.response?.statusCode == 200)
        #expect(await eventually { gauge(metrics, "leased") == 0 })
        let others = [("scheme", "http"), ("host", "other"), ("port", "0")]
        #expect(try metrics.expectGauge(Label.poolConnections, others + [("state", "leased")]).values.contains(1))
        #expect((try? metrics.expectGauge(Label.poolConnections, [("scheme", "http"), ("host", "localhost"), ("port", String(url.port ?? 80)), ("state", "leased")])) == nil)
        withExtendedLifetime(session) {}
    }
}
