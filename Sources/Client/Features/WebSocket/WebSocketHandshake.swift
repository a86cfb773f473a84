#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import TLS

// The client's side of the WebSocket opening handshake (RFC 6455 §4.1, §4.2.2), as pure
// functions of the offer and the server's 101 head, so `WebSocketHandshakeTests` checks every
// rule without a server:
//
//   request:  Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Version: 13,
//             Sec-WebSocket-Key: base64(16 random bytes), [Sec-WebSocket-Protocol: p1, p2],
//             [Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits]
//   response: 101; Upgrade: websocket (case-insensitive); Connection includes "upgrade";
//             Sec-WebSocket-Accept: base64(SHA-1(key + 258EAFA5-E914-47DA-95CA-C5AB0DC85B11));
//             at most one Sec-WebSocket-Protocol, one of the offered, exactly as offered;
//             Sec-WebSocket-Extensions naming only what was offered, with valid parameters.
//
// Any other answer fails the connection ("the client MUST _Fail the WebSocket Connection_",
// §4.1) with a ``WebSocketHandshakeError`` naming the rule.

/// Why a server's answer to a WebSocket upgrade was refused.
struct WebSocketHandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule broken.
    enum Reason: String, Equatable, Sendable {
        /// The status is not 101 (the server refused or ignored the upgrade).
        case status
        /// `Upgrade` is missing or is not `websocket`.
        case upgradeField = "upgrade-field"
        /// `Connection` does not include the `upgrade` token.
        case connectionField = "connection-field"
        /// `Sec-WebSocket-Accept` is missing, repeated, or not the key's digest.
        case accept
        /// `Sec-WebSocket-Protocol` names a protocol not offered, or several, or one when none was offered.
        case subprotocol
        /// `Sec-WebSocket-Extensions` is off its grammar or names an extension not offered.
        case extensionList = "extension-list"
        /// A negotiated extension's parameters are invalid (RFC 7692 §7 for permessage-deflate).
        case extensionParameter = "extension-parameter"
        /// The offer itself is invalid (a subprotocol that is not a token, or offered twice).
        case offer
    }

    /// The rule broken.
    var reason: Reason
    /// What exactly was wrong, for logs.
    var detail: String

    init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    var description: String { "websocket handshake: \(reason.rawValue): \(detail)" }
}

/// The opening handshake: what the client offers, and the checks on the answer.
struct WebSocketHandshake: Sendable {
    /// RFC 6455 §1.3's GUID, appended to the key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Key` value: 16 random bytes, base64 (24 characters).
    let key: String
    /// The subprotocols offered, in preference order; empty offers none.
    let subprotocols: [String]
    /// The permessage-deflate offer, or `nil` to offer no extension.
    let deflate: PerMessageDeflate?

    /// What the server agreed to.
    struct Agreement: Equatable, Sendable {
        /// The subprotocol the server chose, or `nil`.
        var subprotocol: String?
        /// permessage-deflate's parameters when the server accepted it, else `nil`.
        var deflate: PerMessageDeflate.Parameters?
    }

    /// An offer with a fresh key from `generator` (the system's CSPRNG by default: the key is a
    /// nonce, RFC 6455 §4.1 and §10.3).
    /// - Throws: `.offer` when a subprotocol is not a token or is offered twice.
    init<G: RandomNumberGenerator>(subprotocols: [String] = [], deflate: PerMessageDeflate? = nil, using generator: inout G) throws(WebSocketHandshakeError) {
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try self.init(key: Data(nonce).base64EncodedString(), subprotocols: subprotocols, deflate: deflate)
    }

    /// An offer with a fresh key from the system's CSPRNG.
    init(subprotocols: [String] = [], deflate: PerMessageDeflate? = nil) throws(WebSocketHandshakeError) {
        var generator = SystemRandomNumberGenerator()
        try self.init(subprotocols: subprotocols, deflate: deflate, using: &generator)
    }

    /// An offer with a given key (tests use RFC 6455 §1.3's sample key).
    init(key: String, subprotocols: [String] = [], deflate: PerMessageDeflate? = nil) throws(WebSocketHandshakeError) {
        for (i, name) in subprotocols.enumerated() {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw WebSocketHandshakeError(.offer, "subprotocol \(name.debugDescription) is not a token (RFC 6455 §4.1)")
            }
            guard !subprotocols[..<i].contains(name) else {
                throw WebSocketHandshakeError(.offer, "subprotocol \(name) offered twice (RFC 6455 §4.1: unique)")
            }
        }
        self.key = key
        self.subprotocols = subprotocols
        self.deflate = deflate
    }

    /// The `Sec-WebSocket-Accept` value a server must answer `key` with:
    /// base64(SHA-1(key + GUID)) (RFC 6455 §4.2.2 step 5.4).
    static func acceptValue(forKey key: String) -> String {
        Data(MessageDigest.hash(.sha1, Array((key + guid).utf8))).base64EncodedString()
    }

    /// The request's upgrade fields, in order.
    var requestFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        if !subprotocols.isEmpty { fields.append(("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", "))) }
        if let deflate { fields.append(("Sec-WebSocket-Extensions", deflate.offer.fieldValue)) }
        return fields
    }

    /// Checks the server's answer (RFC 6455 §4.1, the client's six checks).
    /// - Parameters:
    ///   - status: the response's status code.
    ///   - headers: the response's fields.
    /// - Returns: what the server agreed to.
    /// - Throws: ``WebSocketHandshakeError`` naming the first rule the answer breaks.
    func validate(status: Int, headers: HTTPHeaders) throws(WebSocketHandshakeError) -> Agreement {
        guard status == 101 else { throw WebSocketHandshakeError(.status, "status \(status), not 101") }
        let upgrade = Self.listElements(headers.values(for: "Upgrade"))
        guard upgrade.count == 1, upgrade[0].lowercased() == "websocket" else {
            throw WebSocketHandshakeError(.upgradeField, "Upgrade is \(upgrade), not websocket")
        }
        guard Self.listElements(headers.values(for: "Connection")).contains(where: { $0.lowercased() == "upgrade" }) else {
            throw WebSocketHandshakeError(.connectionField, "Connection does not include upgrade")
        }
        let accepts = headers.values(for: "Sec-WebSocket-Accept")
        guard accepts.count == 1 else { throw WebSocketHandshakeError(.accept, "\(accepts.count) Sec-WebSocket-Accept fields") }
        let expected = Self.acceptValue(forKey: key)
        guard Self.trimmed(accepts[0]) == expected else {
            throw WebSocketHandshakeError(.accept, "Sec-WebSocket-Accept \(accepts[0].debugDescription), expected \(expected)")
        }
        return Agreement(subprotocol: try selectedSubprotocol(headers), deflate: try negotiatedDeflate(headers))
    }

    /// The server's subprotocol: none, or exactly one of those offered (compared exactly).
    private func selectedSubprotocol(_ headers: HTTPHeaders) throws(WebSocketHandshakeError) -> String? {
        let chosen = Self.listElements(headers.values(for: "Sec-WebSocket-Protocol"))
        guard let first = chosen.first else { return nil }
        guard chosen.count == 1 else { throw WebSocketHandshakeError(.subprotocol, "the server chose \(chosen.count) subprotocols") }
        guard subprotocols.contains(first) else {
            throw WebSocketHandshakeError(.subprotocol, "the server chose \(first.debugDescription), offered \(subprotocols)")
        }
        return first
    }

    /// permessage-deflate's parameters if the server accepted it; any other extension fails.
    private func negotiatedDeflate(_ headers: HTTPHeaders) throws(WebSocketHandshakeError) -> PerMessageDeflate.Parameters? {
        let values = headers.values(for: "Sec-WebSocket-Extensions")
        guard !values.isEmpty else { return nil }
        guard let list = WebSocketExtension.parseList(values) else {
            throw WebSocketHandshakeError(.extensionList, "Sec-WebSocket-Extensions \(values) is off the grammar (RFC 6455 §9.1)")
        }
        var result: PerMessageDeflate.Parameters?
        for element in list {
            guard let deflate, element.name.lowercased() == PerMessageDeflate.token else {
                throw WebSocketHandshakeError(.extensionList, "the server uses \(element.name), which was not offered")
            }
            guard result == nil else { throw WebSocketHandshakeError(.extensionList, "permessage-deflate negotiated twice") }
            result = try deflate.accept(element)
        }
        return result
    }

    /// The non-empty elements of comma-separated list fields, whitespace trimmed.
    private static func listElements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { trimmed(String($0)) }.filter { !$0.isEmpty }
    }

    private static func trimmed(_ s: String) -> String {
        var view = Substring(s)
        while let c = view.first, c == " " || c == "\t" { view.removeFirst() }
        while let c = view.last, c == " " || c == "\t" { view.removeLast() }
        return String(view)
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }
}
