// The connection pool against loopback servers: a silent retry that waited behind the per-host
// limit gets a fresh connection, a cancel reaches a request wherever it is (connecting, in the TLS
// handshake), and a request still queued at its deadline fails `.timedOut`. Through Session where
// it can express the scenario, else through ConnectionPool and Exchange directly.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
import Wire
import EventLoop
import LariatTestSupport
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("Connection pool")
    struct PoolTests {
        /// A session allowing `limit` connections per host.
        static func session(limit: Int) -> Session {
            let configuration = URLSessionConfiguration.af.default
            configuration.httpMaximumConnectionsPerHost = limit
            return Session(configuration: configuration)
        }

        static func get(_ session: Session, _ url: String, timeout: TimeInterval = 3) async -> AFDataResponse<Data> {
            await session.request(url, requestModifier: { $0.timeoutInterval = timeout }).serializingData().response
        }

        @Test("a retry that waited behind the limit is sent on a new connection, not the one released")
        func retryAfterWaitingGetsFreshConnection() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                // A, then B on the reused connection: closed unanswered, so B is retried.
                [.expectRequest, cannedResponse("a"), .expectRequest, .sleep(.milliseconds(600)), .close],
                // C, served when B's connection closed; B must not come here after C.
                [.expectRequest, cannedResponse("c"), .waitForClientClose],
                // B's retry, on a connection of its own.
                [.expectRequest, cannedResponse("b")],
            ]))
            defer { server.stop() }
            let session = Self.session(limit: 1)
            let base = "http://127.0.0.1:\(server.port)"
            #expect(await Self.get(session, base + "/a").value == Data("a".utf8))
            async let b = Self.get(session, base + "/b")
            try await Task.sleep(for: .milliseconds(100))
            async let c = Self.get(session, base + "/c")
            let (bResponse, cResponse) = await (b, c)
            #expect(cResponse.value == Data("c".utf8), "\(cResponse.result)")
            #expect(bResponse.value == Data("b".utf8), "\(bResponse.result)")
            #expect(server.connectionCount == 3)
            #expect(server.requests(onConnection: 1).count == 1)
        }

        @Test("a cancel during the TLS handshake ends the request at once, not at the timeout")
        func cancelDuringHandshake() async throws {
            // Accepts and never answers the ClientHello.
            let server = try ScriptedServer(script: [.waitForClientClose], stepTimeout: .seconds(10))
            defer { server.stop() }
            let session = Session()
            let request = session.request("https://127.0.0.1:\(server.port)/", requestModifier: { $0.timeoutInterval = 5 })
            let task = request.serializingData()  // adding a response handler starts the request
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.connectionCount == 1, "the handshake should be under way")
            let cancelled = ContinuousClock.now
            request.cancel()
            let response = await task.response
            let elapsed = milliseconds(since: cancelled)
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            #expect(elapsed < 300, "ended \(elapsed) ms after the cancel")
            #expect(server.waitForConnections(1, finished: true), "the handshaking connection must be closed")
        }

        @Test("a cancel racing the start of a connect is never lost")
        func cancelRacingConnectStart() async throws {
            // Connects to it hang in SYN-SENT until cancelled or timed out (2 s here).
            let listener = try FullBacklogListener()
            defer { listener.close() }
            let pool = ConnectionPool(group: .shared, configuration: ConnectionPool.Configuration())
            var lost = 0
            for round in 0..<300 where lost == 0 {
                let probe = ExchangeProbe(Self.request(port: listener.port, timeout: .seconds(2)))
                pool.execute(probe.exchange)
                // Cancel 0-99 µs after submitting: around the loop task that starts the connect.
                let spinUntil = ContinuousClock.now + .microseconds(round % 100)
                while ContinuousClock.now < spinUntil {}
                probe.exchange.cancel(pool: pool)
                // Before the fix, a cancel between the attempt starting and being recorded still
                // ended `.cancelled`, but only when the connect timed out, 2 s later.
                let event = await probe.outcome(within: .milliseconds(500))
                guard case .failure(let error, _)? = event, error.kind == .cancelled else {
                    lost += 1
                    Issue.record("round \(round): \(String(describing: event))")
                    continue
                }
            }
            #expect(lost == 0)
            #expect(pool.openConnections(for: Self.request(port: listener.port).key) == 0)
        }

        @Test("a request still waiting for a connection at its deadline fails .timedOut")
        func deadlineWhileQueued() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.milliseconds(1200)), cannedResponse("a")])
            defer { server.stop() }
            var configuration = ConnectionPool.Configuration()
            configuration.maxConnectionsPerHost = 1
            let pool = ConnectionPool(group: .shared, configuration: configuration)
            let first = ExchangeProbe(Self.request(port: server.port))
            pool.execute(first.exchange)
            try await Task.sleep(for: .milliseconds(50))
            let start = ContinuousClock.now
            let queued = ExchangeProbe(Self.request(port: server.port, deadline: .now() + .milliseconds(300)))
            pool.execute(queued.exchange)
            let event = await queued.outcome(within: .seconds(3))
            let elapsed = milliseconds(since: start)
            guard case .failure(let error, _)? = event else {
                Issue.record("expected a failure, got \(String(describing: event))")
                return
            }
            #expect(error.kind == .timedOut, "\(error)")
            #expect(elapsed >= 280 && elapsed < 800, "failed after \(elapsed) ms")
            guard case .end? = await first.outcome(within: .seconds(3)) else {
                Issue.record("the running request must finish normally")
                return
            }
        }

        @Test("many requests over two connections, a third cancelled at random moments: each ends once, in order")
        func concurrentRequestsWithCancels() async throws {
            let steps = (0..<60).flatMap { _ in [ScriptedServer.Step.expectRequest, cannedResponse()] }
            let server = try ScriptedServer(script: steps, forEveryConnection: true)
            defer { server.stop() }
            let session = Self.session(limit: 2)
            let url = "http://127.0.0.1:\(server.port)/"
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        let request = session.request(url, requestModifier: { $0.timeoutInterval = 5 })
                        let task = request.serializingData()
                        if index % 3 == 0 {
                            try? await Task.sleep(for: .microseconds(Int64(index * 97 % 3000)))
                            request.cancel()
                        }
                        let response = await task.response
                        if response.value == Data("ok".utf8) { return "ok" }
                        if response.error?.isExplicitlyCancelledError == true { return "cancelled" }
                        return "\(response.result)"
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            let unexpected = outcomes.filter { $0 != "ok" && $0 != "cancelled" }
            #expect(unexpected.isEmpty, "\(unexpected)")
            #expect(outcomes.count(where: { $0 == "ok" }) >= 40, "only the cancelled third may fail")
            #expect(session.pool.openConnections(for: ConnectionKey(isTLS: false, host: "127.0.0.1", port: server.port)) <= 2)
        }

        /// A GET of `/` on 127.0.0.1:`port`.
        static func request(port: Int, timeout: Duration? = .seconds(5), deadline: Deadline = .distantFuture) -> TransportRequest {
            TransportRequest(
                key: ConnectionKey(isTLS: false, host: "127.0.0.1", port: port),
                head: RequestHead(method: RequestMethod("GET"), target: "/", authority: "127.0.0.1:\(port)", framing: .none),
                body: nil, isIdempotent: true, idleTimeout: timeout, connectTimeout: timeout, deadline: deadline
            )
        }
    }
}

/// An exchange whose terminal event is recorded, for tests that drive the pool directly.
final class ExchangeProbe: Sendable {
    /// Shared by the exchange's handler and the probe (a Mutex cannot be captured by value).
    private final class Box: Sendable {
        let event = Mutex<TransportEvent?>(nil)
    }

    let exchange: Exchange
    private let box: Box

    init(_ request: TransportRequest) {
        let box = Box()
        self.box = box
        exchange = Exchange(request: request, handler: { received in
            if case .head = received { return }
            if case .bodySent = received { return }
            box.event.withLock { $0 = received }
        }, bodyHandler: { _ in })
    }

    /// The end or failure, polled every 5 ms; nil if none came within `limit`.
    func outcome(within limit: Duration) async -> TransportEvent? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let done = box.event.withLock({ $0 }) { return done }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}
