// LoggingEventMonitor against httpbin: one .debug line per request with its id, details at
// .trace, nothing at .info or above, and nothing handed to the handler when the level is .info.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import Logging
import Client
import ClientObservability

@Suite("LoggingEventMonitor", .enabled(if: observabilityHTTPBin != nil, "needs LARIAT_HTTPBIN"))
struct LoggingEventMonitorTests {
    /// A session logging at `level` into a fresh recorder.
    private func session(level: Logger.Level) -> (Session, RecordedLines, LoggingEventMonitor) {
        let lines = RecordedLines()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(lines: lines, logLevel: level) }
        let monitor = LoggingEventMonitor(logger: logger)
        return (Session(eventMonitors: [monitor]), lines, monitor)
    }

    private let base = observabilityHTTPBin ?? "http://127.0.0.1:1"

    @Test("at .debug: exactly one line per request, with the request's id, method, URL and status")
    func oneDebugLine() async throws {
        let (session, lines, monitor) = session(level: .debug)
        let request = session.request("\(base)/get?a=1")
        let response = await request.serializingData().response
        #expect(response.response?.statusCode == 200)
        #expect(await eventually { lines.all.count == 1 })
        monitor.queue.sync {}
        let all = lines.all
        try #require(all.count == 1, "\(all.map(\.message))")
        let line = all[0]
        #expect(line.level == .debug)
        #expect(line.message == "GET \(base)/get?a=1 200")
        #expect(line.metadata[LoggingEventMonitor.requestIDKey] == "\(request.id.uuidString)")
        #expect(line.metadata["http.request.method"] == "GET")
        #expect(line.metadata["http.response.status_code"] == "200")
        #expect(line.metadata["url.full"] == "\(base)/get?a=1")
        #expect(line.metadata["lariat.duration_ms"] != nil)
    }

    @Test("at .trace: the steps too, each with the request id; still nothing above .debug")
    func traceDetails() async throws {
        let (session, lines, monitor) = session(level: .trace)
        let request = session.request("\(base)/redirect/1")
        _ = await request.serializingData().response
        #expect(await eventually { lines.all.contains { $0.level == .debug } })
        monitor.queue.sync {}
        let all = lines.all
        let traces = all.filter { $0.level == .trace }
        #expect(traces.count >= 4, "\(all.map(\.message))")
        #expect(traces.contains { $0.message.hasPrefix("redirect 302") }, "\(all.map(\.message))")
        #expect(traces.contains { $0.message == "attempt complete" })
        let withID = traces.filter { $0.metadata[LoggingEventMonitor.requestIDKey] != nil }
        #expect(withID.allSatisfy { $0.metadata[LoggingEventMonitor.requestIDKey] == "\(request.id.uuidString)" })
        #expect(all.allSatisfy { $0.level <= .debug })
        #expect(all.filter { $0.level == .debug }.count == 1)
    }

    @Test("a failed request is a .debug line with error.type, never .info or above")
    func failureStaysDebug() async throws {
        let (session, lines, monitor) = session(level: .trace)
        // Port 1 on loopback: connection refused.
        _ = await session.request("http://127.0.0.1:1/nothing").serializingData().response
        #expect(await eventually { lines.all.contains { $0.level == .debug } })
        monitor.queue.sync {}
        let all = lines.all
        #expect(all.allSatisfy { $0.level <= .debug }, "\(all.map { "\($0.level) \($0.message)" })")
        let debug = try #require(all.first { $0.level == .debug })
        #expect(debug.message.hasPrefix("GET http://127.0.0.1:1/nothing failed: "))
        #expect(debug.metadata["error.type"] != nil)
    }

    @Test("at .info nothing reaches the handler; credentials never appear in a URL")
    func quietAtInfo() async throws {
        let (session, lines, monitor) = session(level: .info)
        _ = await session.request("\(base)/get").serializingData().response
        _ = await session.request("\(base)/status/500").serializingData().response
        monitor.queue.sync {}
        try await Task.sleep(for: .milliseconds(50))
        monitor.queue.sync {}
        #expect(lines.all.isEmpty)

        let (debugSession, debugLines, debugMonitor) = self.session(level: .debug)
        let authority = "http://user:secret@" + base.dropFirst("http://".count)
        _ = await debugSession.request("\(authority)/basic-auth/user/secret").serializingData().response
        #expect(await eventually { debugLines.all.count == 1 })
        debugMonitor.queue.sync {}
        let line = try #require(debugLines.all.first)
        #expect(line.message.hasPrefix("GET \(base)/basic-auth/user/secret "), "\(line.message)")
        #expect(!line.message.contains("user:secret@") && !"\(line.metadata)".contains("user:secret@"), "\(line.message)")
    }
}
