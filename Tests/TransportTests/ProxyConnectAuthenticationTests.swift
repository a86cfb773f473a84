// The CONNECT machine answering a proxy's 407 (curl's --proxy-digest, --proxy-anyauth) as a
// table: the proxy's bytes in, the requests sent and the outcome out, no sockets. Every answer
// is also fed one byte at a time, which must give the same requests and outcome.
import Testing
@testable import Transport

@Suite("CONNECT answers a proxy's 407")
struct ProxyConnectAuthenticationTests {
    enum Outcome: Equatable {
        case established([UInt8])
        case failed(ProxyError.Code, status: Int?)
        case needsMore
    }

    static let digest407 = "HTTP/1.1 407 Proxy Authentication Required\r\n"
        + "Proxy-Authenticate: Digest realm=\"r\", nonce=\"abc\", qop=\"auth\"\r\nContent-Length: 5\r\n\r\nnope\n"
    static let basic407 = "HTTP/1.1 407 Need\r\nProxy-Authenticate: Basic realm=\"r\"\r\nContent-Length: 0\r\n\r\n"
    static let both407 = "HTTP/1.1 407 Need\r\nProxy-Authenticate: Basic realm=\"r\"\r\n"
        + "Proxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nnope\r\n0\r\n\r\n"
    static let ok = "HTTP/1.1 200 Connection established\r\n\r\n"

    /// (scenario, the credential's methods, Basic sent at once, the proxy's bytes, the
    /// `Proxy-Authorization` scheme of each CONNECT sent, outcome).
    static let rows: [(String, ProxyServer.AuthenticationMethods, Bool, String, [String?], Outcome)] = [
        ("digest: 407 answered on the same connection", .digest, false, digest407 + ok, [nil, "Digest"], .established([])),
        ("anyauth picks Digest over Basic, chunked 407 body", .any, false, both407 + ok, [nil, "Digest"], .established([])),
        ("anyauth answers Basic when that is all", .any, false, basic407 + ok, [nil, "Basic"], .established([])),
        ("digest does not answer Basic", .digest, false, basic407, [nil], .failed(.authenticationRequired, status: 407)),
        ("Basic sent at once is the one answer", .basic, true, basic407, ["Basic"], .failed(.authenticationRequired, status: 407)),
        ("a second 407 fails", .digest, false, digest407 + digest407, [nil, "Digest"], .failed(.authenticationRequired, status: 407)),
        ("a closing 407 fails this connection (closing rows: answered on a new one)", .digest, false,
         "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
         [nil], .failed(.authenticationRequired, status: 407)),
        ("Proxy-Connection: close is closing too", .digest, false,
         "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nProxy-Connection: close\r\nContent-Length: 0\r\n\r\n",
         [nil], .failed(.authenticationRequired, status: 407)),
        ("an unframed 407 body is closing too", .digest, false,
         "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\n\r\nbody", [nil], .failed(.authenticationRequired, status: 407)),
        ("the body still arriving", .digest, false,
         "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nContent-Length: 9\r\n\r\nnope", [nil], .needsMore),
        ("tunnel bytes after the second answer", .digest, false, digest407 + ok + "\u{16}", [nil, "Digest"], .established([0x16])),
        ("a malformed challenge is not answered", .digest, false,
         "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\r\nContent-Length: 0\r\n\r\n", [nil], .failed(.authenticationRequired, status: 407)),
    ]

    static func run(_ row: Int, chunked: Bool) -> (sent: [String], outcome: Outcome) {
        let (_, methods, preemptive, answer, _, _) = rows[row]
        var machine = HTTPConnectStateMachine(
            host: "o.example", port: 443, proxy: "http://p:8", authorization: preemptive ? "Basic dTpw" : nil,
            credential: .init(user: "u", password: "p", methods: methods))
        guard case .send(let first) = machine.start() else { preconditionFailure("start must send") }
        var sent = [String(decoding: first, as: UTF8.self)]
        let bytes = Array(answer.utf8)
        for piece in chunked ? bytes.map({ [$0] }) : [bytes] {
            var input = piece
            while true {
                switch machine.received(input) {
                case .read: break
                case .send(let request):
                    sent.append(String(decoding: request, as: UTF8.self))
                    if machine.hasBufferedInput { input = []; continue }  // as the driver does
                case .established(let leftover): return (sent, .established(leftover))
                case .fail(let error): return (sent, .failed(error.code, status: error.status))
                }
                break
            }
        }
        return (sent, .needsMore)
    }

    /// The scheme of a request's Proxy-Authorization, or nil.
    static func scheme(_ request: String) -> String? {
        guard let line = request.split(separator: "\r\n").first(where: { $0.hasPrefix("Proxy-Authorization: ") }) else { return nil }
        return line.dropFirst("Proxy-Authorization: ".count).split(separator: " ").first.map(String.init)
    }

    @Test("407 answers", arguments: rows.indices)
    func answers(row: Int) {
        let (scenario, _, _, _, schemes, expected) = Self.rows[row]
        for chunked in [false, true] {
            let (sent, outcome) = Self.run(row, chunked: chunked)
            #expect(sent.map(Self.scheme) == schemes, "\(scenario), chunked: \(chunked)")
            #expect(outcome == expected, "\(scenario), chunked: \(chunked)")
            if case .established(let leftover) = expected, !leftover.isEmpty { break }  // per-byte hands over at once
        }
    }

    @Test("the Digest answer is curl's: uri host:port, method CONNECT, the second request otherwise the first")
    func digestAnswer() throws {
        let (sent, _) = Self.run(0, chunked: false)
        try #require(sent.count == 2)
        let field = try #require(sent[1].split(separator: "\r\n").first { $0.hasPrefix("Proxy-Authorization: Digest ") })
        let parameters = Dictionary(uniqueKeysWithValues: field.dropFirst("Proxy-Authorization: Digest ".count)
            .split(separator: ", ").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]).trimmingQuotes)
            })
        #expect(parameters["uri"] == "o.example:443")
        #expect(parameters["username"] == "u" && parameters["realm"] == "r" && parameters["nonce"] == "abc" && parameters["qop"] == "auth")
        // RFC 7616 §3.4.1 with this cnonce: MD5(HA1:nonce:nc:cnonce:auth:HA2).
        let cnonce = try #require(parameters["cnonce"])
        let challenge = try #require(AuthenticationChallenge.parse("Digest realm=\"r\", nonce=\"abc\", qop=\"auth\"")?.first)
        let expected = HTTPAuthentication.digest(challenge, user: "u", password: "p", method: "CONNECT", uri: "o.example:443", cnonce: cnonce)
        #expect(expected == String(field.dropFirst("Proxy-Authorization: ".count)))
        let withoutField = sent[1].split(separator: "\r\n").filter { !$0.hasPrefix("Proxy-Authorization") }
        #expect(withoutField == sent[0].split(separator: "\r\n"))
    }

    /// (scenario, the 407): a closing 407 is answered on a new connection, its answer in the error.
    static let closingRows: [(String, String)] = [
        ("Connection: close", "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
        ("Proxy-Connection: close", "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\nProxy-Connection: close\r\nContent-Length: 0\r\n\r\n"),
        ("a body the close ends", "HTTP/1.1 407 Need\r\nProxy-Authenticate: Digest realm=\"r\", nonce=\"abc\"\r\n\r\nbody"),
    ]

    @Test("a closing 407: its answer for a new connection, whose machine answers no more", arguments: closingRows.indices)
    func closing(row: Int) throws {
        let (scenario, answer) = Self.closingRows[row]
        var machine = HTTPConnectStateMachine(host: "o", port: 443, proxy: "p", authorization: nil, credential: .init(user: "u", password: "p", methods: .digest))
        _ = machine.start()
        guard case .fail(let error) = machine.received(Array(answer.utf8)) else { Issue.record("\(scenario) must fail"); return }
        #expect(error.code == .authenticationRequired && error.status == 407, "\(scenario)")
        let authorization = try #require(error.answerOnNewConnection, "\(scenario)")
        #expect(authorization.hasPrefix("Digest username=\"u\", realm=\"r\", nonce=\"abc\", uri=\"o:443\""), "\(authorization)")
        // The new connection's machine sends it at once and answers no second 407.
        var again = HTTPConnectStateMachine(host: "o", port: 443, proxy: "p", authorization: authorization, credential: .init(user: "u", password: "p", methods: .digest))
        guard case .send(let request) = again.start() else { Issue.record("start must send"); return }
        #expect(String(decoding: request, as: UTF8.self).contains("\r\nProxy-Authorization: \(authorization)\r\n"))
        guard case .fail(let second) = again.received(Array(answer.utf8)) else { Issue.record("\(scenario): a second 407 must fail"); return }
        #expect(second.answerOnNewConnection == nil)
    }

    /// (user agent, the request's User-Agent line or nil): curl sends its `-A` value, empty too.
    static let userAgentRows: [(String?, String?)] = [("Lariat", "User-Agent: Lariat"), ("fetch/1", "User-Agent: fetch/1"), ("", "User-Agent: "), (nil, nil)]

    @Test("the CONNECT request's User-Agent", arguments: userAgentRows.indices)
    func userAgent(row: Int) {
        let (agent, line) = Self.userAgentRows[row]
        var machine = HTTPConnectStateMachine(host: "o", port: 443, proxy: "p", authorization: nil, userAgent: agent)
        guard case .send(let bytes) = machine.start() else { Issue.record("start must send"); return }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(lines.first { $0.hasPrefix("User-Agent:") } == line)
    }
}

extension String {
    fileprivate var trimmingQuotes: String { hasPrefix("\"") && hasSuffix("\"") ? String(dropFirst().dropLast()) : self }
}
