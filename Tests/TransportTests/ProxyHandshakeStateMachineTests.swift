// The CONNECT and SOCKS5 handshakes as tables: events in, actions out, no sockets. Every answer
// is also fed one byte at a time, which must give the same outcome.
import Testing
@testable import Transport

@Suite("Proxy handshake state machines")
struct ProxyHandshakeStateMachineTests {
    /// What a row expects at the end.
    enum Outcome: Equatable {
        case established([UInt8])
        case failed(ProxyError.Code, status: Int?)
        case needsMore
    }

    // MARK: CONNECT

    /// (scenario, the proxy's answer, outcome).
    static let connectRows: [(String, String, Outcome)] = [
        ("200 with a reason", "HTTP/1.1 200 Connection established\r\n\r\n", .established([])),
        ("200, TLS bytes behind it", "HTTP/1.1 200 OK\r\n\r\n\u{16}\u{03}\u{01}", .established([0x16, 3, 1])),
        ("204 is 2xx too", "HTTP/1.1 204 No Content\r\n\r\n", .established([])),
        ("HTTP/1.0 200", "HTTP/1.0 200 OK\r\nProxy-Agent: x\r\n\r\n", .established([])),
        ("interim 100 then 200", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", .established([])),
        ("407", "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n",
         .failed(.authenticationRequired, status: 407)),
        ("403", "HTTP/1.1 403 Forbidden\r\nContent-Length: 5\r\n\r\nnope!", .failed(.tunnelRefused, status: 403)),
        ("502 without its body yet", "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 100\r\n\r\n", .failed(.tunnelRefused, status: 502)),
        ("head not finished", "HTTP/1.1 200 OK\r\n", .needsMore),
        ("not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", .failed(.malformedResponse, status: nil)),
        ("bad status", "HTTP/1.1 2000 OK\r\n\r\n", .failed(.malformedResponse, status: nil)),
        ("oversized head", "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: 0123456789abcdef\r\n", count: 1000), .failed(.malformedResponse, status: nil)),
    ]

    static func runConnect(_ answer: [UInt8], chunked: Bool) -> (request: [UInt8], outcome: Outcome) {
        var machine = HTTPConnectStateMachine(host: "origin.example", port: 443, proxy: "http://p:8", authorization: "Basic dTpw")
        guard case .send(let request) = machine.start() else { preconditionFailure("start must send") }
        let pieces: [[UInt8]] = chunked ? answer.map { [$0] } : [answer]
        for piece in pieces {
            switch machine.received(piece) {
            case .read, .send: continue
            case .established(let leftover): return (request, .established(leftover))
            case .fail(let error): return (request, .failed(error.code, status: error.status))
            }
        }
        return (request, .needsMore)
    }

    @Test("CONNECT answers", arguments: connectRows.indices)
    func connect(row: Int) {
        let (scenario, answer, expected) = Self.connectRows[row]
        let whole = Self.runConnect(Array(answer.utf8), chunked: false)
        #expect(whole.outcome == expected, "\(scenario)")
        if case .established(let leftover) = expected, !leftover.isEmpty { return }  // per-byte hands over at once
        #expect(Self.runConnect(Array(answer.utf8), chunked: true).outcome == expected, "\(scenario), byte by byte")
    }

    @Test("the CONNECT request names the origin and carries Proxy-Authorization")
    func connectRequest() {
        let request = String(decoding: Self.runConnect([], chunked: false).request, as: UTF8.self)
        #expect(request.hasPrefix("CONNECT origin.example:443 HTTP/1.1\r\nHost: origin.example:443\r\nProxy-Authorization: Basic dTpw\r\n"), "\(request)")
        #expect(request.hasSuffix("\r\n\r\n"))
        var v6 = HTTPConnectStateMachine(host: "::1", port: 8443, proxy: "p", authorization: nil)
        guard case .send(let bytes) = v6.start() else { Issue.record("start must send"); return }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("CONNECT [::1]:8443 HTTP/1.1\r\n") && !text.contains("Proxy-Authorization"), "\(text)")
    }

    /// (scenario, extra fields, HTTP/1.0, the request curl 7.88 sends for them with `-A Lariat`).
    static let connectHeadRows: [(String, [ProxyServer.HeaderField], Bool, String)] = [
        ("built-ins only", [], false,
         "CONNECT o:80 HTTP/1.1\r\nHost: o:80\r\nUser-Agent: Lariat\r\nProxy-Connection: Keep-Alive\r\n\r\n"),
        ("--proxy1.0", [], true,
         "CONNECT o:80 HTTP/1.0\r\nHost: o:80\r\nUser-Agent: Lariat\r\nProxy-Connection: Keep-Alive\r\n\r\n"),
        ("an extra field goes last", [.init(name: "X-P", value: "1")], false,
         "CONNECT o:80 HTTP/1.1\r\nHost: o:80\r\nUser-Agent: Lariat\r\nProxy-Connection: Keep-Alive\r\nX-P: 1\r\n\r\n"),
        // curl: --proxy-header "X-P: 1" --proxy-header "Host:" --proxy-header "User-Agent: zz" --proxy-header "X-E;"
        ("replaced and removed built-ins, an empty field",
         [.init(name: "X-P", value: "1"), .init(name: "Host", value: nil), .init(name: "User-Agent", value: "zz"), .init(name: "X-E", value: "")], true,
         "CONNECT o:80 HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\nX-P: 1\r\nUser-Agent: zz\r\nX-E:\r\n\r\n"),
    ]

    @Test("the CONNECT request with the proxy's own fields", arguments: connectHeadRows.indices)
    func connectHead(row: Int) {
        let (scenario, fields, http10, expected) = Self.connectHeadRows[row]
        var machine = HTTPConnectStateMachine(host: "o", port: 80, proxy: "p", authorization: nil, extraFields: fields, http10: http10)
        guard case .send(let bytes) = machine.start() else { Issue.record("start must send"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(scenario)")
    }

    @Test("end of stream before the answer")
    func connectClosed() {
        var machine = HTTPConnectStateMachine(host: "o", port: 443, proxy: "p", authorization: nil)
        _ = machine.start()
        _ = machine.received(Array("HTTP/1.1 20".utf8))
        guard case .fail(let error) = machine.endOfStream() else { Issue.record("must fail"); return }
        #expect(error.code == .closed)
    }

    // MARK: SOCKS5

    /// (scenario, destination, credentials, the proxy's bytes, the client's messages after the greeting, outcome).
    static let socksRows: [(String, SOCKS5StateMachine.Destination, Bool, [UInt8], [[UInt8]], Outcome)] = [
        ("no auth, name", .name("o.example"), false,
         [5, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0x01, 0xBB],
         [[5, 1, 0, 3, 9] + Array("o.example".utf8) + [0x01, 0xBB]], .established([])),
        ("no auth, IPv4, leftover", .address([10, 0, 0, 1]), false,
         [5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xAA],
         [[5, 1, 0, 1, 10, 0, 0, 1, 0x01, 0xBB]], .established([0xAA])),
        ("IPv6 destination, name in reply", .address([UInt8](repeating: 0, count: 15) + [1]), false,
         [5, 0, 5, 0, 0, 3, 2, 0x61, 0x62, 0, 80],
         [[5, 1, 0, 4] + [UInt8](repeating: 0, count: 15) + [1, 0x01, 0xBB]], .established([])),
        ("user/password accepted", .name("o"), true,
         [5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0],
         [[1, 1, 0x75, 2, 0x70, 0x77], [5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]], .established([])),
        ("credentials set, proxy wants none", .name("o"), true,
         [5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0],
         [[5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]], .established([])),
        ("user/password rejected", .name("o"), true, [5, 2, 1, 1], [[1, 1, 0x75, 2, 0x70, 0x77]],
         .failed(.socksAuthenticationFailed, status: nil)),
        ("no acceptable method", .name("o"), false, [5, 0xFF], [], .failed(.socksNoAcceptableMethod, status: nil)),
        // curl 7.88 answers method 2 it did not offer with an empty user name and password.
        ("method 2 not offered", .name("o"), false, [5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0],
         [[1, 0, 0], [5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]], .established([])),
        ("GSS-API chosen", .name("o"), true, [5, 1], [], .failed(.malformedResponse, status: nil)),
        ("undocumented method", .name("o"), false, [5, 3], [], .failed(.malformedResponse, status: nil)),
        ("not SOCKS5", .name("o"), false, [4, 0], [], .failed(.malformedResponse, status: nil)),
        ("general failure", .name("o"), false, [5, 0, 5, 1, 0, 1], [[5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]],
         .failed(.socksRequestFailed, status: nil)),
        ("connection refused", .name("o"), false, [5, 0, 5, 5, 0, 1], [[5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]],
         .failed(.socksRequestFailed, status: nil)),
        ("bad address type", .name("o"), false, [5, 0, 5, 0, 0, 9, 0], [[5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]],
         .failed(.malformedResponse, status: nil)),
        ("reply truncated", .name("o"), false, [5, 0, 5, 0, 0, 1, 0, 0], [[5, 1, 0, 3, 1, 0x6F, 0x01, 0xBB]], .needsMore),
        ("name over 255 bytes", .name(String(repeating: "a", count: 256)), false, [5, 0], [],
         .failed(.socksRequestTooLong, status: nil)),
    ]

    static func runSOCKS(_ row: Int, chunked: Bool) -> (greeting: [UInt8], sent: [[UInt8]], outcome: Outcome, reply: UInt8?) {
        let (_, destination, withCredentials, answer, _, _) = socksRows[row]
        var machine = SOCKS5StateMachine(destination: destination, port: 443, credentials: withCredentials ? ("u", "pw") : nil, proxy: "socks5h://p:1")
        guard case .send(let greeting) = machine.start() else { preconditionFailure("start must send") }
        var sent: [[UInt8]] = []
        for piece in chunked ? answer.map({ [$0] }) : [answer] {
            var input = piece
            while true {
                switch machine.received(input) {
                case .read: break
                case .send(let bytes):
                    sent.append(bytes)
                    if machine.hasBufferedInput { input = []; continue }  // as the driver does
                case .established(let leftover): return (greeting, sent, .established(leftover), nil)
                case .fail(let error): return (greeting, sent, .failed(error.code, status: nil), error.socksReply)
                }
                break
            }
        }
        return (greeting, sent, .needsMore, nil)
    }

    @Test("SOCKS5 handshakes", arguments: socksRows.indices)
    func socks(row: Int) {
        let (scenario, _, withCredentials, answer, messages, expected) = Self.socksRows[row]
        let whole = Self.runSOCKS(row, chunked: false)
        #expect(whole.greeting == (withCredentials ? [5, 2, 0, 2] : [5, 1, 0]), "\(scenario)")
        #expect(whole.sent == messages, "\(scenario)")
        #expect(whole.outcome == expected, "\(scenario)")
        if expected == .failed(.socksRequestFailed, status: nil) { #expect(whole.reply == answer[3], "\(scenario)") }
        if case .established(let leftover) = expected, !leftover.isEmpty { return }
        let split = Self.runSOCKS(row, chunked: true)
        #expect(split.outcome == expected && split.sent == messages, "\(scenario), byte by byte")
    }

    /// (the proxy's bytes after the greeting, credentials, curl 7.88's message, the reply kept).
    static let socksMessageRows: [([UInt8], Bool, String, UInt8?)] = [
        ([5, 2, 1, 1], true, "User was rejected by the SOCKS5 server (1 1).", 1),
        ([5, 2, 5, 2], true, "User was rejected by the SOCKS5 server (5 2).", 2),
        ([5, 0xFF], false, "No authentication method was acceptable.", nil),
        ([5, 1], false, "SOCKS5 GSSAPI per-message authentication is not supported.", nil),
        ([5, 9], false, "Undocumented SOCKS5 mode attempted to be used by server.", nil),
        ([4, 0], false, "Received invalid version in initial SOCKS5 response.", nil),
    ]

    @Test("SOCKS5 failures carry curl's wording", arguments: socksMessageRows.indices)
    func socksMessages(row: Int) {
        let (answer, withCredentials, message, reply) = Self.socksMessageRows[row]
        var machine = SOCKS5StateMachine(destination: .name("o"), port: 1, credentials: withCredentials ? ("u", "p") : nil, proxy: "p")
        _ = machine.start()
        var action = machine.received(answer)
        if case .send = action { action = machine.received([]) }
        guard case .fail(let error) = action else { Issue.record("\(answer) must fail, got \(action)"); return }
        #expect(error.detail == message)
        #expect(error.socksReply == reply)
    }

    @Test("socks5h sends names as names and IP literals as addresses")
    func socksDestination() {
        #expect(ConnectionPool.socksDestination(host: "lariat.test") == .name("lariat.test"))
        #expect(ConnectionPool.socksDestination(host: "127.0.0.1") == .address([127, 0, 0, 1]))
        #expect(ConnectionPool.socksDestination(host: "::1") == .address([UInt8](repeating: 0, count: 15) + [1]))
    }
}
