// WebSocketRequest's async face (Alamofire's WebSocketTask) against Python `websockets`
// (scripts/ws-test-server.py), written as an Alamofire user would: `@_spi(WebSocket) import`
// and public API only, so this file also proves the SPI import compiles.
#if FullFoundation
import Foundation
import Synchronization
import Testing
@_spi(WebSocket) import Client

extension ClientIntegrationTests {
    @Suite("WebSocketTask", .serialized)
    struct WebSocketTaskTests {
        @Test("streamingMessageEvents: connected, the echoes of async sends, disconnected, completed")
        func events() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let task = retained(Session()).webSocketRequest(to: server.url("/echo")).webSocketTask()
            var log: [String] = []
            for await event in task.streamingMessageEvents() {
                switch event.kind {
                case .connected(let chosen):
                    log.append("connected(\(chosen ?? "-"))")
                    try await task.send(.string("one"))
                    try await task.send(.data(Data([1, 2, 3])))
                case .receivedMessage(.string(let text)):
                    log.append("text(\(text))")
                case .receivedMessage(.data(let data)):
                    log.append("binary(\(data.count))")
                    task.close(sending: .goingAway, reason: Data("bye".utf8))
                case .disconnected(let code, _):
                    log.append("disconnected(\(code.rawValue))")
                case .completed(let completion):
                    log.append("completed(\(completion.error == nil ? "ok" : "error"))")
                case .serializerFailed:
                    log.append("serializerFailed")
                }
            }
            #expect(log == ["connected(-)", "text(one)", "binary(3)", "disconnected(1001)", "completed(ok)"])
        }

        @Test("streamingMessages ends when the server closes; streamingDecodable skips what does not decode")
        func messagesAndDecodables() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let closing = retained(Session()).webSocketRequest(to: server.url("/close")).webSocketTask()
            // Making the iterator adds the handler, which starts the request; then send.
            var closingMessages = closing.streamingMessages().makeAsyncIterator()
            try await closing.send(.string("close please"))
            var messages = 0
            while await closingMessages.next() != nil { messages += 1 }
            #expect(messages == 0)

            struct Greeting: Decodable, Sendable { var hello: String }
            let echo = retained(Session()).webSocketRequest(to: server.url("/echo")).webSocketTask()
            var greetings = echo.streamingDecodable(Greeting.self).makeAsyncIterator()
            for text in [#"{"hello":"world"}"#, "not json", #"{"hello":"again"}"#] { try await echo.send(.string(text)) }
            var values: [String] = []
            while let greeting = await greetings.next() {
                values.append(greeting.hello)
                if values.count == 2 { echo.close(sending: .normalClosure) }
            }
            #expect(values == ["world", "again"])
        }

        @Test("a consumer that stops iterating cancels the request (automaticallyCancelling)")
        func stopping() async throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let request = retained(Session()).webSocketRequest(to: server.url("/echo"))
            let task = request.webSocketTask()
            var messages = task.streamingMessages().makeAsyncIterator()
            try await task.send(.string("first"))
            _ = await messages.next()
            messages = task.streamingMessages().makeAsyncIterator()  // the first iterator goes away
            let deadline = Date().addingTimeInterval(5)
            while !request.isCancelled && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(request.isCancelled)
        }
    }
}
#endif
