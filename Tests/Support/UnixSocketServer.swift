// UnixSocketServer: an HTTP/1.1 responder on a Unix domain socket (a path, or a name in Linux's
// abstract namespace), for the `http+unix://` and `--unix-socket` tests. One blocking thread,
// one connection at a time; every request head gets the canned response, then the connection
// closes.
import CLinux
import Glibc
import Synchronization

/// Answers every request on a Unix domain socket with one canned response and records the heads.
public final class UnixSocketServer: Sendable {
    /// The socket's path, or the abstract name (without its leading NUL).
    public let name: String
    /// Whether `name` lives in the abstract namespace.
    public let isAbstract: Bool
    private let listenFD: Int32
    private let response: [UInt8]
    private let heads = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<TestThread?>(nil)

    /// Listens at `path` (removed first, and again on `stop()`), or at an abstract `name`.
    ///
    /// - Parameters:
    ///   - name: A file system path, or the abstract name when `abstract`.
    ///   - abstract: Use Linux's abstract namespace (no file).
    ///   - response: Sent for each request head.
    public init(name: String, abstract: Bool = false,
                response: String = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nunix") throws(TestServerError) {
        self.name = name
        self.isAbstract = abstract
        self.response = Array(response.utf8)
        if !abstract { unlink(name) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError(call: "socket", errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let start = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[start + index] = byte }
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + 1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let error = errno
            close(fd)
            throw TestServerError(call: "bind/listen", errno: error)
        }
        listenFD = fd
        thread.withLock { $0 = TestThread.start { [self] in serve() } }
    }

    /// The request heads received so far, as text.
    public var requestHeads: [String] { heads.withLock { $0 } }

    /// Stops the thread, closes the listener and removes the socket file.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        thread.withLock { $0 }?.join()
        close(listenFD)
        if !isAbstract { unlink(name) }
    }

    private func serve() {
        while !stopping.load(ordering: .acquiring) {
            var entry = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20) > 0 else { continue }
            let fd = lariat_accept_cloexec(listenFD)  // close-on-exec: tests fork fetch and curl
            guard fd >= 0 else { continue }
            var head: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                let count = recv(fd, &chunk, chunk.count, 0)
                if count <= 0 { break }
                head += chunk[0..<count]
            }
            heads.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
            _ = response.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(fd)
        }
    }
}
