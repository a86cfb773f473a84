// Opening a tunnel through a SOCKS4 or SOCKS4a proxy, sans I/O:
//
//   idle ──start──▶ awaitingReply ──version 0, code 90──▶ established
//                        └──other code / bad version / end of stream──▶ failed
//
// The request is VN 4, CD 1, the port, the IPv4 address (SOCKS4a: 0.0.0.1, the name after the
// user id), the user id and a NUL, as curl 7.88 sends it (its `socks4a://` sends the name even
// for an IP literal). The reply is 8 bytes; bytes after it belong to the tunnel. The failure
// messages are curl 7.88's (lib/socks.c), which name the address and port of the reply.

/// The SOCKS4/4a handshake with a proxy: events in, actions out, no sockets.
struct SOCKS4StateMachine {
    /// Where the tunnel goes.
    enum Destination: Equatable {
        /// An IPv4 address (SOCKS4): 4 bytes.
        case address([UInt8])
        /// A host name for the proxy to resolve (SOCKS4a).
        case name(String)
    }

    /// What the driver does next (the SOCKS5 machine's actions).
    typealias Action = SOCKS5StateMachine.Action

    private enum State {
        /// Nothing sent. Exit: `start`.
        case idle
        /// The request is out. Exits: `established`, `failed`.
        case awaitingReply
        /// Terminal.
        case established
        /// Terminal.
        case failed
    }

    private var state: State = .idle
    /// Bytes received and not yet consumed.
    private var buffer: [UInt8] = []
    /// Where the tunnel goes.
    let destination: Destination
    /// The origin's port.
    let port: Int
    /// The user id sent (the proxy URL's user name; curl sends no password).
    let userID: String
    /// `kind://host:port` of the proxy, for errors.
    let proxy: String

    /// - Parameters:
    ///   - destination: The origin: an IPv4 address, or a name (SOCKS4a).
    ///   - port: The origin's port.
    ///   - userID: The user id, empty for none.
    ///   - proxy: The proxy's description, for errors.
    init(destination: Destination, port: Int, userID: String, proxy: String) {
        self.destination = destination
        self.port = port
        self.userID = userID
        self.proxy = proxy
    }

    /// The connect request goes out.
    mutating func start() -> Action {
        guard case .idle = state else { preconditionFailure("SOCKS4 start in state \(state)") }
        var request: [UInt8] = [4, 1, UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)]
        let user = Array(userID.utf8)
        guard !user.contains(0), user.count <= 255 else { return fail(.socksRequestTooLong, "the SOCKS4 user id is over 255 bytes or holds a NUL") }
        switch destination {
        case .address(let bytes):
            guard bytes.count == 4 else { return fail(.socksRequestFailed, "SOCKS4 connection to an IPv6 address not supported") }
            request += bytes + user + [0]
        case .name(let name):
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 255, !bytes.contains(0) else { return fail(.socksRequestTooLong, "the host name is over 255 bytes") }
            request += [0, 0, 0, 1] + user + [0] + bytes + [0]
        }
        state = .awaitingReply
        return .send(request)
    }

    /// Whether bytes are buffered beyond the reply (never: the reply ends the handshake).
    var hasBufferedInput: Bool { false }

    /// Bytes arrived from the proxy.
    mutating func received(_ bytes: [UInt8]) -> Action {
        guard case .awaitingReply = state else { preconditionFailure("SOCKS4 bytes received in state \(state)") }
        buffer.append(contentsOf: bytes)
        guard buffer.count >= 8 else { return .read }
        guard buffer[0] == 0 else { return fail(.malformedResponse, "SOCKS4 reply has wrong version, version should be 0.") }
        let code = buffer[1]
        guard code == 90 else {
            let origin = "\(buffer[4]).\(buffer[5]).\(buffer[6]).\(buffer[7]):\(Int(buffer[2]) << 8 | Int(buffer[3]))"
            state = .failed
            return .fail(ProxyError(
                .socksRequestFailed, proxy: proxy,
                "Can't complete SOCKS4 connection to \(origin). (\(code)), \(Self.meaning(code))", socksReply: code
            ))
        }
        state = .established
        return .established(leftover: Array(buffer[8...]))
    }

    /// The proxy closed the connection.
    mutating func endOfStream() -> Action {
        guard case .awaitingReply = state else { preconditionFailure("SOCKS4 end of stream in state \(state)") }
        return fail(.closed, "Failed to receive SOCKS4 connect request ack.")
    }

    /// curl 7.88's words for a SOCKS4 reply code other than 90 (granted).
    static func meaning(_ code: UInt8) -> String {
        switch code {
        case 91: "request rejected or failed."
        case 92: "request rejected because SOCKS server cannot connect to identd on the client."
        case 93: "request rejected because the client program and identd report different user-ids."
        default: "Unknown."
        }
    }

    /// Ends in `failed` with a ProxyError.
    private mutating func fail(_ code: ProxyError.Code, _ detail: String) -> Action {
        state = .failed
        return .fail(ProxyError(code, proxy: proxy, detail))
    }
}
