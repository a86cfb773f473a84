// peer-ws-nio: the WebSocket echo row's reference (issue 22), swift-nio's own WebSocket client
// as NIO's documentation shows it: `ClientBootstrap` with the typed HTTP upgrade
// (`NIOTypedWebSocketClientUpgrader`), the upgraded channel wrapped in a
// `NIOAsyncChannel<WebSocketFrame, WebSocketFrame>` and used inside `executeThenClose`; each
// message one masked binary frame (a random masking key per frame, as RFC 6455 requires and as
// Lariat does). The singleton event loop group, as the NIO examples use.
import BenchSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

struct NotUpgraded: Error {}
struct ClosedEarly: Error {}

/// One upgraded connection: the outbound writer and the inbound iterator of `executeThenClose`.
struct NIOEchoConnection: EchoConnection {
    let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    var inbound: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    let allocator = ByteBufferAllocator()

    mutating func roundTrip(_ payload: [UInt8]) async throws -> Int {
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: allocator.buffer(bytes: payload))
        try await outbound.write(frame)
        // 1 KiB messages are never fragmented by the echo server: one frame is one message.
        while let frame = try await inbound.next() {
            switch frame.opcode {
            case .binary, .text: return frame.data.readableBytes
            case .connectionClose: throw ClosedEarly()
            default: continue
            }
        }
        throw ClosedEarly()
    }
}

struct NIOEchoClient: EchoClient {
    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    func withConnection(to url: String, _ body: (inout any EchoConnection) async throws -> Void) async throws {
        let (host, port, path) = try parse(url)
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: 1 << 20,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                            }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .notUpgraded } })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard case .websocket(let channel) = try await upgrade.get() else { throw NotUpgraded() }
        try await channel.executeThenClose { inbound, outbound in
            var connection: any EchoConnection = NIOEchoConnection(outbound: outbound, inbound: inbound.makeAsyncIterator())
            try await body(&connection)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer(bytes: [0x03, 0xE8]))
            try await outbound.write(close)
        }
    }

    /// `ws://host:port/path` into its parts.
    private func parse(_ url: String) throws -> (String, Int, String) {
        guard url.hasPrefix("ws://") else { throw ValidationFailure("not a ws:// URL: \(url)") }
        let rest = url.dropFirst(5)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else {
            throw ValidationFailure("no port in \(url)")
        }
        return (String(authority[..<colon]), port, path.isEmpty ? "/" : String(path))
    }
}

await echoMain(name: "ws-nio", client: NIOEchoClient())
