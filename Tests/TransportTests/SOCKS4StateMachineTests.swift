// The SOCKS4/4a handshake without sockets: the request bytes (checked against what curl 7.88.1
// sends to a recording server), then the proxy's reply fed whole and byte by byte.
@testable import Transport
import Testing

@Suite struct SOCKS4StateMachineTests {
    /// What one handshake ends in.
    enum Outcome: Equatable {
        case established([UInt8])
        case failed(ProxyError.Code, reply: UInt8?, detail: String)
        case needsMore
    }

    /// One row: the destination and user id, the request expected, the proxy's bytes, the outcome.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var destination: SOCKS4StateMachine.Destination
        var userID = ""
        var request: [UInt8]?
        var answer: [UInt8] = []
        var outcome: Outcome
        var testDescription: String { name }
    }

    static let granted: [UInt8] = [0, 90, 0, 80, 127, 0, 0, 1]
    static let rows: [Row] = [
        // curl --socks4 p http://127.0.0.1:9/x sends 04 01 0009 7f000001 00.
        Row(name: "SOCKS4, IPv4, granted", destination: .address([127, 0, 0, 1]), request: [4, 1, 0, 9, 127, 0, 0, 1, 0],
            answer: granted, outcome: .established([])),
        Row(name: "user id sent, password not (curl -x socks4://u:p@)", destination: .address([127, 0, 0, 1]), userID: "u",
            request: [4, 1, 0, 9, 127, 0, 0, 1, 0x75, 0], answer: granted, outcome: .established([])),
        // curl --socks4a p http://example.invalid/x: 0.0.0.1, empty user id, the name.
        Row(name: "SOCKS4a, name", destination: .name("ex.invalid"),
            request: [4, 1, 0, 9, 0, 0, 0, 1, 0] + Array("ex.invalid".utf8) + [0], answer: granted, outcome: .established([])),
        Row(name: "bytes after the reply belong to the tunnel", destination: .address([10, 0, 0, 1]), request: [4, 1, 0, 9, 10, 0, 0, 1, 0],
            answer: granted + [0x48, 0x54], outcome: .established([0x48, 0x54])),
        Row(name: "91 rejected, curl's words", destination: .address([127, 0, 0, 1]), answer: [0, 91, 0, 80, 127, 0, 0, 1],
            outcome: .failed(.socksRequestFailed, reply: 91,
                             detail: "Can't complete SOCKS4 connection to 127.0.0.1:80. (91), request rejected or failed.")),
        Row(name: "92 identd unreachable", destination: .address([127, 0, 0, 1]), answer: [0, 92, 1, 0, 10, 0, 0, 2],
            outcome: .failed(.socksRequestFailed, reply: 92, detail: "Can't complete SOCKS4 connection to 10.0.0.2:256. (92), "
                             + "request rejected because SOCKS server cannot connect to identd on the client.")),
        Row(name: "93 identd differs", destination: .address([127, 0, 0, 1]), answer: [0, 93, 0, 0, 0, 0, 0, 0],
            outcome: .failed(.socksRequestFailed, reply: 93, detail: "Can't complete SOCKS4 connection to 0.0.0.0:0. (93), "
                             + "request rejected because the client program and identd report different user-ids.")),
        Row(name: "unknown code", destination: .address([127, 0, 0, 1]), answer: [0, 7, 0, 0, 0, 0, 0, 0],
            outcome: .failed(.socksRequestFailed, reply: 7, detail: "Can't complete SOCKS4 connection to 0.0.0.0:0. (7), Unknown.")),
        Row(name: "wrong version", destination: .address([127, 0, 0, 1]), answer: [5, 90, 0, 80, 127, 0, 0, 1],
            outcome: .failed(.malformedResponse, reply: nil, detail: "SOCKS4 reply has wrong version, version should be 0.")),
        Row(name: "short reply", destination: .address([127, 0, 0, 1]), answer: [0, 90, 0], outcome: .needsMore),
        Row(name: "IPv6 destination", destination: .address([UInt8](repeating: 0, count: 15) + [1]),
            outcome: .failed(.socksRequestFailed, reply: nil, detail: "SOCKS4 connection to an IPv6 address not supported")),
        Row(name: "user id with NUL", destination: .address([127, 0, 0, 1]), userID: "a\u{0}b",
            outcome: .failed(.socksRequestTooLong, reply: nil, detail: "the SOCKS4 user id is over 255 bytes or holds a NUL")),
    ]

    /// Runs `row` with its answer in one piece or byte by byte.
    static func run(_ row: Row, chunked: Bool) -> (request: [UInt8]?, outcome: Outcome) {
        var machine = SOCKS4StateMachine(destination: row.destination, port: 9, userID: row.userID, proxy: "socks4://p:1080")
        switch machine.start() {
        case .send(let request):
            for piece in chunked ? row.answer.map({ [$0] }) : [row.answer] {
                switch machine.received(piece) {
                case .read, .send: continue
                case .established(let leftover): return (request, .established(leftover))
                case .fail(let error): return (request, .failed(error.code, reply: error.socksReply, detail: error.detail))
                }
            }
            return (request, .needsMore)
        case .fail(let error):
            return (nil, .failed(error.code, reply: error.socksReply, detail: error.detail))
        case .read, .established:
            return (nil, .needsMore)
        }
    }

    @Test("SOCKS4 handshakes", arguments: rows)
    func handshake(_ row: Row) {
        for chunked in [false, true] {
            let (request, outcome) = Self.run(row, chunked: chunked)
            if let expected = row.request { #expect(request == expected) }
            // Fed byte by byte, the handshake ends before the bytes after the reply arrive.
            if chunked, case .established = row.outcome {
                #expect(outcome == .established([]))
            } else {
                #expect(outcome == row.outcome, "chunked: \(chunked)")
            }
        }
    }

    @Test("the proxy closes before replying: curl's message")
    func closed() {
        var machine = SOCKS4StateMachine(destination: .address([127, 0, 0, 1]), port: 9, userID: "", proxy: "socks4://p:1080")
        _ = machine.start()
        #expect(machine.received([0, 90]) == .read)
        guard case .fail(let error) = machine.endOfStream() else { Issue.record("no failure"); return }
        #expect(error.code == .closed)
        #expect(error.detail == "Failed to receive SOCKS4 connect request ack.")
    }
}
