// Opening a tunnel through a SOCKS5 proxy (RFC 1928, username/password RFC 1929), sans I/O:
//
//   idle ──start──▶ awaitingMethod ──0x00──────────────────────────▶ awaitingReply ──0x00──▶ established
//                        │         └─0x02──────────────────────▶ awaitingAuth ──0x00──┘   └─other──▶ failed
//                        └──0xFF / other / bad version──▶ failed            └─other──▶ failed
//
// curl 7.88 (lib/socks.c) answers method 0x02 even when it offered no credentials, with an empty
// user name and password, and words its failures as `detail` does here (fetch prints them).
//
// Every read is fed whole; a message split over reads waits in `buffer`, and bytes beyond the
// message handled wait there for the next call (`hasBufferedInput`). Bytes after the reply
// belong to the tunnel.

/// The SOCKS5 handshake with a proxy: events in, actions out, no sockets.
struct SOCKS5StateMachine {
    /// Where the tunnel goes: a name for the proxy to resolve (`socks5h`), or an address.
    enum Destination: Equatable {
        /// A host name (at most 255 bytes).
        case name(String)
        /// An IPv4 or IPv6 address: 4 or 16 bytes.
        case address([UInt8])
    }

    /// What the driver does next.
    enum Action: Equatable {
        /// Write these bytes, then read.
        case send([UInt8])
        /// Read more.
        case read
        /// The tunnel is up; bytes after the reply belong to it.
        case established(leftover: [UInt8])
        /// The tunnel cannot be opened.
        case fail(ProxyError)
    }

    private enum State {
        /// Nothing sent. Exit: `start`.
        case idle
        /// The greeting is out. Exits: `awaitingAuth`, `awaitingReply`, `failed`.
        case awaitingMethod
        /// The credentials are out (RFC 1929). Exits: `awaitingReply`, `failed`.
        case awaitingAuth
        /// The connect request is out. Exits: `established`, `failed`.
        case awaitingReply
        /// Terminal.
        case established
        /// Terminal.
        case failed
    }

    private var state: State = .idle
    /// Bytes received and not yet consumed by a message.
    private var buffer: [UInt8] = []
    /// Where the tunnel goes.
    let destination: Destination
    /// The origin's port.
    let port: Int
    /// RFC 1929 user name and password, or `nil` to offer "no authentication" only.
    let credentials: (username: String, password: String)?
    /// `kind://host:port` of the proxy, for errors.
    let proxy: String

    /// - Parameters:
    ///   - destination: The origin, by name or address.
    ///   - port: The origin's port.
    ///   - credentials: User name and password for RFC 1929, or `nil` to offer no authentication.
    ///   - proxy: The proxy's description, for errors.
    init(destination: Destination, port: Int, credentials: (username: String, password: String)?, proxy: String) {
        self.destination = destination
        self.port = port
        self.credentials = credentials
        self.proxy = proxy
    }

    /// The greeting goes out: "no authentication", and "username/password" when credentials are set.
    mutating func start() -> Action {
        guard case .idle = state else { preconditionFailure("SOCKS5 start in state \(state)") }
        state = .awaitingMethod
        return .send(credentials == nil ? [5, 1, 0] : [5, 2, 0, 2])
    }

    /// Whether bytes are buffered beyond the message just handled: after a `send`, the driver
    /// feeds an empty read so they are processed (a proxy may answer ahead of our next message).
    var hasBufferedInput: Bool { !buffer.isEmpty }

    /// Bytes arrived from the proxy.
    mutating func received(_ bytes: [UInt8]) -> Action {
        buffer.append(contentsOf: bytes)
        while true {
            switch state {
            case .awaitingMethod:
                guard buffer.count >= 2 else { return .read }
                guard buffer[0] == 5 else { return fail(.malformedResponse, "Received invalid version in initial SOCKS5 response.") }
                let method = buffer[1]
                buffer.removeFirst(2)
                switch method {
                case 0:
                    return sendRequest()
                case 2:
                    // Without credentials, an empty user name and password (curl 7.88).
                    let user = Array((credentials?.username ?? "").utf8), password = Array((credentials?.password ?? "").utf8)
                    guard user.count <= 255 else { return fail(.socksRequestTooLong, "Excessive user name length for proxy auth") }
                    guard password.count <= 255 else { return fail(.socksRequestTooLong, "Excessive password length for proxy auth") }
                    state = .awaitingAuth
                    return .send([1, UInt8(user.count)] + user + [UInt8(password.count)] + password)
                case 0xFF:
                    return fail(.socksNoAcceptableMethod, "No authentication method was acceptable.")
                case 1:
                    return fail(.malformedResponse, "SOCKS5 GSSAPI per-message authentication is not supported.")
                default:
                    return fail(.malformedResponse, "Undocumented SOCKS5 mode attempted to be used by server.")
                }
            case .awaitingAuth:
                guard buffer.count >= 2 else { return .read }
                let (version, status) = (buffer[0], buffer[1])
                buffer.removeFirst(2)
                guard status == 0 else {
                    state = .failed
                    return .fail(ProxyError(
                        .socksAuthenticationFailed, proxy: proxy, "User was rejected by the SOCKS5 server (\(version) \(status)).",
                        socksReply: status
                    ))
                }
                return sendRequest()
            case .awaitingReply:
                // An error reply fails at once: its address part does not matter.
                guard buffer.count >= 2 else { return .read }
                guard buffer[0] == 5 else { return fail(.malformedResponse, "malformed SOCKS5 reply (version \(buffer[0]))") }
                let reply = buffer[1]
                if reply != 0 {
                    state = .failed
                    return .fail(ProxyError(
                        .socksRequestFailed, proxy: proxy,
                        "SOCKS5 request failed: \(ProxyError.socksReplyMeaning(reply)) (reply \(reply))", socksReply: reply
                    ))
                }
                guard buffer.count >= 5 else { return .read }
                guard buffer[2] == 0 else { return fail(.malformedResponse, "malformed SOCKS5 reply (reserved byte \(buffer[2]))") }
                let addressLength: Int
                switch buffer[3] {
                case 1: addressLength = 4
                case 4: addressLength = 16
                case 3: addressLength = 1 + Int(buffer[4])
                default: return fail(.malformedResponse, "SOCKS5 reply with unknown address type \(buffer[3])")
                }
                let total = 4 + addressLength + 2
                guard buffer.count >= total else { return .read }
                state = .established
                return .established(leftover: Array(buffer[total...]))
            case .idle, .established, .failed:
                preconditionFailure("SOCKS5 bytes received in state \(state)")
            }
        }
    }

    /// The proxy closed the connection.
    mutating func endOfStream() -> Action {
        switch state {
        case .awaitingMethod, .awaitingAuth, .awaitingReply:
            return fail(.closed, "the SOCKS5 proxy closed the connection during the handshake")
        case .idle, .established, .failed:
            preconditionFailure("SOCKS5 end of stream in state \(state)")
        }
    }

    /// The connect request (RFC 1928 §4) goes out.
    private mutating func sendRequest() -> Action {
        var request: [UInt8] = [5, 1, 0]
        switch destination {
        case .name(let name):
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 255 else { return fail(.socksRequestTooLong, "the host name is over 255 bytes") }
            request += [3, UInt8(bytes.count)] + bytes
        case .address(let bytes):
            request += [bytes.count == 4 ? 1 : 4] + bytes
        }
        request += [UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)]
        state = .awaitingReply
        return .send(request)
    }

    /// Ends in `failed` with a ProxyError.
    private mutating func fail(_ code: ProxyError.Code, _ detail: String) -> Action {
        state = .failed
        return .fail(ProxyError(code, proxy: proxy, detail))
    }
}
