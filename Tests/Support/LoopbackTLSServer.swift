// A TLS server on a real loopback socket, built on the in-repo sans-I/O TLSServerConnection, that
// records what it saw: how many handshakes completed, the SNI names asked for, and every
// application byte it decrypted. For proofs about what a client sent *before* it decided to trust
// the server (pinning must refuse before the first request byte). One blocking thread; one
// connection at a time; answers each request head with a canned response.
#if FullFoundation
import Foundation
import CLinux
import Glibc
import Synchronization
import TLS

package final class LoopbackTLSServer: Sendable {
    /// What the server saw, across connections.
    package struct Observation: Sendable {
        package var connections = 0
        package var handshakesCompleted = 0
        package var serverNames: [String?] = []
        /// Decrypted application bytes, all connections.
        package var plaintext: [UInt8] = []
        /// How each handshake or connection failed, as text.
        package var failures: [String] = []
    }

    package let port: Int
    private let listenFD: Int32
    private let context: TLSServerContext
    private let response: [UInt8]
    private let answerAtHandshake: Bool
    private let followUp: [UInt8]
    private let state = Mutex(Observation())
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts serving on 127.0.0.1, an ephemeral port.
    ///
    /// - Parameters:
    ///   - certificateFile: PEM chain, leaf first.
    ///   - keyFile: the leaf's key.
    ///   - response: sent (encrypted) once a request head has arrived; a small 200 by default.
    ///   - answerAtHandshake: also send `response` the moment the handshake completes, before any
    ///     request arrived, so it leaves in the same write as the server's last handshake flight
    ///     (TLS 1.2: ChangeCipherSpec, Finished and the response in one segment).
    ///   - followUp: sent right after each response as a TLS record of its own, in the same
    ///     segment: bytes the client must not take for the next response.
    package init(certificateFile: String, keyFile: String, response: String = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
         answerAtHandshake: Bool = false, followUp: String = "") throws {
        self.answerAtHandshake = answerAtHandshake
        self.followUp = Array(followUp.utf8)
        context = try TLSServerContext(TLSServerContext.Options(
            certificateChain: try Certificate.load(pemFile: certificateFile), privateKey: try PrivateKey.load(file: keyFile)))
        self.response = Array(response.utf8)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 16) == 0 else {
            if fd >= 0 { close(fd) }
            throw HTTPSLab.Failure(description: "LoopbackTLSServer cannot listen: errno \(errno)")
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            acceptLoop()
            finished.signal()
        }
    }

    /// What has been seen so far.
    package var observation: Observation { state.withLock { $0 } }

    /// Stops the thread (within about 20 ms) and closes the listener.
    package func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        close(listenFD)
    }

    // MARK: Serving

    private func acceptLoop() {
        while !stopping.load(ordering: .acquiring) {
            guard LoopbackTLSServer.readable(listenFD) else { continue }
            let fd = lariat_accept_cloexec(listenFD)  // close-on-exec: tests fork fetch and curl
            guard fd >= 0 else { continue }
            state.withLock { $0.connections += 1 }
            serve(fd)
            close(fd)
        }
    }

    /// Runs one connection until the client closes, the handshake fails, or the server stops.
    private func serve(_ fd: Int32) {
        let connection: TLSServerConnection
        do { connection = try TLSServerConnection(context: context) } catch {
            state.withLock { $0.failures.append("\(error)") }
            return
        }
        var established = false
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)

        /// Advances the handshake or reads plaintext; false when the connection is over.
        func process() -> Bool {
            if !established {
                switch connection.handshake() {
                case .complete:
                    established = true
                    if answerAtHandshake { Self.writeAll(connection, response, to: fd) }
                    state.withLock {
                        $0.handshakesCompleted += 1
                        $0.serverNames.append(connection.requestedServerName)
                    }
                case .incomplete: return true
                case .failed(let error):
                    state.withLock { $0.failures.append("handshake: \(error)") }
                    return false
                }
            }
            while true {
                let result = buffer.withUnsafeMutableBytes { connection.read(into: $0) }
                switch result {
                case .bytes(let count):
                    let bytes = Array(buffer[0..<count])
                    head += bytes
                    state.withLock { $0.plaintext += bytes }
                    if head.count >= 4, head.suffix(4) == Array("\r\n\r\n".utf8) {
                        head.removeAll()
                        if !answerAtHandshake { Self.writeAll(connection, response, to: fd) }
                        if !followUp.isEmpty { _ = connection.write(followUp) }
                    }
                case .incomplete: return true
                case .closed: return false
                case .failed(let error):
                    state.withLock { $0.failures.append("read: \(error)") }
                    return false
                }
            }
        }

        while !stopping.load(ordering: .acquiring) {
            LoopbackTLSServer.sendAll(fd, connection.takeCiphertext())
            guard LoopbackTLSServer.readable(fd) else { continue }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 {
                connection.receiveEndOfStream()
                _ = process()
                return
            }
            var offset = 0
            while offset < count {
                offset += connection.receiveCiphertext(Array(chunk[offset..<count]))
                guard process() else {
                    LoopbackTLSServer.sendAll(fd, connection.takeCiphertext())  // the alert, if any
                    return
                }
            }
        }
    }

    /// Hands every byte of `bytes` to the engine: a write takes one record at a time (a large
    /// response used to be cut to its first 16 KiB).
    /// Ciphertext goes to `fd` (blocking) only when the engine's buffer is full, so a small
    /// response and a follow-up still leave in one segment, and a slow reader holds a large one back.
    private static func writeAll(_ connection: TLSServerConnection, _ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBufferPointer { connection.write(Array($0[offset..<min(bytes.count, offset + 64 * 1024)])) }
            switch result {
            case .written(let n) where n > 0: offset += n
            case .incomplete: sendAll(fd, connection.takeCiphertext())  // the engine's buffer is full
            default: return
            }
        }
    }

    private static func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 20) > 0
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }
}
#endif
