// URLSession's deadline model, mapped onto the transport: timeoutIntervalForRequest (or the
// request's own timeoutInterval) is the idle limit, timeoutIntervalForResource the total from the
// request's start, timeoutIntervalForConnect Lariat's connect limit. Table tests without sockets
// for every kind of TimeInterval, then loopback runs for the values that used to trap.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import EventLoop
import LariatTestSupport
@testable import Client

@Suite("Deadlines")
struct DeadlineTests {
    @Test("a TimeInterval's meaning", arguments: [
        // none
        (TimeInterval.infinity, TimeoutLimit.Meaning.unlimited),
        (1e300, .unlimited),
        (TimeoutLimit.longestSeconds, .unlimited),
        (TimeInterval.greatestFiniteMagnitude, .unlimited),
        // limits, to the nanosecond, never rounded down to zero
        (60, .limit(.seconds(60))),
        (0.4, .limit(.milliseconds(400))),
        (0.0005, .limit(.microseconds(500))),
        (1e-12, .limit(.nanoseconds(1))),
        (TimeInterval.leastNonzeroMagnitude, .limit(.nanoseconds(1))),
        (7 * 86_400, .limit(.seconds(7 * 86_400))),
        // invalid
        (0, .invalid), (-0.0, .invalid), (-1, .invalid), (-TimeInterval.infinity, .invalid), (TimeInterval.nan, .invalid),
    ] as [(TimeInterval, TimeoutLimit.Meaning)])
    func meaning(_ seconds: TimeInterval, _ expected: TimeoutLimit.Meaning) {
        #expect(TimeoutLimit.classify(seconds) == expected)
    }

    @Test("defaults: 60 s idle, 7 days total (as Apple), no connect limit of its own")
    func defaults() throws {
        let configuration = URLSessionConfiguration.default
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.timeoutIntervalForResource == 7 * 24 * 3600)
        #expect(configuration.timeoutIntervalForConnect == .infinity)
        let start = Deadline.now()
        let request = try Session().transportRequest(for: URLRequest(url: URL(string: "http://example.test/")!), start: start)
        #expect(request.idleTimeout == .seconds(60))
        #expect(request.connectTimeout == nil)
        #expect(request.deadline == start + .seconds(7 * 24 * 3600))
    }

    /// One mapping: configuration values, the request's own timeout (nil: left at its default),
    /// and the transport's limits (`nil`: none), or the setting an error must name.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var request: TimeInterval = 60
        var resource: TimeInterval = 7 * 86_400
        var connect: TimeInterval = .infinity
        var explicit: TimeInterval?
        var idle: Duration?
        var total: Duration? = .seconds(7 * 86_400)
        var connectLimit: Duration?
        var error: String?
        var testDescription: String { name }
    }

    @Test("configuration and request timeouts become the transport's limits", arguments: [
        Row(name: "idle .infinity: none (Int64(.infinity * 1000) trapped)", request: .infinity, idle: nil),
        Row(name: "idle 1e12 s: none (trapped)", request: 1e12, idle: nil),
        Row(name: "idle 0.4 s", request: 0.4, idle: .milliseconds(400)),
        Row(name: "idle 0.0005 s: 500 µs (0 ms trapped Connector's precondition)", request: 0.0005, idle: .microseconds(500)),
        Row(name: "request's own 2 s wins over 0.3", request: 0.3, explicit: 2, idle: .seconds(2)),
        Row(name: "request's own .infinity wins", request: 10, explicit: .infinity, idle: nil),
        Row(name: "total 2 s", resource: 2, idle: .seconds(60), total: .seconds(2)),
        Row(name: "total .infinity: distantFuture", resource: .infinity, idle: .seconds(60), total: nil),
        Row(name: "connect 2 s", connect: 2, idle: .seconds(60), connectLimit: .seconds(2)),
        Row(name: "connect 0.25 s", connect: 0.25, idle: .seconds(60), connectLimit: .milliseconds(250)),
        Row(name: "idle 0: error", request: 0, error: "timeoutIntervalForRequest"),
        Row(name: "idle NaN: error", request: .nan, error: "timeoutIntervalForRequest"),
        Row(name: "request's own -1: error", explicit: -1, error: "URLRequest.timeoutInterval"),
        Row(name: "total -1: error", resource: -1, error: "timeoutIntervalForResource"),
        Row(name: "total NaN: error", resource: .nan, error: "timeoutIntervalForResource"),
        Row(name: "connect 0: error", connect: 0, error: "timeoutIntervalForConnect"),
        Row(name: "connect -.infinity: error", connect: -.infinity, error: "timeoutIntervalForConnect"),
    ])
    func mapping(_ row: Row) throws {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = row.request
        configuration.timeoutIntervalForResource = row.resource
        configuration.timeoutIntervalForConnect = row.connect
        let session = Session(configuration: configuration)
        var request = URLRequest(url: URL(string: "http://example.test/")!)
        if let explicit = row.explicit { request.timeoutInterval = explicit }
        let start = Deadline.now()
        do {
            let transport = try session.transportRequest(for: request, start: start)
            #expect(row.error == nil, "expected an error naming \(row.error ?? "")")
            #expect(transport.idleTimeout == row.idle)
            #expect(transport.connectTimeout == row.connectLimit)
            #expect(transport.deadline == (row.total.map { start + $0 } ?? .distantFuture))
        } catch {
            let urlError = sessionTaskURLError(Result<Void, AFError>.failure(try #require(error as? AFError)))
            #expect(urlError?.code == .timedOut)
            let transport = transportError(urlError)
            #expect(transport?.kind == .timedOut)
            #expect(transport?.detail.hasPrefix("\(row.error ?? "no error expected") is ") == true, "\(String(describing: transport))")
        }
    }
}

extension ClientIntegrationTests {
    @Suite("Deadlines on loopback")
    struct DeadlineIntegrationTests {
        @Test("timeoutIntervalForRequest = .infinity: the request succeeds (used to crash)")
        func infiniteIdleTimeout() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .waitForClientClose])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = .infinity
            configuration.timeoutIntervalForResource = .infinity
            let response = await retained(Session(configuration: configuration)).request(loopbackURL(server)).serializingData().response
            #expect(response.value == Data("ok".utf8), "\(response.result)")
        }

        @Test("timeoutIntervalForRequest under 1 ms: a timeout, not a trap")
        func subMillisecondIdleTimeout() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.milliseconds(300)), .close])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = 0.0005
            let response = await retained(Session(configuration: configuration)).request(loopbackURL(server)).serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
        }

        @Test("timeoutIntervalForRequest = 0: fails at once with timedOut, nothing sent")
        func zeroIdleTimeout() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .close])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = 0
            let response = await retained(Session(configuration: configuration)).request(loopbackURL(server)).serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(server.connectionCount == 0)
        }

        @Test("timeoutIntervalForConnect bounds connecting, not the request timeout")
        func connectTimeout() async throws {
            let listener = try FullBacklogListener()
            defer { listener.close() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForRequest = 30
            configuration.timeoutIntervalForConnect = 0.4
            let start = ContinuousClock.now
            let response = await retained(Session(configuration: configuration)).request("http://127.0.0.1:\(listener.port)/").serializingData().response
            let elapsed = milliseconds(since: start)
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .timedOut, "\(response.result)")
            #expect(transportError(error)?.kind == .timedOut)
            #expect(elapsed >= 350 && elapsed < 3_000, "timed out after \(elapsed) ms")
        }

        @Test("timeoutIntervalForResource bounds a response that keeps trickling in")
        func resourceDeadlineOnTrickle() async throws {
            // One byte every 100 ms: the 60 s idle limit never fires; the 1 s total must.
            var script: [ScriptedServer.Step] = [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")]
            for _ in 0..<100 { script += [.send("x"), .sleep(.milliseconds(100))] }
            let server = try ScriptedServer(script: script + [.close])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForResource = 1
            let start = ContinuousClock.now
            let response = await retained(Session(configuration: configuration)).request(loopbackURL(server)).serializingData().response
            let elapsed = milliseconds(since: start)
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(elapsed >= 900 && elapsed < 3_000, "timed out after \(elapsed) ms")
        }
}
}
