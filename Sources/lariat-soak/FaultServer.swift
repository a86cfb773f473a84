// FaultServer: the soak's misbehaving peer, a raw-bytes HTTP server on loopback.
//
// One thread, one poll() loop, no per-connection state that outlives the connection (unlike the
// test suite's ScriptedServer, which records every connection and would grow the process's RSS
// over a long soak). The request path picks the fault; a connection whose first byte is a TLS
// handshake record (0x16) is reset at once, which makes an https handshake fail mid-way.
import Glibc
import Synchronization

/// The faults the server plays, chosen by request path (`/reset`, `/stall`, …).
enum Fault: String, CaseIterable, Sendable {
    /// Reads the request head, then resets the connection (`SO_LINGER` 0, RST).
    case reset
    /// Reads the request head and never answers; closes only when the client does (or after 30 s).
    case stall
    /// Answers with bytes that are not an HTTP/1.1 response.
    case malformed
    /// Answers a head with `Content-Length: 1000`, sends 10 bytes of body, then closes.
    case truncated
}

/// A single-threaded loopback server that answers every request with a fault. Call ``stop()``.
final class FaultServer: Sendable {
    /// The listening port (127.0.0.1).
    let port: Int
    private let listenFD: Int32
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    /// Listens on an ephemeral loopback port and starts the serving thread.
    init() throws(SoakError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SoakError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            let code = errno
            close(fd)
            throw SoakError("bind/listen: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let created = pthread_create(&handle, nil, { raw in
            let server = Unmanaged<FaultServer>.fromOpaque(raw!).takeRetainedValue()
            server.serve()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            box.release()
            close(fd)
            throw SoakError("pthread_create: \(created)")
        }
        thread.withLock { $0 = handle }
    }

    /// Stops the loop, joins its thread and closes every descriptor it held.
    func stop() {
        stopping.store(true, ordering: .releasing)
        if let handle = thread.withLock({ value -> pthread_t? in defer { value = nil }; return value }) {
            pthread_join(handle, nil)
        }
    }

    /// One accepted connection: what it has read so far and, once stalled, when to give up.
    private struct Peer {
        var fd: Int32
        var head: [UInt8] = []
        var stalledSince: timespec? = nil
    }

    /// The poll loop: accept, read heads, play faults. Runs until ``stop()``.
    private func serve() {
        var peers: [Peer] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .acquiring) {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            fds += peers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), 20)
            if ready < 0 && errno != EINTR { break }
            // Peers polled this round come first; one accepted now is appended after them.
            var index = fds.count - 2
            if fds[0].revents != 0 {
                let client = accept(listenFD, nil, nil)
                if client >= 0 { peers.append(Peer(fd: client)) }
            }
            while index >= 0 {
                defer { index -= 1 }
                if fds[index + 1].revents != 0 {
                    let count = read(peers[index].fd, &buffer, buffer.count)
                    if count <= 0 {
                        close(peers[index].fd)
                        peers.remove(at: index)
                        continue
                    }
                    if peers[index].stalledSince != nil { continue }  // stalled: ignore further bytes
                    if peers[index].head.isEmpty && buffer[0] == 0x16 {
                        reset(peers[index].fd)
                        peers.remove(at: index)
                        continue
                    }
                    peers[index].head += buffer[0..<count]
                    if let fault = Self.fault(inHead: peers[index].head) {
                        if play(fault, on: peers[index].fd) {
                            peers.remove(at: index)
                        } else {
                            peers[index].stalledSince = Self.now()
                        }
                    }
                } else if let since = peers[index].stalledSince, Self.now().tv_sec - since.tv_sec > 30 {
                    close(peers[index].fd)
                    peers.remove(at: index)
                }
            }
        }
        for peer in peers { close(peer.fd) }
        close(listenFD)
    }

    /// The fault a complete request head asks for, or nil while the head is incomplete.
    private static func fault(inHead head: [UInt8]) -> Fault? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard head.count >= 4, (0...(head.count - 4)).contains(where: { Array(head[$0..<$0 + 4]) == end }) else {
            return nil
        }
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        return Fault(rawValue: String(path.dropFirst())) ?? .malformed
    }

    /// Plays `fault` on `fd`. Returns whether the connection is finished (closed); `false` for a stall.
    private func play(_ fault: Fault, on fd: Int32) -> Bool {
        switch fault {
        case .reset:
            reset(fd)
        case .stall:
            return false
        case .malformed:
            send(fd, "HTTP/1.1 2xx Fine\r\nContent-Length: banana\r\n\0\r\n\r\n")
            close(fd)
        case .truncated:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
            close(fd)
        }
        return true
    }

    /// Closes `fd` with `SO_LINGER` 0, so the peer gets RST.
    private func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    /// Writes `text` (best effort: the peer may already be gone).
    private func send(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// The monotonic clock.
    private static func now() -> timespec {
        var value = timespec()
        clock_gettime(CLOCK_MONOTONIC, &value)
        return value
    }
}
