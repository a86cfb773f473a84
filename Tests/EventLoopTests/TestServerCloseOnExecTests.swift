// The tests' servers accept with close-on-exec set by the accept itself. The suites fork fetch
// and curl while other tests' servers hold connections: a child that inherited one keeps it open
// until it exits, so the server's peer never sees the close it waits for. (The scripted server set
// the flag one call after its accept; the proxy, TLS and Unix-socket servers never set it.)
import Glibc
import Testing
import LariatTestSupport

@Suite("Test servers: accepted connections are close-on-exec")
struct TestServerCloseOnExecTests {
    enum Server: String, CaseIterable, CustomTestStringConvertible {
        case scripted, httpProxy, socksProxy
        var testDescription: String { rawValue }
    }

    @Test("every descriptor on the server's port is close-on-exec once a client connected", arguments: Server.allCases)
    func acceptedDescriptorIsCloseOnExec(server: Server) throws {
        let port: Int
        let stop: () -> Void
        switch server {
        case .scripted:
            let scripted = try ScriptedServer(script: [.expectRequest, cannedResponse("x")])
            (port, stop) = (scripted.port, scripted.stop)
        case .httpProxy, .socksProxy:
            let proxy = try TestProxyServer(kind: server == .httpProxy ? .http : .socks5)
            (port, stop) = (proxy.port, proxy.stop)
        }
        defer { stop() }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(client >= 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        // The listener, this client and the server's accepted connection.
        var descriptors: [Int32] = []
        for _ in 0..<300 {
            descriptors = openSocketDescriptors(touchingPort: port)
            if descriptors.count >= 3 { break }
            usleep(10_000)
        }
        #expect(descriptors.count == 3, "the server did not accept: \(descriptors)")
        for fd in descriptors {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(fd) on port \(port) is inherited by every child the tests fork")
        }
    }
}
