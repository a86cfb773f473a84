// LoopbackResponder: a keep-alive HTTP/1.1 server on 127.0.0.1 that answers every request with
// the same canned bytes, for the Session round-trip benchmark. It needs no nginx and, after a
// connection is accepted, allocates nothing: mallocs are counted process-wide, so whatever the
// benchmark reports per request is the client's alone.
//
// One acceptor thread and one blocking thread per connection, each reading into a buffer
// allocated once and counting requests by their CRLF CRLF terminator (bodiless requests only,
// which is what the benchmark sends). The threads live as long as the process.
import Foundation
import Glibc

/// A loopback server answering each bodiless request with `response`.
final class LoopbackResponder: Sendable {
    /// The listening port on 127.0.0.1.
    let port: Int
    private let listenFD: Int32
    private let response: [UInt8]

    /// Listens on an ephemeral loopback port and starts accepting.
    ///
    /// - Parameter response: The bytes sent for every request (a complete response).
    init(response: [UInt8]) {
        self.response = response
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0, "socket failed: errno \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0 && listen(fd, 64) == 0, "bind/listen failed: errno \(errno)")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            Thread.detachNewThread { [self] in serve(fd) }
        }
    }

    /// Answers requests on `fd` until the client closes it.
    private func serve(_ fd: Int32) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer {
            buffer.deallocate()
            close(fd)
        }
        // How much of CR LF CR LF the bytes so far end with (0...3); survives split reads.
        var matched = 0
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var requests = 0
            for byte in buffer[..<count] {
                let expected: UInt8 = matched % 2 == 0 ? 13 : 10
                if byte == expected {
                    matched += 1
                    if matched == 4 { requests += 1; matched = 0 }
                } else {
                    matched = byte == 13 ? 1 : 0
                }
            }
            for _ in 0..<requests where !sendAll(fd) { return }
        }
    }

    private func sendAll(_ fd: Int32) -> Bool {
        response.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }
}
