// What Connector.socketSetup does to a socket before it connects, read back from the kernel:
// TCP_FASTOPEN_CONNECT, the bound local address and port, and bind's error when the port is taken.
@testable import EventLoop
import Glibc
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct SocketSetupTests {
        /// Connects to a scripted server with `setup`; the socket, or the error.
        private func open(_ setup: SocketSetup, port: Int) async -> Result<LoopBound<Socket>, SocketError> {
            var connector = Connector(timeout: .seconds(5))
            connector.socketSetup = setup
            return await connect(host: "127.0.0.1", port: port, on: EventLoopGroup.shared.next(), connector: connector)
        }

        /// An integer socket option of `socket`, read on its loop.
        private func option(_ socket: LoopBound<Socket>, level: Int32, name: Int32) async -> Int32 {
            await withCheckedContinuation { continuation in
                socket.loop.execute {
                    var value: Int32 = -1
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(socket.value.fileDescriptor, level, name, &value, &length)
                    continuation.resume(returning: value)
                }
            }
        }

        private func localAddress(_ socket: LoopBound<Socket>) async -> SocketAddress? {
            await withCheckedContinuation { continuation in
                socket.loop.execute { continuation.resume(returning: socket.value.localAddress) }
            }
        }

        private func closeSocket(_ socket: LoopBound<Socket>) {
            socket.loop.execute { socket.value.close() }
        }

        @Test("tcp fast open: TCP_FASTOPEN_CONNECT is set only when asked", arguments: [false, true])
        func fastOpen(_ on: Bool) async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let socket = try await open(SocketSetup(fastOpen: on), port: server.port).get()
            defer { closeSocket(socket) }
            // TCP_FASTOPEN_CONNECT is 30 (linux/tcp.h).
            #expect(await option(socket, level: Int32(IPPROTO_TCP), name: 30) == (on ? 1 : 0))
        }

        @Test("a local address and port range: the socket is bound there")
        func localEnd() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let port = Int.random(in: 42000...58000)
            let address = try SocketAddress(ipAddress: "127.0.0.2", port: 0)
            let socket = try await open(SocketSetup(localAddress: address, localPorts: port...(port + 20)), port: server.port).get()
            defer { closeSocket(socket) }
            let local = try #require(await localAddress(socket))
            #expect(local.ipAddress == "127.0.0.2")
            #expect((port...(port + 20)).contains(local.port))
        }

        @Test("a local port that is taken: bind's EADDRINUSE, nothing connected")
        func portTaken() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let holder = try ScriptedServer(script: [.waitForClientClose])
            defer { holder.stop() }
            let result = await open(SocketSetup(localPorts: holder.port...holder.port), port: server.port)
            guard case .failure(let error) = result else { Issue.record("connected from a taken port"); return }
            #expect(error.syscall == "bind")
            #expect(error.errno == EADDRINUSE)
            #expect(server.connectionCount == 0)
        }
    }
}
