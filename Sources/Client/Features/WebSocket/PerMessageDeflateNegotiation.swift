// permessage-deflate (RFC 7692) negotiation on the client side: the offer the client sends, and
// the checks on the server's answer before any frame is compressed.
//
// The offer always carries a bare `client_max_window_bits` (RFC 7692 §7.1.2.2: "the client
// supports it"), unless the caller fixes a value, so a server may shrink the client's window.
// The answer is accepted only if (§7, §7.1):
// - it names permessage-deflate at most once, with each parameter at most once and no unknown one;
// - `server_no_context_takeover` and `client_no_context_takeover` carry no value;
// - window bits are decimal 8–15 without leading zeros (§7.1.2.1);
// - `client_max_window_bits` appears only if offered, at most the offered value if one was given;
// - `server_max_window_bits`, when the offer asked for it, is confirmed with at most that value
//   (§7.1.2.1: a server accepts that offer "by including" it);
// - `client_max_window_bits=8` is refused: zlib's raw deflate cannot use a 256-byte window
//   (deflateInit2 refuses windowBits -8 since zlib 1.2.9), and compressing with a larger one could
//   reach back further than the server's inflater keeps.

/// What the client offers and what the server agreed to, for permessage-deflate.
struct PerMessageDeflate: Equatable, Sendable {
    /// The registered extension token.
    static let token = "permessage-deflate"

    /// The parameters in force once negotiated; the defaults are RFC 7692's (context kept, 15 bits).
    struct Parameters: Equatable, Sendable {
        /// The server resets its compression context after each message.
        var serverNoContextTakeover = false
        /// The client resets its compression context after each message.
        var clientNoContextTakeover = false
        /// The server's LZ77 window, 8–15 bits: the client's inflater needs no more.
        var serverMaxWindowBits = 15
        /// The client's LZ77 window, 9–15 bits: the client's deflater must use no more.
        var clientMaxWindowBits = 15
    }

    /// Ask the server to reset its context after each message. `false` by default.
    var requestServerNoContextTakeover = false
    /// Announce that the client resets its context after each message. `false` by default.
    var clientNoContextTakeover = false
    /// Ask the server to use at most this window (8–15); `nil` (the default) asks nothing.
    var requestServerMaxWindowBits: Int?
    /// Limit the client's own window (9–15); `nil` (the default) offers a bare
    /// `client_max_window_bits`, letting the server choose.
    var clientMaxWindowBits: Int?

    /// The offer as one `Sec-WebSocket-Extensions` list element.
    var offer: WebSocketExtension {
        var parameters: [WebSocketExtension.Parameter] = []
        if requestServerNoContextTakeover { parameters.append(.init(name: "server_no_context_takeover")) }
        if clientNoContextTakeover { parameters.append(.init(name: "client_no_context_takeover")) }
        if let bits = requestServerMaxWindowBits { parameters.append(.init(name: "server_max_window_bits", value: String(bits))) }
        parameters.append(.init(name: "client_max_window_bits", value: clientMaxWindowBits.map(String.init)))
        return WebSocketExtension(name: Self.token, parameters: parameters)
    }

    /// Checks the server's answer to ``offer``.
    /// - Parameter response: the permessage-deflate element of the server's extension list.
    /// - Returns: the parameters in force.
    /// - Throws: ``WebSocketHandshakeError`` with reason `.extensionParameter` naming the rule broken.
    func accept(_ response: WebSocketExtension) throws(WebSocketHandshakeError) -> Parameters {
        var result = Parameters(clientNoContextTakeover: clientNoContextTakeover)
        var seen: Set<String> = []
        for parameter in response.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { throw Self.failure("\(name) appears twice") }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { throw Self.failure("server_no_context_takeover has a value") }
                result.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { throw Self.failure("client_no_context_takeover has a value") }
                result.clientNoContextTakeover = true
            case "server_max_window_bits":
                let bits = try Self.windowBits(parameter)
                if let requested = requestServerMaxWindowBits, bits > requested {
                    throw Self.failure("server_max_window_bits=\(bits) above the \(requested) requested")
                }
                result.serverMaxWindowBits = bits
            case "client_max_window_bits":
                let bits = try Self.windowBits(parameter)
                if let limit = clientMaxWindowBits, bits > limit {
                    throw Self.failure("client_max_window_bits=\(bits) above the \(limit) offered")
                }
                guard bits >= 9 else { throw Self.failure("client_max_window_bits=8 cannot be honoured by zlib's raw deflate") }
                result.clientMaxWindowBits = bits
            default:
                throw Self.failure("unknown parameter \(parameter.name)")
            }
        }
        if requestServerNoContextTakeover && !result.serverNoContextTakeover {
            throw Self.failure("server_no_context_takeover requested but not confirmed")
        }
        if requestServerMaxWindowBits != nil && !seen.contains("server_max_window_bits") {
            throw Self.failure("server_max_window_bits requested but not confirmed")
        }
        if let limit = clientMaxWindowBits { result.clientMaxWindowBits = min(result.clientMaxWindowBits, limit) }
        return result
    }

    /// A window-bits value: decimal 8–15, no leading zero, present (RFC 7692 §7.1.2.1).
    private static func windowBits(_ parameter: WebSocketExtension.Parameter) throws(WebSocketHandshakeError) -> Int {
        guard let text = parameter.value, let bits = Int(text), (8...15).contains(bits), !text.hasPrefix("0"), !text.hasPrefix("+") else {
            throw failure("\(parameter.name)=\(parameter.value ?? "(none)") is not 8 to 15")
        }
        return bits
    }

    private static func failure(_ detail: String) -> WebSocketHandshakeError {
        WebSocketHandshakeError(.extensionParameter, "permessage-deflate: " + detail)
    }
}
