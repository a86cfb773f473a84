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
        #expect(await eventually { tracer.finishedSpans.count == 1 })
        let span = try #require(tracer.finishedSpans.first)
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
        #expect(await eventually { tracer.finishedSpans.count == 2 })
        let spans = tracer.finishedSpans
        let notFound = try #require(spans.first { $0.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(404) })
        #expect(notFound.attributes["error.type"]?.toSpanAttribute() == .string("404"))
        #expect(notFound.status?.code == .error)
        let refused = try #require(spans.first { $0.attributes["http.response.status_code"] == nil })
        #expect(refused.attributes["error.type"] != nil)
        #expect(refused.status?.code == .error)
        #expect(!refused.errors.isEmpty)
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
        #expect(await eventually { tracer.finishedSpans.count == 2 })
        let child = try #require(tracer.finishedSpans.first { $0.operationName == "GET" })
        #expect(child.parentSpanID == parent.spanID)
        #expect(child.traceID == parent.traceID)
    }
}
