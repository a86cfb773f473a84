// permessage-deflate (RFC 7692) end to end against Python `websockets` 17.4
// (scripts/ws-test-server.py): the offer and the answer, echoes that only come back right if
// both sides kept (or reset) their windows as negotiated, the window sizes a server imposes, a
// server-side bomb against maximumMessageSize; and back-pressure: a server pushing 64 MiB to a
// consumer that handles messages slowly, with the process's resident memory sampled.
#if FullFoundation
import Foundation
import Dispatch
import Synchronization
import Testing
import Wire
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("WebSocketDeflate", .serialized)
    struct WebSocketDeflateTests {
        typealias Message = URLSessionWebSocketTask.Message

        /// Sends `messages` once connected, collects as many messages back (one when none is
        /// sent), then closes (1000).
        /// Returns the messages received and the completion.
        static func echo(
            _ url: String, session: Session = Session(), configuration: WebSocketRequest.Configuration = .default,
            _ messages: [Message]
        ) async -> (received: [Message], completion: WebSocketRequest.Completion) {
            let queue = DispatchQueue(label: "ws-deflate-test")
            let received = Mutex<[Message]>([])
            let completion = await withCheckedContinuation { (done: CheckedContinuation<WebSocketRequest.Completion, Never>) in
                let request = session.webSocketRequest(to: url, configuration: configuration)
                request.streamMessageEvents(on: queue) { event in
                    switch event.kind {
                    case .connected:
                        for message in messages { request.send(message) { _ in } }
                    case .receivedMessage(let message):
                        let count = received.withLock { $0.append(message); return $0.count }
                        if count == max(messages.count, 1) { request.close(sending: .normalClosure) }
                    case .completed(let completion):
                        done.resume(returning: completion)
                    default: break
                    }
                }
            }
            return (received.withLock { $0 }, completion)
        }

        static func bytes(_ message: Message) -> [UInt8] {
            switch message {
            case .string(let text): Array(text.utf8)
            case .data(let data): Array(data)
            }
        }

        /// Messages that need the window: the same text twice (the second refers into the first
        /// under context takeover), 700 random bytes twice in one message (a match 700 bytes
        /// back, past a 512-byte window), a large compressible message, an empty one, UTF-8.
        static var sample: [Message] {
            var generator = SystemRandomNumberGenerator()
            let block = (0..<700).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(repeating: "the quick brown fox jumps over the lazy dog; ", count: 40)
            return [.string(text), .string(text), .data(Data(block + block)), .data(Data(repeating: 0x5A, count: 300_000)),
                    .string(""), .string("héllo wörld ✓ 🌍")]
        }

        static func expectEchoed(_ received: [Message], _ sent: [Message], _ completion: WebSocketRequest.Completion) {
            #expect(completion.error == nil, "\(String(describing: completion.error))")
            #expect(received.map(bytes) == sent.map(bytes))
        }

        @Test("offered by default and accepted; not offered when turned off")
        func negotiation() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (on, _) = await Self.echo(server.url("/extensions"), [])
            let answer = try #require(on.first.map(Self.bytes)).map { Character(UnicodeScalar($0)) }
            #expect(String(answer).hasPrefix("permessage-deflate"), "\(String(answer))")
            let (off, _) = await Self.echo(server.url("/extensions"), configuration: .default.perMessageDeflate(false), [])
            #expect(off.map(Self.bytes) == [Array("none".utf8)])
        }

        @Test("echo with context takeover both ways (the default), over ws and wss", arguments: [false, true])
        func echoWithTakeover(tls: Bool) async throws {
            let server = try WebSocketTestServer(tls: tls)
            defer { server.stop() }
            let sent = Self.sample
            let (received, completion) = await Self.echo(server.url("/echo"), session: try server.session(), sent)
            Self.expectEchoed(received, sent, completion)
        }

        @Test("echo with no context takeover and small windows, as the client asks")
        func echoAsked() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            var configuration = WebSocketRequest.Configuration.default
            configuration.deflate = PerMessageDeflate(requestServerNoContextTakeover: true, clientNoContextTakeover: true,
                                                      requestServerMaxWindowBits: 9, clientMaxWindowBits: 9)
            let sent = Self.sample
            let (received, completion) = await Self.echo(server.url("/echo"), configuration: configuration, sent)
            Self.expectEchoed(received, sent, completion)
        }

        @Test("echo with every parameter imposed by the server: client_max_window_bits=9, both no-context-takeovers")
        func echoImposed() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (answer, _) = await Self.echo(server.strictDeflateURL("/extensions"), [])
            let text = String(decoding: try #require(answer.first.map(Self.bytes)), as: UTF8.self)
            #expect(text.contains("client_max_window_bits=9") && text.contains("client_no_context_takeover"), "\(text)")
            let sent = Self.sample
            let (received, completion) = await Self.echo(server.strictDeflateURL("/echo"), sent)
            Self.expectEchoed(received, sent, completion)
        }

        @Test("a server's 8 MiB of zeros (8 KiB deflated) fails a 1 MiB limit with 1009; a 16 MiB limit takes it")
        func bomb() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let (refused, completion) = await Self.echo(server.url("/bomb"), [])
            #expect(refused.isEmpty)
            let error = try #require(WebSocketRequestTests.transportError(completion))
            #expect((error.underlying as? WebSocketError)?.closeCode == .messageTooBig, "\(error)")
            let (taken, _) = await Self.echo(server.url("/bomb"), configuration: .maximumMessageSize(16 << 20), [])
            #expect(taken.map { Self.bytes($0).count } == [8 << 20])
        }
    }
}
#endif
