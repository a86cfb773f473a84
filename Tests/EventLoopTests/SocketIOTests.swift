// Socket I/O on a live loop: resets, back-pressure, hang-ups, idle probes, partial writes.
@testable import EventLoop
import LariatTestSupport
import Synchronization
import Testing

extension EventLoopTests {
    @Suite struct SocketIOTests {
        @Test func serverResetSurfacesAsConnectionResetOnRead() async throws {
            let server = try ScriptedServer(script: [.expect("ping"), .reset])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            _ = await writev([Array("ping".utf8)], to: socket)
            #expect(await eventually(on: loop) { recorder.value.readError != nil })
            #expect(await onLoop(loop) { recorder.value.readError?.kind } == .connectionReset)
            #expect(await onLoop(loop) { recorder.value.endOfStream } == false)
            await close(socket)
        }

        @Test func gracefulCloseIsEndOfStream() async throws {
            let server = try ScriptedServer(script: [.send("bye"), .close])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            #expect(await eventually(on: loop) { recorder.value.endOfStream })
            #expect(await onLoop(loop) { recorder.value.received } == Array("bye".utf8))
            #expect(await onLoop(loop) { recorder.value.readError } == nil)
            await close(socket)
        }

        @Test func readInterestOffMeansNoReadableCallbacksUntilResumed() async throws {
            let server = try ScriptedServer(script: [.send("first"), .expect("go"), .send("second"), .waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            #expect(await eventually(on: loop) { recorder.value.received == Array("first".utf8) })
            let callsBefore = await onLoop(loop) { () -> Int in
                socket.value.setReadInterest(false)
                return recorder.value.readableCalls
            }
            _ = await writev([Array("go".utf8)], to: socket)
            // "second" arrives in the kernel buffer, but nobody is told.
            try await Task.sleep(for: .milliseconds(100))
            #expect(await onLoop(loop) { recorder.value.readableCalls } == callsBefore)
            #expect(await onLoop(loop) { socket.value.probeIdle() } == .readable)
            await onLoop(loop) { socket.value.setReadInterest(true) }
            #expect(await eventually(on: loop) { recorder.value.received == Array("firstsecond".utf8) })
            await close(socket)
        }

        @Test func resetWhileNotReadingIsDeliveredOnceAsHangUp() async throws {
            let server = try ScriptedServer(script: [.expect("x"), .reset])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            await onLoop(loop) { socket.value.setReadInterest(false) }
            _ = await writev([Array("x".utf8)], to: socket)
            #expect(await eventually(on: loop) { !recorder.value.hangUps.isEmpty })
            // Level-triggered ERR/HUP must not repeat (the socket left epoll).
            try await Task.sleep(for: .milliseconds(50))
            let hangUps = await onLoop(loop) { recorder.value.hangUps }
            #expect(hangUps.count == 1)
            #expect(hangUps.first??.kind == .connectionReset)
            #expect(await onLoop(loop) { recorder.value.readableCalls } == 0)
            // Interest changes on a hung-up socket are harmless; close still works once.
            await onLoop(loop) {
                socket.value.setReadInterest(true)
                socket.value.close()
                socket.value.close()
            }
            #expect(await onLoop(loop) { socket.value.isOpen } == false)
        }

        @Test func readinessWithoutAHandlerTurnsInterestOff() async throws {
            let server = try ScriptedServer(script: [.send("unclaimed"), .waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            #expect(await eventually(on: loop) { socket.value.probeIdle() == .readable })
            await onLoop(loop) {
                socket.value.setReadInterest(true)
                socket.value.setWriteInterest(true)
            }
            #expect(await eventually(on: loop) { !socket.value.isReadInterested && !socket.value.isWriteInterested })
            #expect(await onLoop(loop) { socket.value.probeIdle() } == .readable)  // nothing consumed the bytes
            await close(socket)
        }

        @Test func probeIdleTellsQuietFromClosed() async throws {
            let server = try ScriptedServer(script: [.expect("close now"), .close])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            #expect(await onLoop(loop) { socket.value.probeIdle() } == .idle)
            _ = await writev([Array("close now".utf8)], to: socket)
            #expect(await eventually(on: loop) { socket.value.probeIdle() == .closed })
            await close(socket)
            #expect(await onLoop(loop) { socket.value.probeIdle() } == .closed)
        }

        @Test func operationsOnAClosedSocketThrowSocketClosed() async throws {
            let server = try ScriptedServer(script: [])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            await close(socket)
            let kinds = await onLoop(loop) { () -> [SocketError.Kind?] in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
                defer { buffer.deallocate() }
                var kinds: [SocketError.Kind?] = []
                do throws(SocketError) { _ = try socket.value.read(into: buffer); kinds.append(nil) } catch { kinds.append(error.kind) }
                do throws(SocketError) { _ = try socket.value.write(UnsafeRawBufferPointer(buffer)); kinds.append(nil) } catch { kinds.append(error.kind) }
                return kinds
            }
            #expect(kinds == [.socketClosed, .socketClosed])
        }

        @Test func largeWritesUseWriteInterestUntilEverythingIsSent() async throws {
            // 8 MB is far more than the loopback send buffer, so writes go partial / would-block.
            // A prime-length pattern repeated 128 times (building 8 MiB byte by byte takes seconds in debug).
            let block = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
            let payload = repeated(block, times: 128)
            let server = try ScriptedServer(script: [.expectBytes(payload), .send("done"), .waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            await onLoop(loop) {
                final class Writer { var offset = 0; var sawWouldBlock = false }
                let writer = Writer()
                let pump: (Socket) -> Void = { socket in
                    payload.withUnsafeBytes { raw in
                        while writer.offset < raw.count {
                            // Two pieces per call to exercise writev with partial progress.
                            let middle = min(writer.offset + 100_000, raw.count)
                            let pieces = [UnsafeRawBufferPointer(rebasing: raw[writer.offset..<middle]),
                                          UnsafeRawBufferPointer(rebasing: raw[middle...])]
                            let result = try? pieces.withUnsafeBufferPointer { try socket.writev($0) }
                            switch result {
                            case .wrote(let count)?: writer.offset += count
                            case .wouldBlock?, nil:
                                writer.sawWouldBlock = true
                                socket.setWriteInterest(true)
                                return
                            }
                        }
                        socket.setWriteInterest(false)
                    }
                }
                recorder.value.onWritable = pump
                pump(socket.value)
            }
            #expect(await eventually(on: loop, timeout: .seconds(10)) { recorder.value.received == Array("done".utf8) })
            #expect(await onLoop(loop) { recorder.value.writableCalls } > 0)
            #expect(await onLoop(loop) { socket.value.isWriteInterested } == false)
            await close(socket)
            #expect(server.waitForConnections(1, finished: true))
            #expect(server.failures.first == nil)
        }

        @Test func shutdownTellsOpenSocketsAndClosesThem() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose])
            defer { server.stop() }
            let group = EventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let sink = EventSink()
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            await onLoop(loop) {
                socket.value.handler = SinkHandler(sink: sink)
                socket.value.setReadInterest(true)
            }
            group.shutdown()
            #expect(sink.events.withLock { $0 } == ["hungUp:eventLoopShutdown"])
            #expect(server.waitForConnections(1, finished: true))
            #expect(server.clientClosed(connection: 0))
            // Only the listener is left on the server's port.
            #expect(openSocketDescriptors(touchingPort: server.port).count == 1)
        }
    }
}

/// `block` concatenated `times` times (append(contentsOf:) is a memcpy even in debug builds).
func repeated(_ block: [UInt8], times: Int) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(block.count * times)
    for _ in 0..<times { result.append(contentsOf: block) }
    return result
}

/// Thread-safe record of handler callbacks, readable after the loop is gone.
final class EventSink: Sendable {
    let events = Mutex<[String]>([])
}

/// Forwards callbacks into an `EventSink`.
final class SinkHandler: SocketHandler {
    let sink: EventSink
    init(sink: EventSink) { self.sink = sink }
    func socketReadable(_ socket: Socket) { sink.events.withLock { $0.append("readable") } }
    func socketWritable(_ socket: Socket) { sink.events.withLock { $0.append("writable") } }
    func socketHungUp(_ socket: Socket, error: SocketError?) {
        sink.events.withLock { $0.append("hungUp:\(error?.kind.description ?? "nil")") }
    }
}
