// The HAProxy PROXY protocol v1 line (curl's `--haproxy-protocol`): the first bytes on each new
// connection, before TLS and before a proxy's tunnel handshake, telling the server the client's
// address as this end sees it. curl 7.88 sends the same line:
//
//   PROXY TCP4 <local ip> <peer ip> <local port> <peer port>\r\n   (TCP6 for IPv6)
//   PROXY UNKNOWN\r\n                                              (a Unix socket)

import EventLoop

enum PROXYProtocolHeader {
    /// The line for a connection from `local` to `remote`.
    static func line(local: SocketAddress?, remote: SocketAddress) -> String {
        guard let local, remote.family != .unix, local.family == remote.family else { return "PROXY UNKNOWN\r\n" }
        let version = remote.family == .ipv6 ? "TCP6" : "TCP4"
        return "PROXY \(version) \(local.ipAddress) \(remote.ipAddress) \(local.port) \(remote.port)\r\n"
    }

    /// Writes the line on `socket`, freshly connected (its send buffer is empty, so the at most
    /// 107 bytes go in one write). Loop-only.
    /// - Throws: the write's `SocketError`; a short write is one of kind `socketClosed`.
    static func send(on socket: Socket) throws(SocketError) {
        let bytes = Array(line(local: socket.localAddress, remote: socket.remoteAddress).utf8)
        let outcome = bytes.withUnsafeBytes { buffer in Result { () throws(SocketError) -> WriteResult in try socket.write(buffer) } }
        let result = try outcome.get()
        guard result == .wrote(bytes.count) else { throw SocketError(kind: .socketClosed, syscall: "write") }
    }
}
