// WebSocketRequest against real servers on loopback (scripts/ws-test-server.py): Python's
// `websockets` for the conforming paths, and a hand-written server that breaks the protocol on
// purpose (bad Sec-WebSocket-Accept, masked frames, an oversized frame, an abrupt close, a 404).
// Over ws:// and wss:// (the HTTPS lab's certificate).
#if FullFoundation
import Foundation
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
import Wire
@testable import Client
@testable import Transport

extension ClientIntegrationTests {
    @Suite("WebSocketRequest", .serialized)
    struct WebSocketRequestTests {
        typealias Event = WebSocketRequest.Event<URLSessionWebSocketTask.Message, Never>

        /// What a scenario does when an event arrives (on the handler's queue).
        typealias Reaction = @Sendable (Event, WebSocketRequest) -> Void

        /// Runs a request to `path` and returns its events spelled for a table, plus the completion.
        static func run(
            _ server: WebSocketTestServer, _ path: String, raw: Bool = false, session: Session? = nil,
            configuration: WebSocketRequest.Configuration = .default, react: @escaping Reaction = { _, _ in }
        ) async throws -> (events: [String], completion: WebSocketRequest.Completion) {
            let session = session ?? Session()
            let queue = DispatchQueue(label: "ws-test")
            let log = Mutex<[String]>([])
            let completion = await withCheckedContinuation { (done: CheckedContinuation<WebSocketRequest.Completion, Never>) in
                let request = session.webSocketRequest(to: server.url(path, raw: raw), configuration: configuration)
                request.streamMessageEvents(on: queue) { event in
                    log.withLock { $0.append(Self.spell(event.kind)) }
                    if case .completed(let completion) = event.kind { return done.resume(returning: completion) }
                    react(event, request)
                }
            }
            return (log.withLock { $0 }, completion)
        }

        static func spell(_ kind: Event.Kind) -> String {
            switch kind {
            case .connected(let chosen): "connected(\(chosen ?? "-"))"
            case .receivedMessage(.string(let text)): "text(\(text))"
            case .receivedMessage(.data(let data)): "binary(\(data.count))"
            case .disconnected(let code, let reason): "disconnected(\(code.rawValue), \(reason.map { String(decoding: $0, as: UTF8.self) } ?? "-"))"
            case .completed(let completion): "completed(\(completion.error == nil ? "ok" : "error"))"
            }
        }

        /// The transport error under a completion's AFError.
        static func transportError(_ completion: WebSocketRequest.Completion) -> TransportError? {
            (completion.error?.underlyingError as? URLError)?.underlyingError as? TransportError
        }

        @Test("echo: text and binary messages, then a close handshake we start", arguments: [false, true])
        func echo(tls: Bool) async throws {
            let server = try WebSocketTestServer(tls: tls)
            defer { server.stop() }
            let received = Mutex(0)
            let (events, completion) = try await Self.run(server, "/echo", session: server.session()) { event, request in
                switch event.kind {
                case .connected:
                    request.send(.string("hello")) { _ in }
                    request.send(.data(Data(repeating: 7, count: 70_000))) { _ in }
                case .receivedMessage:
                    if received.withLock({ $0 += 1; return $0 }) == 2 { request.close(sending: .normalClosure, reason: Data("done".utf8)) }
                default: break
                }
            }
            #expect(events == ["connected(-)", "text(hello)", "binary(70000)", "disconnected(1000, done)", "completed(ok)"])
            #expect(completion.response?.statusCode == 101)
        }

        @Test("a message in three fragments arrives whole")
        func fragmented() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, _) = try await Self.run(server, "/fragmented") { event, request in
                if event.message != nil { request.close(sending: .goingAway) }
            }
            #expect(events == ["connected(-)", "text(Hello, fragmented world)", "disconnected(1001, -)", "completed(ok)"])
        }

        @Test("the server's ping is answered; our ping gets its pong")
        func pingPong() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let pong = Mutex<String?>(nil)
            let (events, _) = try await Self.run(server, "/ping") { event, request in
                guard event.message != nil else { return }
                request.sendPing(respondingOn: DispatchQueue(label: "pong")) { response in
                    if case .pong(let answer) = response { pong.withLock { $0 = "pong \(answer.latency >= 0)" } }
                    request.close(sending: .normalClosure)
                }
            }
            #expect(events == ["connected(-)", "text(pong received)", "disconnected(1000, -)", "completed(ok)"])
            #expect(pong.withLock { $0 } == "pong true")
        }

        @Test("the server closes: its code and reason are reported, the request succeeds")
        func serverCloses() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/close") { event, request in
                if case .connected = event.kind { request.send(.string("x")) { _ in } }
            }
            // 4001 is a private-use code: Foundation's CloseCode has no case for it (`.invalid`).
            #expect(events == ["connected(-)", "disconnected(0, bye)", "completed(ok)"])
            #expect(completion.error == nil)
        }

        @Test("messages the server sent before seeing our close are delivered, then its close (issue 22)")
        func messagesAfterOurClose() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/late", raw: true) { event, request in
                if case .connected = event.kind { request.close(sending: .normalClosure) }
            }
            #expect(events == ["connected(-)", "text(late 1)", "text(late 2)", "disconnected(1000, bye)", "completed(ok)"])
            #expect(completion.error == nil)
        }

        @Test("the subprotocol the server chose is reported")
        func subprotocol() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, _) = try await Self.run(server, "/subprotocol", configuration: .protocol("superchat, other")) { event, request in
                if event.message != nil { request.close(sending: .normalClosure) }
            }
            #expect(events == ["connected(superchat)", "text(superchat)", "disconnected(1000, -)", "completed(ok)"])
        }

        @Test("a message over maximumMessageSize fails the connection with 1009", arguments: [false, true])
        func oversized(realServer: Bool) async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = realServer
                ? try await Self.run(server, "/echo", configuration: .maximumMessageSize(16)) { event, request in
                    if case .connected = event.kind { request.send(.string(String(repeating: "a", count: 100))) { _ in } }
                }
                : try await Self.run(server, "/oversized", raw: true)
            #expect(events == ["connected(-)", "completed(error)"])
            let error = try #require(Self.transportError(completion))
            #expect(error.kind == .malformedResponse)
            #expect((error.underlying as? WebSocketError)?.closeCode == .messageTooBig, "\(error)")
        }

        @Test("a connection lost without a close frame reports 1006 and fails")
        func abrupt() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/abrupt", raw: true)
            #expect(events == ["connected(-)", "text(hi)", "disconnected(1006, -)", "completed(error)"])
            #expect(Self.transportError(completion)?.kind == .connectionLost)
        }

        @Test("a wrong Sec-WebSocket-Accept is refused before any event")
        func badAccept() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/bad-accept", raw: true)
            #expect(events == ["completed(error)"])
            let error = try #require(Self.transportError(completion))
            #expect((error.underlying as? WebSocketHandshakeError)?.reason == .accept, "\(error)")
        }

        @Test("a masked frame from the server is a protocol error (1002)")
        func maskedFrame() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/masked", raw: true)
            #expect(events == ["connected(-)", "completed(error)"])
            let error = try #require(Self.transportError(completion))
            #expect((error.underlying as? WebSocketError)?.code == .maskedFrame, "\(error)")
        }

        @Test("a refused upgrade (404) fails with badServerResponse")
        func refused() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/refuse", raw: true)
            #expect(events == ["completed(error)"])
            #expect(completion.response?.statusCode == 404)
            #expect((completion.error?.underlyingError as? URLError)?.code == .badServerResponse)
        }

        @Test("automatic pings: a server that never answers fails the connection (timed out, 1006)")
        func pingTimeout() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let start = ContinuousClock.now
            let (events, completion) = try await Self.run(server, "/silent", raw: true, configuration: .pingInterval(0.2))
            #expect(events == ["connected(-)", "disconnected(1006, -)", "completed(error)"])
            #expect(Self.transportError(completion)?.kind == .timedOut)
            #expect(ContinuousClock.now - start < .seconds(3))
        }

        @Test("automatic pings answered: the connection outlives several intervals")
        func pingKeepsAlive() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, _) = try await Self.run(server, "/echo", configuration: .pingInterval(0.1)) { event, request in
                switch event.kind {
                case .connected:
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.6) { request.send(.string("still here")) { _ in } }
                case .receivedMessage: request.close(sending: .normalClosure)
                default: break
                }
            }
            #expect(events == ["connected(-)", "text(still here)", "disconnected(1000, -)", "completed(ok)"])
        }

        @Test("cancel closes an open connection at once")
        func cancel() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (events, completion) = try await Self.run(server, "/echo") { event, request in
                if case .connected = event.kind { request.cancel() }
            }
            #expect(events == ["connected(-)", "completed(error)"])
            #expect(completion.error?.isExplicitlyCancelledError == true)
        }

        @Test("streamDecodable decodes JSON messages")
        func decodable() async throws {
            struct Greeting: Decodable, Sendable { var hello: String }
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let session = Session()
            let values = Mutex<[String]>([])
            let request = session.webSocketRequest(to: server.url("/echo"))
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                request.streamDecodableEvents(Greeting.self, on: DispatchQueue(label: "decode")) { event in
                    switch event.kind {
                    case .connected: request.send(.string(#"{"hello":"world"}"#)) { _ in }
                    case .receivedMessage(let greeting):
                        values.withLock { $0.append(greeting.hello) }
                        request.close(sending: .normalClosure)
                    case .completed: done.resume()
                    default: break
                    }
                }
            }
            #expect(values.withLock { $0 } == ["world"])
        }
    }
}

/// scripts/ws-test-server.py on two free loopback ports, over TLS with the HTTPS lab's
/// certificate when asked; stopped (by PID) by ``stop()``.
final class WebSocketTestServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    let rawPort: Int
    /// The server imposing every permessage-deflate parameter (scripts/ws-test-server.py).
    let deflatePort: Int
    let tls: Bool

    init(tls: Bool = false) throws {
        self.tls = tls
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        port = try HTTPSServer.freePort()
        rawPort = try HTTPSServer.freePort()
        deflatePort = try HTTPSServer.freePort()
        process.executableURL = root.appendingPathComponent(".build-venv/bin/python")
        var arguments = [root.appendingPathComponent("scripts/ws-test-server.py").path, "--port", "\(port)", "--raw-port", "\(rawPort)", "--deflate-port", "\(deflatePort)"]
        if tls {
            let lab = try HTTPSLab.shared.get()
            arguments += ["--cert", lab.path("server.pem"), "--key", lab.path("server.key")]
        }
        process.arguments = arguments
        try process.run()
        // It listens in about 0.15 s. Under ThreadSanitizer on CI it once was not listening after
        // 10 s (a CI rehearsal, session 15), so the wait is long; a server that exits ends it at once.
        let start = Date()
        let ports = [port, rawPort, deflatePort]
        while !ports.allSatisfy({ HTTPSServer.canConnect(port: $0) }) {
            guard Date().timeIntervalSince(start) < 60, process.isRunning else {
                let listening = ports.filter { HTTPSServer.canConnect(port: $0) }
                let running = process.isRunning
                stop()
                throw HTTPSLab.Failure(description: """
                    ws-test-server.py did not start (is `websockets` in .build-venv? scripts/install-test-deps.sh): \
                    after \(Date().timeIntervalSince(start)) s, running: \(running), listening on \(listening) of \(ports)
                    """)
            }
            usleep(20_000)
        }
    }

    /// The URL of `path` on the conforming server, or on the misbehaving one (`raw`).
    func url(_ path: String, raw: Bool = false) -> String {
        "\(tls ? "wss" : "ws")://127.0.0.1:\(raw ? rawPort : port)\(path)"
    }

    /// The URL of `path` on the server that imposes permessage-deflate's parameters.
    func strictDeflateURL(_ path: String) -> String {
        "\(tls ? "wss" : "ws")://127.0.0.1:\(deflatePort)\(path)"
    }

    /// A session trusting the lab's root for wss; a default one for ws.
    func session() throws -> Session {
        guard tls else { return Session() }
        var configuration = TLSConfiguration()
        configuration.trustRoots = .file(try HTTPSLab.shared.get().path("ca.pem"))
        return Session(tlsConfiguration: configuration)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
#endif
