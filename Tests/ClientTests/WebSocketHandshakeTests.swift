// The WebSocket opening handshake as pure functions: the key and accept digest (RFC 6455 §1.3's
// sample), the request fields, and tables of server answers that must be accepted (with what was
// agreed) or refused (with the rule broken), including permessage-deflate's parameters (RFC 7692).
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

/// RFC 6455 §1.3's sample key and the accept value it gives.
private let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
private let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

/// A server answer and what the client must make of it.
struct HandshakeCase: CustomTestStringConvertible, Sendable {
    var name: String
    var status = 101
    var fields: [String]
    var subprotocols: [String] = []
    var deflate: PerMessageDeflate? = nil
    /// The agreement expected, or `nil` when `refusal` is set.
    var agreement: WebSocketHandshake.Agreement? = nil
    var refusal: WebSocketHandshakeError.Reason? = nil
    var testDescription: String { name }
}

private let base = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleAccept)"]
private let offerDeflate = PerMessageDeflate()
private let none = WebSocketHandshake.Agreement(subprotocol: nil, deflate: nil)
private func deflated(_ p: PerMessageDeflate.Parameters = .init()) -> WebSocketHandshake.Agreement {
    WebSocketHandshake.Agreement(subprotocol: nil, deflate: p)
}

let handshakeAccepted: [HandshakeCase] = [
    HandshakeCase(name: "minimal answer", fields: base, agreement: none),
    HandshakeCase(name: "tokens compared case-insensitively", fields: ["upgrade: WebSocket", "connection: keep-alive, UPGRADE", "sec-websocket-accept: \(sampleAccept)"], agreement: none),
    HandshakeCase(name: "accept value with surrounding whitespace", fields: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept:   \(sampleAccept) "], agreement: none),
    HandshakeCase(name: "offered subprotocol chosen", fields: base + ["Sec-WebSocket-Protocol: superchat"], subprotocols: ["chat", "superchat"], agreement: .init(subprotocol: "superchat")),
    HandshakeCase(name: "subprotocols offered, none chosen", fields: base, subprotocols: ["chat"], agreement: none),
    HandshakeCase(name: "deflate offered, not accepted", fields: base, deflate: offerDeflate, agreement: none),
    HandshakeCase(name: "deflate accepted with no parameters", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate"], deflate: offerDeflate, agreement: deflated()),
    HandshakeCase(name: "deflate: no context takeover, client window 10", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits=10"], deflate: offerDeflate, agreement: deflated(.init(serverNoContextTakeover: true, clientMaxWindowBits: 10))),
    HandshakeCase(name: "deflate: requested server window confirmed smaller", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate;server_max_window_bits=9"], deflate: PerMessageDeflate(requestServerMaxWindowBits: 10), agreement: deflated(.init(serverMaxWindowBits: 9))),
    HandshakeCase(name: "deflate: server window without a request", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=8"], deflate: offerDeflate, agreement: deflated(.init(serverMaxWindowBits: 8))),
    HandshakeCase(name: "deflate: quoted window value", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=\"12\""], deflate: offerDeflate, agreement: deflated(.init(clientMaxWindowBits: 12))),
    HandshakeCase(name: "deflate: client limit applies without an answer", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate"], deflate: PerMessageDeflate(clientMaxWindowBits: 11), agreement: deflated(.init(clientMaxWindowBits: 11))),
    HandshakeCase(name: "deflate: both context takeovers off", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover"], deflate: PerMessageDeflate(requestServerNoContextTakeover: true, clientNoContextTakeover: true), agreement: deflated(.init(serverNoContextTakeover: true, clientNoContextTakeover: true))),
    HandshakeCase(name: "deflate: empty list elements around it", fields: base + ["Sec-WebSocket-Extensions: , permessage-deflate ,"], deflate: offerDeflate, agreement: deflated()),
]

let handshakeRefused: [HandshakeCase] = [
    // MARK: Status, Upgrade, Connection (RFC 6455 §4.1 checks 1-3)
    HandshakeCase(name: "200 instead of 101", status: 200, fields: base, refusal: .status),
    HandshakeCase(name: "426 Upgrade Required", status: 426, fields: base, refusal: .status),
    HandshakeCase(name: "no Upgrade", fields: ["Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .upgradeField),
    HandshakeCase(name: "Upgrade to h2c", fields: ["Upgrade: h2c", "Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .upgradeField),
    HandshakeCase(name: "Upgrade listing two protocols", fields: ["Upgrade: websocket, h2c", "Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .upgradeField),
    HandshakeCase(name: "no Connection", fields: ["Upgrade: websocket", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .connectionField),
    HandshakeCase(name: "Connection: close", fields: ["Upgrade: websocket", "Connection: close", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .connectionField),
    HandshakeCase(name: "Connection: upgraded (not the token)", fields: ["Upgrade: websocket", "Connection: upgraded", "Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .connectionField),

    // MARK: Sec-WebSocket-Accept (check 4)
    HandshakeCase(name: "no accept", fields: ["Upgrade: websocket", "Connection: Upgrade"], refusal: .accept),
    HandshakeCase(name: "accept of another key", fields: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: "AQIDBAUGBwgJCgsMDQ4PEA=="))"], refusal: .accept),
    HandshakeCase(name: "accept echoing the key", fields: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleKey)"], refusal: .accept),
    HandshakeCase(name: "accept in other letter case", fields: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(sampleAccept.lowercased())"], refusal: .accept),
    HandshakeCase(name: "two accept fields", fields: base + ["Sec-WebSocket-Accept: \(sampleAccept)"], refusal: .accept),

    // MARK: Sec-WebSocket-Protocol (check 6)
    HandshakeCase(name: "subprotocol not offered", fields: base + ["Sec-WebSocket-Protocol: mqtt"], subprotocols: ["chat"], refusal: .subprotocol),
    HandshakeCase(name: "subprotocol when none offered", fields: base + ["Sec-WebSocket-Protocol: chat"], refusal: .subprotocol),
    HandshakeCase(name: "two subprotocols chosen", fields: base + ["Sec-WebSocket-Protocol: chat, superchat"], subprotocols: ["chat", "superchat"], refusal: .subprotocol),
    HandshakeCase(name: "two subprotocol fields", fields: base + ["Sec-WebSocket-Protocol: chat", "Sec-WebSocket-Protocol: chat"], subprotocols: ["chat"], refusal: .subprotocol),
    HandshakeCase(name: "subprotocol in other letter case", fields: base + ["Sec-WebSocket-Protocol: Chat"], subprotocols: ["chat"], refusal: .subprotocol),

    // MARK: Sec-WebSocket-Extensions (check 5, RFC 6455 §9.1)
    HandshakeCase(name: "extension not offered", fields: base + ["Sec-WebSocket-Extensions: x-webkit-deflate-frame"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "deflate when no extension offered", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate"], refusal: .extensionList),
    HandshakeCase(name: "deflate twice", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate, permessage-deflate"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "deflate twice across fields", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate", "Sec-WebSocket-Extensions: permessage-deflate"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: trailing semicolon", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate;"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: empty value", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits="], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: quoted value not a token", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=\"1 2\""], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: unterminated quote", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=\"12"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: only empty elements", fields: base + ["Sec-WebSocket-Extensions: , ,"], deflate: offerDeflate, refusal: .extensionList),
    HandshakeCase(name: "grammar: junk after a name", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate x"], deflate: offerDeflate, refusal: .extensionList),

    // MARK: permessage-deflate parameters (RFC 7692 §7.1)
    HandshakeCase(name: "unknown parameter", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; mem_level=8"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "parameter twice", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_no_context_takeover"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "no_context_takeover with a value", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover=1"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "window bits 7", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=7"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "window bits 16", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=16"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "window bits with a leading zero", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=09"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "window bits without a value", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "client window 8: zlib cannot deflate with it", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=8"], deflate: offerDeflate, refusal: .extensionParameter),
    HandshakeCase(name: "client window above the offered limit", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=12"], deflate: PerMessageDeflate(clientMaxWindowBits: 10), refusal: .extensionParameter),
    HandshakeCase(name: "server window above the request", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=12"], deflate: PerMessageDeflate(requestServerMaxWindowBits: 10), refusal: .extensionParameter),
    HandshakeCase(name: "server window requested, not confirmed", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate"], deflate: PerMessageDeflate(requestServerMaxWindowBits: 10), refusal: .extensionParameter),
    HandshakeCase(name: "server no-context-takeover requested, not confirmed", fields: base + ["Sec-WebSocket-Extensions: permessage-deflate"], deflate: PerMessageDeflate(requestServerNoContextTakeover: true), refusal: .extensionParameter),
]

@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    /// Fields kept as received, repeated names included, as the transport keeps a response head's.
    private func headers(_ lines: [String]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in lines {
            let colon = line.firstIndex(of: ":")!
            headers.appendField(name: String(line[..<colon]), value: String(line[line.index(after: colon)...].drop(while: { $0 == " " })))
        }
        return headers
    }

    @Test("RFC 6455 §1.3: the sample key's accept value")
    func sampleAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: sampleKey) == sampleAccept)
    }

    @Test("keys: 16 random bytes in base64, fresh each time")
    func keys() throws {
        var seeded = SplitMix(seed: 42)
        let a = try WebSocketHandshake(using: &seeded).key
        var again = SplitMix(seed: 42)
        #expect(try WebSocketHandshake(using: &again).key == a, "the key is a function of the generator")
        #expect(a.count == 24 && Data(base64Encoded: a)?.count == 16)
        let system = try (0..<8).map { _ in try WebSocketHandshake().key }
        #expect(Set(system).count == 8)
        #expect(system.allSatisfy { Data(base64Encoded: $0)?.count == 16 })
    }

    @Test("request fields")
    func requestFields() throws {
        let plain = try WebSocketHandshake(key: sampleKey)
        #expect(plain.requestFields.map { "\($0.name): \($0.value)" } == [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(sampleKey)", "Sec-WebSocket-Version: 13",
        ])
        let full = try WebSocketHandshake(key: sampleKey, subprotocols: ["chat", "v2.json"], deflate: PerMessageDeflate(requestServerNoContextTakeover: true, requestServerMaxWindowBits: 10))
        #expect(full.requestFields.suffix(2).map { "\($0.name): \($0.value)" } == [
            "Sec-WebSocket-Protocol: chat, v2.json",
            "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits",
        ])
        #expect(PerMessageDeflate(clientMaxWindowBits: 12).offer.fieldValue == "permessage-deflate; client_max_window_bits=12")
    }

    @Test("offers that are refused before sending", arguments: [["a b"], [""], ["chat", "chat"], ["ü"], ["x,y"]])
    func badOffers(_ subprotocols: [String]) {
        do throws(WebSocketHandshakeError) {
            _ = try WebSocketHandshake(key: sampleKey, subprotocols: subprotocols)
            Issue.record("offered \(subprotocols)")
        } catch {
            #expect(error.reason == .offer)
        }
    }

    @Test("answers accepted", arguments: handshakeAccepted)
    func accepted(_ c: HandshakeCase) throws {
        let handshake = try WebSocketHandshake(key: sampleKey, subprotocols: c.subprotocols, deflate: c.deflate)
        #expect(try handshake.validate(status: c.status, headers: headers(c.fields)) == c.agreement)
    }

    @Test("answers refused", arguments: handshakeRefused)
    func refused(_ c: HandshakeCase) throws {
        let handshake = try WebSocketHandshake(key: sampleKey, subprotocols: c.subprotocols, deflate: c.deflate)
        do throws(WebSocketHandshakeError) {
            let agreement = try handshake.validate(status: c.status, headers: headers(c.fields))
            Issue.record("accepted: \(agreement)")
        } catch {
            #expect(error.reason == c.refusal, "\(error)")
        }
    }

    @Test("extension list grammar")
    func extensionList() {
        typealias P = WebSocketExtension.Parameter
        #expect(WebSocketExtension.parseList(["foo, bar; baz=2"]) == [
            WebSocketExtension(name: "foo", parameters: []),
            WebSocketExtension(name: "bar", parameters: [P(name: "baz", value: "2")]),
        ])
        #expect(WebSocketExtension.parseList(["a ; b = \"c\\d\" ;e", "f"]) == [
            WebSocketExtension(name: "a", parameters: [P(name: "b", value: "cd"), P(name: "e", value: nil)]),
            WebSocketExtension(name: "f", parameters: []),
        ])
        for bad in ["", ";a", "a;;b", "a,b=", "a; b=\"\"", "a; =1", "a b", "a; b=c d", "\"a\"", "a; b=\"c", "a\u{1}"] {
            #expect(WebSocketExtension.parseList([bad]) == nil, "\(bad.debugDescription)")
        }
    }
}
