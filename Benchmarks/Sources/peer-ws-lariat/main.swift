// peer-ws-lariat: the WebSocket echo row (issue 22) on Lariat's Alamofire-shaped API: one
// `Session` (default configuration), `webSocketRequest(to:)` with the default configuration
// (permessage-deflate offered; the echo server declines it), its async face
// `webSocketTask()`: `send(.data(_:))`, then the next element of `streamingMessages()`.
import BenchSupport
import Client
import Foundation  // not FoundationNetworking: Client provides the Foundation stand-ins itself

struct ClosedEarly: Error {}

/// One WebSocketRequest: its task and the iterator of its messages.
struct LariatEchoConnection: EchoConnection {
    let task: WebSocketTask
    var messages: StreamOf<URLSessionWebSocketTask.Message>.AsyncIterator

    mutating func roundTrip(_ payload: [UInt8]) async throws -> Int {
        try await task.send(.data(Data(payload)))
        guard let message = await messages.next() else { throw ClosedEarly() }
        switch message {
        case .data(let data): return data.count
        case .string(let text): return text.utf8.count
        }
    }
}

struct LariatEchoClient: EchoClient {
    let session = Session()

    func withConnection(to url: String, _ body: (inout any EchoConnection) async throws -> Void) async throws {
        let task = session.webSocketRequest(to: url).webSocketTask()
        var connection: any EchoConnection = LariatEchoConnection(task: task, messages: task.streamingMessages().makeAsyncIterator())
        try await body(&connection)
        task.close(sending: .normalClosure)
    }
}

await echoMain(name: "ws-lariat", client: LariatEchoClient())
