// Opening a tunnel through an HTTP proxy (RFC 9110 §9.3.6), sans I/O:
//
//   idle ──start──▶ awaitingResponse ──2xx head──▶ established (bytes after the head: the tunnel's)
//                     ▲  │ ├──407, answerable──▶ skippingChallengeBody ──body's end──┐
//                     │  │ │                             (the CONNECT again, with    │
//                     │  │ │                              Proxy-Authorization)       │
//                     └──┼─┼─────────────────────────────────────────────────────────┘
//                        │ ├──407──▶ failed(authenticationRequired)
//                        │ ├──other status──▶ failed(tunnelRefused)
//                        │ └──malformed / too large──▶ failed(malformedResponse)
//                        └──end of stream──▶ failed(closed)
//
// The proxy's answer is parsed by Wire's ResponseParser, which knows that a 2xx to CONNECT ends
// the HTTP part of the connection (`.upgraded`). A non-2xx answer fails at its head: its body is
// never read (the connection is closed), so a proxy cannot stall the request with it.
//
// The one exception, as in curl 7.88 (lib/http_proxy.c): a 407 the credential can answer (its
// methods hold a scheme the proxy offers, Digest or Basic, and it has not answered yet) when the
// connection stays open (a framed body, no `Connection: close` or `Proxy-Connection: close`). Its
// body is read and dropped, then the CONNECT goes out again on the same connection with
// `Proxy-Authorization` computed by HTTPAuthentication (uri = `host:port`, method CONNECT). A 407
// that closes the connection fails with the answer in `ProxyError.answerOnNewConnection`: the
// pool connects again and starts a machine with that `authorization` (curl reconnects too).

import Wire

/// The `CONNECT` exchange with an HTTP proxy: events in, actions out, no sockets.
struct HTTPConnectStateMachine {
    /// What the driver does next.
    enum Action: Equatable {
        /// Write these bytes to the proxy, then read.
        case send([UInt8])
        /// Read more from the proxy.
        case read
        /// The tunnel is up; these bytes arrived after the proxy's 2xx head and belong to the
        /// tunnel's stream (the origin's TLS records or response).
        case established(leftover: [UInt8])
        /// The tunnel cannot be opened: close the connection, fail the request.
        case fail(ProxyError)
    }

    private enum State {
        /// Nothing sent. Exit: `start` to `awaitingResponse`.
        case idle
        /// The CONNECT request is out; its answer accumulates in `received`. Exits: `established`,
        /// `skippingChallengeBody`, `failed`.
        case awaitingResponse(parser: ResponseParser, received: [UInt8])
        /// A 407 is being answered: its body is read and dropped, then `next` (the CONNECT with
        /// `Proxy-Authorization`) goes out. Exits: `awaitingResponse`, `failed`.
        case skippingChallengeBody(parser: ResponseParser, received: [UInt8], next: [UInt8])
        /// Terminal: the tunnel is up.
        case established
        /// Terminal: the attempt failed.
        case failed
    }

    private var state: State = .idle
    /// The authority `host:port` the tunnel goes to.
    let authority: String
    /// `kind://host:port` of the proxy, for errors.
    let proxy: String
    /// `Proxy-Authorization`'s value, if any: Basic sent at once, or the answer to a 407.
    private(set) var authorization: String?
    /// The credential answering a 407, and the schemes it answers with; `nil` for none.
    let credential: Credential?
    /// Whether a 407 was answered (only once, as curl).
    private var answered = false
    /// `User-Agent`'s value in the request, or `nil` for none (curl sends its `-A` value).
    let userAgent: String?

    /// A proxy credential and the schemes it answers a 407 with.
    struct Credential: Equatable {
        var user: String
        var password: String
        var methods: ProxyServer.AuthenticationMethods
    }
    /// The most bytes the proxy's answer head may take (the parser's own limits also apply).
    let maxResponseHead: Int
    /// Extra fields for the proxy, after the built-in ones (``ProxyServer/headers``).
    let extraFields: [ProxyServer.HeaderField]
    /// `HTTP/1.0` instead of `HTTP/1.1` on the request line.
    let http10: Bool

    /// - Parameters:
    ///   - host: The origin's host (an IPv6 literal without brackets).
    ///   - port: The origin's port.
    ///   - proxy: The proxy's description, for errors.
    ///   - authorization: `Proxy-Authorization`'s value, or `nil`.
    ///   - maxResponseHead: Limit on the answer's head, 16 KiB by default.
    ///   - extraFields: ``ProxyServer/headers``: appended, replacing built-in fields of their name.
    ///   - http10: Whether the request line says `HTTP/1.0`.
    ///   - credential: What answers a 407 (``Credential``), or `nil`.
    ///   - userAgent: `User-Agent`'s value, `Lariat` by default; `nil` sends none.
    init(
        host: String, port: Int, proxy: String, authorization: String?, maxResponseHead: Int = 16 * 1024,
        extraFields: [ProxyServer.HeaderField] = [], http10: Bool = false, credential: Credential? = nil,
        userAgent: String? = "Lariat"
    ) {
        self.credential = credential
        self.userAgent = userAgent
        self.answered = authorization != nil  // Basic sent at once is the one answer (curl)
        self.extraFields = extraFields
        self.http10 = http10
        self.authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        self.proxy = proxy
        self.authorization = authorization
        self.maxResponseHead = maxResponseHead
    }

    /// The request goes out.
    mutating func start() -> Action {
        guard case .idle = state else { preconditionFailure("CONNECT start in state \(state)") }
        var parser = ResponseParser()
        parser.expectResponse(to: .connect)
        state = .awaitingResponse(parser: parser, received: [])
        return .send(Array(requestHead.utf8))
    }

    /// The CONNECT request as curl 7.88 builds it: Host, Proxy-Authorization, User-Agent,
    /// Proxy-Connection, then the extra fields (one of these names among them replaces the
    /// built-in field, a `nil` value removes it).
    var requestHead: String {
        func overridden(_ name: String) -> Bool { extraFields.contains { $0.name.lowercased() == name } }
        var head = "CONNECT \(authority) HTTP/\(http10 ? "1.0" : "1.1")\r\n"
        if !overridden("host") { head += "Host: \(authority)\r\n" }
        if let authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        if !overridden("user-agent"), let userAgent { head += "User-Agent: \(userAgent)\r\n" }
        if !overridden("proxy-connection") { head += "Proxy-Connection: Keep-Alive\r\n" }
        for field in extraFields {
            if let value = field.value { head += value.isEmpty ? "\(field.name):\r\n" : "\(field.name): \(value)\r\n" }
        }
        return head + "\r\n"
    }

    /// Whether bytes that arrived with a 407's body wait for the next answer: after a `send`,
    /// the driver feeds an empty read so they are processed.
    var hasBufferedInput: Bool {
        if case .awaitingResponse(_, let received) = state { return !received.isEmpty }
        return false
    }

    /// Bytes arrived from the proxy.
    mutating func received(_ bytes: [UInt8]) -> Action {
        if case .skippingChallengeBody = state { return skipBody(bytes) }
        guard case .awaitingResponse(var parser, var received) = state else {
            preconditionFailure("CONNECT bytes received in state \(state)")
        }
        state = .failed  // no copy-on-write of `received` while it grows
        received.append(contentsOf: bytes)
        var offset = 0
        while true {
            let step: ParseStep
            switch parseStep(&parser, received, from: offset) {
            case .success(let next): step = next
            case .failure(let error): return .fail(error)
            }
            let stepStart = offset
            offset += step.consumed
            switch step.event {
            case .needMoreData:
                guard received.count <= maxResponseHead else {
                    return .fail(ProxyError(.malformedResponse, proxy: proxy, "the answer to CONNECT is over \(maxResponseHead) bytes"))
                }
                if offset > 0 { received.removeFirst(offset) }
                state = .awaitingResponse(parser: parser, received: received)
                return .read
            case .interim:
                continue
            case .upgraded:
                state = .established
                return .established(leftover: Array(received[offset...]))
            case .head(let head):
                if head.status == 407 {
                    switch challengeReply(head, in: Array(received[stepStart...])) {
                    case .sameConnection(let next):
                        state = .skippingChallengeBody(parser: parser, received: Array(received[offset...]), next: next)
                        return skipBody([])
                    case .newConnection(let answer):
                        return .fail(ProxyError(
                            .authenticationRequired, proxy: proxy, "CONNECT tunnel failed, response 407", status: 407,
                            answerOnNewConnection: answer
                        ))
                    case .none:
                        return .fail(ProxyError(.authenticationRequired, proxy: proxy, "CONNECT tunnel failed, response 407", status: 407))
                    }
                }
                return .fail(ProxyError(.tunnelRefused, proxy: proxy, "CONNECT tunnel failed, response \(head.status)", status: head.status))
            case .body, .end:
                preconditionFailure("CONNECT answer body before its head")
            }
        }
    }

    /// The proxy closed the connection.
    mutating func endOfStream() -> Action {
        switch state {
        case .awaitingResponse:
            state = .failed
            return .fail(ProxyError(.closed, proxy: proxy, "the proxy closed the connection before answering CONNECT"))
        case .skippingChallengeBody:
            state = .failed
            return .fail(ProxyError(.authenticationRequired, proxy: proxy, "CONNECT tunnel failed, response 407", status: 407))
        case .idle, .established, .failed:
            preconditionFailure("CONNECT end of stream in state \(state)")
        }
    }

    /// How a 407 is answered.
    private enum ChallengeReply {
        /// Not answered: no credential, an answer already given, no challenge within the methods.
        case none
        /// The CONNECT again on this connection, with `Proxy-Authorization`.
        case sameConnection([UInt8])
        /// The connection closes: this `Proxy-Authorization` goes on a new one.
        case newConnection(String)
    }

    /// The answer to a 407 (see ``ChallengeReply``).
    private mutating func challengeReply(_ head: ResponseHead, in received: [UInt8]) -> ChallengeReply {
        guard let credential, !answered else { return .none }
        let (values, closes) = received.withUnsafeBytes { raw -> ([String], Bool) in
            let closes = head.fields.values(named: "proxy-connection", in: raw).contains { $0.lowercased() == "close" }
            return (head.fields.values(named: "proxy-authenticate", in: raw), closes)
        }
        guard let parsed = AuthenticationChallenge.parse(fields: values) else { return .none }
        let wanted = HTTPAuthentication.ranked(parsed).first { challenge in
            challenge.scheme == "digest" ? credential.methods.contains(.digest) : credential.methods.contains(.basic)
        }
        guard let wanted, let answer = HTTPAuthentication.answer(
            wanted, user: credential.user, password: credential.password, method: "CONNECT", uri: authority
        ) else { return .none }
        answered = true
        // A closing 407 (Connection or Proxy-Connection: close, or a body only the close ends).
        guard head.keepAlive, !closes else { return .newConnection(answer.authorization) }
        authorization = answer.authorization
        return .sameConnection(Array(requestHead.utf8))
    }

    /// One parser step over `received[offset...]`; a parse error is the malformed-answer failure.
    private func parseStep(_ parser: inout ResponseParser, _ received: [UInt8], from offset: Int) -> Result<ParseStep, ProxyError> {
        do throws(WireError) {
            return .success(try received.withUnsafeBytes { raw in
                Result { () throws(WireError) in try parser.parse(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }.get())
        } catch {
            return .failure(ProxyError(.malformedResponse, proxy: proxy, "malformed answer to CONNECT: \(error)", underlying: error))
        }
    }

    /// Reads and drops the answered 407's body, then sends the CONNECT again.
    private mutating func skipBody(_ bytes: [UInt8]) -> Action {
        guard case .skippingChallengeBody(var parser, var received, let next) = state else {
            preconditionFailure("CONNECT body skipped in state \(state)")
        }
        state = .failed
        received.append(contentsOf: bytes)
        var offset = 0
        while true {
            let step: ParseStep
            switch parseStep(&parser, received, from: offset) {
            case .success(let next): step = next
            case .failure(let error): return .fail(error)
            }
            offset += step.consumed
            switch step.event {
            case .needMoreData:
                state = .skippingChallengeBody(parser: parser, received: Array(received[offset...]), next: next)
                return .read
            case .body:
                continue
            case .end:
                var fresh = ResponseParser()
                fresh.expectResponse(to: .connect)
                state = .awaitingResponse(parser: fresh, received: Array(received[offset...]))
                return .send(next)
            case .interim, .head, .upgraded:
                preconditionFailure("CONNECT 407 body interrupted by \(step.event)")
            }
        }
    }
}
