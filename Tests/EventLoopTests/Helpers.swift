// Shared test helpers: loop bridging, a recording SocketHandler, polling.
@testable import EventLoop
import LariatTestSupport
import Testing

/// Parent of every EventLoop suite. Serialized because the leak tests count the process's
/// descriptors, which any concurrently running socket test would disturb.
@Suite(.serialized) struct EventLoopTests {}

/// Runs `body` on `loop` and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        loop.execute { continuation.resume(returning: body()) }
    }
}

/// Polls `condition` on `loop` until it holds or `timeout` passes.
func eventually(on loop: EventLoop, timeout: Duration = .seconds(5), _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await onLoop(loop, condition) { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return false
}

/// Connects with `connector` on `loop` and hands back the socket wrapped for other threads.
func connect(
    host: String, port: Int, on loop: EventLoop, connector: Connector = Connector(timeout: .seconds(5))
) async -> Result<LoopBound<Socket>, SocketError> {
    await connectTimed(host: host, port: port, on: loop, connector: connector).result
}

/// Connects as ``connect(host:port:on:connector:)`` does, and measures on the loop how long the
/// attempt took, from the call to its completion. A bound on that time is about the connector
/// alone: the hops between the test's task and the loop, which can wait behind other suites' tests
/// on Swift's cooperative pool, are outside it.
func connectTimed(
    host: String, port: Int, on loop: EventLoop, connector: Connector
) async -> (result: Result<LoopBound<Socket>, SocketError>, elapsed: Duration) {
    await withCheckedContinuation { continuation in
        loop.execute {
            let start = ContinuousClock.now
            connector.connect(host: host, port: port, on: loop) { result in
                continuation.resume(returning: (result.map { LoopBound($0, loop: loop) }, ContinuousClock.now - start))
            }
        }
    }
}

/// Connects and attaches a fresh `Recorder` with read interest on.
func connectRecording(
    host: String, port: Int, on loop: EventLoop, autoRead: Bool = true
) async throws -> (socket: LoopBound<Socket>, recorder: LoopBound<Recorder>) {
    let socket = try await connect(host: host, port: port, on: loop).get()
    let recorder = await onLoop(loop) {
        let recorder = Recorder(autoRead: autoRead)
        socket.value.handler = recorder
        socket.value.setReadInterest(true)
        return LoopBound(recorder, loop: loop)
    }
    return (socket, recorder)
}

/// A SocketHandler that records every callback and (optionally) reads everything it is offered.
final class Recorder: SocketHandler {
    var received: [UInt8] = []
    var readableCalls = 0
    var writableCalls = 0
    var hangUps: [SocketError?] = []
    var endOfStream = false
    var readError: SocketError?
    var autoRead: Bool
    /// Called on each writable callback, e.g. to continue a large write.
    var onWritable: ((Socket) -> Void)?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)

    init(autoRead: Bool) {
        self.autoRead = autoRead
    }

    deinit { buffer.deallocate() }

    func socketReadable(_ socket: Socket) {
        readableCalls += 1
        guard autoRead else { return }
        drain(socket)
    }

    /// Reads until the socket would block, stops at end of stream or error (turning read interest off).
    func drain(_ socket: Socket) {
        do {
            while true {
                switch try socket.read(into: buffer) {
                case .bytes(let count): received.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                case .wouldBlock: return
                case .endOfStream:
                    endOfStream = true
                    socket.setReadInterest(false)
                    return
                }
            }
        } catch {
            readError = error
            socket.setReadInterest(false)
        }
    }

    func socketWritable(_ socket: Socket) {
        writableCalls += 1
        onWritable?(socket)
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        hangUps.append(error)
    }
}

/// Writes `pieces` as one `writev` on the loop and returns the result.
func writev(_ pieces: [[UInt8]], to socket: LoopBound<Socket>) async -> Result<WriteResult, SocketError> {
    await onLoop(socket.loop) {
        let buffers = pieces.map { piece -> UnsafeRawBufferPointer in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
            piece.withUnsafeBytes { copy.copyMemory(from: $0) }
            return UnsafeRawBufferPointer(copy)
        }
        defer { buffers.forEach { $0.deallocate() } }
        return Result { () throws(SocketError) -> WriteResult in
            try buffers.withUnsafeBufferPointer { pointer throws(SocketError) in try socket.value.writev(pointer) }
        }
    }
}

/// Closes the socket on its loop.
func close(_ socket: LoopBound<Socket>) async {
    await onLoop(socket.loop) { socket.value.close() }
}
