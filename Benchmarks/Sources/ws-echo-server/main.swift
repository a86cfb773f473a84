// ws-echo-server: the WebSocket echo row's server (issue 22). swift-nio's WebSocket server on a
// one-thread event loop group: HTTP/1.1 upgrade (`NIOWebSocketServerUpgrader`, no extensions, so
// no compression), then every data frame sent back as it came (opcode and fin kept, unmasked),
// pings answered, a close echoed and the connection closed. Listens on 127.0.0.1, an ephemeral
// port unless `--port N`; prints `LARIAT_WS_ECHO=ws://127.0.0.1:PORT/` once listening, then
// runs until killed (the runner stops it by PID).
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
#if canImport(Glibc)
import Glibc
#endif

/// Echoes data frames, answers pings, completes the close handshake.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary, .text, .continuation:
            let reply = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
            context.write(wrapOutboundOut(reply), promise: nil)
        case .ping:
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(close), promise: nil)
            context.close(promise: nil)
        default:
            break
        }
    }

    /// One flush per read batch: replies to frames that arrived together leave together.
    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

var port = 0
if let index = CommandLine.arguments.firstIndex(of: "--port"), index + 1 < CommandLine.arguments.count {
    port = Int(CommandLine.arguments[index + 1]) ?? 0
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let upgrader = NIOWebSocketServerUpgrader(
    maxFrameSize: 1 << 20,
    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
    upgradePipelineHandler: { channel, _ in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
    })
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        }
    }
    .bind(host: "127.0.0.1", port: port).get()
// Straight to fd 1: the runner reads this line from a pipe, where print() would sit in stdio's buffer.
let ready = Array("LARIAT_WS_ECHO=ws://127.0.0.1:\(channel.localAddress?.port ?? 0)/\n".utf8)
_ = ready.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
try await channel.closeFuture.get()
