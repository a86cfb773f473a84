// TracingEventMonitor against httpbin with swift-distributed-tracing's InMemoryTracer: one
// client span per request with OpenTelemetry's HTTP attributes, the span's context injected
// into the request (httpbin /headers echoes it back), parenting through bind(_:to:).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import Tracing
import InMemoryTracing
import Client
import ClientObservability

/// httpbin's /headers answer.
private struct HeadersEcho: Decodable, Sendable {
    var headers: [String: String]
}

@Suite("TracingEventMonitor", .enabled(if: observabilityHTTPBin != nil, "needs LARIAT_HTTPBIN"))
struct TracingEventMonitorTests {
    private let base = observabilityHTTPBin ?? "http://127.0.0.1:1"

    @Test("one client span with the semantic-convention attributes; its context reaches the server")
    func spanAndInjection() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingEventMonitor(tracer: tracer)
        let session = Session(interceptor: tracing, eventMonitors: [tracing])
        let echo = try await session.request("\(base)/headers").serializingDecodable(HeadersEcho.self).value
        // The request's span and its one exchange's.
        #expect(await eventually { tracer.finishedSpans.count == 2 })
        let span = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
        #expect(span.attributes["url.full"]?.toSpanAttribute() == .string("\(base)/headers"))
        #expect(span.attributes["server.address"]?.toSpanAttribute() == .string("127.0.0.1"))
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
        // InMemoryTracer injects its trace and span ids; httpbin echoes them (names title-cased).
        let sent = Dictionary(uniqueKeysWithValues: echo.headers.map { ($0.key.lowercased(), $0.value) })
        #expect(sent[InMemoryTracer.traceIDKey] == span.traceID)
        #expect(sent[InMemoryTracer.spanIDKey] == span.spanID)
    }

    @Test("a 404 and a refused connection set error.type and an error status")
    func errors() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingEventMonitor(tracer: tracer)
        let session = Session(interceptor: tracing, eventMonitors: [tracing])
        _ = await session.request("\(base)/status/404").serializingData().response
        _ = await session.request("http://127.0.0.1:1/").serializingData().response
        // Two requests; the 404 had an exchange, the refused connection none (no request was sent).
        #expect(await eventually { tracer.finishedSpans.count == 3 }, "\(tracer.finishedSpans.map { ($0.operationName, $0.parentSpanID, $0.attributes["url.full"]?.toSpanAttribute()) })")
        let spans = tracer.finishedSpans.filter { $0.parentSpanID == nil }
        #expect(spans.count == 2)
        let notFound = try #require(spans.first { $0.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(404) })
        #expect(notFound.attributes["error.type"]?.toSpanAttribute() == .string("404"))
        #expect(notFound.status?.code == .error)
        let refused = try #require(spans.first { $0.attributes["http.response.status_code"] == nil })
        #expect(refused.attributes["error.type"] != nil)
        #expect(refused.status?.code == .error)
        #expect(!refused.errors.isEmpty)
    }

    @Test("each redirect hop is a child span of the request's, with its own URL, status and resend count")
    func redirectHops() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingEventMonitor(tracer: tracer)
        let session = Session(interceptor: tracing, eventMonitors: [tracing])
        _ = await session.request("\(base)/redirect/2").serializingData().response
        #expect(await eventually { tracer.finishedSpans.count == 4 })
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.parentSpanID == nil })
        let exchanges = spans.filter { $0.parentSpanID == request.spanID }
            .sorted { resendCount($0) < resendCount($1) }
        try #require(exchanges.count == 3)
        #expect(exchanges.map { $0.attributes["url.full"]?.toSpanAttribute() } == [
            .string("\(base)/redirect/2"), .string("\(base)/relative-redirect/1"), .string("\(base)/get"),
        ])
        #expect(exchanges.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [.int64(302), .int64(302), .int64(200)])
        #expect(exchanges.map { $0.attributes["http.request.resend_count"]?.toSpanAttribute() } == [nil, .int64(1), .int64(2)])
        #expect(exchanges.allSatisfy { $0.kind == .client && $0.traceID == request.traceID && $0.status == nil })
        // Each exchange lies within the request's span and they follow each other.
        for (earlier, later) in zip(exchanges, exchanges.dropFirst()) {
            #expect(earlier.endInstant.nanosecondsSinceEpoch <= later.startInstant.nanosecondsSinceEpoch)
        }
    }

    @Test("each retry's exchange is a child span; resend counts continue across tasks")
    func retries() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingEventMonitor(tracer: tracer)
        let retry = RetryPolicy(retryLimit: 1, exponentialBackoffBase: 2, exponentialBackoffScale: 0.01)
        let session = Session(interceptor: Interceptor(adapters: [tracing], retriers: [retry]), eventMonitors: [tracing])
        _ = await session.request("\(base)/status/503").validate().serializingData().response
        #expect(await eventually { tracer.finishedSpans.count == 3 })
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.parentSpanID == nil })
        #expect(request.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        let exchanges = spans.filter { $0.parentSpanID == request.spanID }
        #expect(exchanges.count == 2)
        #expect(Set(exchanges.map(resendCount)) == [0, 1])
        #expect(exchanges.allSatisfy { $0.attributes["error.type"]?.toSpanAttribute() == .string("503") && $0.status?.code == .error })
    }

    /// A span's `http.request.resend_count` (0 when absent).
    private func resendCount(_ span: FinishedInMemorySpan) -> Int64 {
        if case .int64(let count)? = span.attributes["http.request.resend_count"]?.toSpanAttribute() { return count }
        return 0
    }

    @Test("bind(_:to:) parents the request's span")
    func parenting() async throws {
        let tracer = InMemoryTracer()
        let tracing = TracingEventMonitor(tracer: tracer)
        let session = Session(interceptor: tracing, eventMonitors: [tracing])
        let parent = tracer.startSpan("parent")
        let request = session.request("\(base)/get")
        tracing.bind(request, to: parent.context)
        _ = await request.serializingData().response
        parent.end()
        #expect(await eventually { tracer.finishedSpans.count == 3 })  // parent, request, exchange
        let child = try #require(tracer.finishedSpans.first { $0.parentSpanID == parent.spanID })
        #expect(child.operationName == "GET")
        #expect(child.parentSpanID == parent.spanID)
        #expect(child.traceID == parent.traceID)
    }
}
