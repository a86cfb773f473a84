// The WebSocket connection machine with no socket: each case feeds a sequence of parser events
// and user intents and expects the exact actions (RFC 6455 §5.5, §7).
import Testing
import Wire
@testable import Client

/// One input to the machine.
enum WSInput: Sendable, CustomStringConvertible {
    case event(WebSocketConnectionStateMachine.ReceivedEvent)
    case close(WebSocketCloseCode?, String)
    case parseError(WebSocketError.Code)
    case eof
    case timeout

    var description: String {
        switch self {
        case .event(let e): return "\(e)"
        case .close(let c, let r): return "close(\(c.map(\.description) ?? "-"), \(r))"
        case .parseError(let c): return "parseError(\(c))"
        case .eof: return "eof"
        case .timeout: return "timeout"
        }
    }
}

struct WSMachineCase: CustomTestStringConvertible, Sendable {
    var name: String
    var steps: [(WSInput, WebSocketConnectionStateMachine.Action)]
    var canSendAfter: Bool
    var testDescription: String { name }
}

private typealias A = WebSocketConnectionStateMachine.Action
private let bye = Array("bye".utf8)

let wsMachineCases: [WSMachineCase] = [
    WSMachineCase(name: "text message assembled from fragments", steps: [
        (.event(.messageStart(.text)), .none), (.event(.messageData(Array("hé".utf8))), .none),
        (.event(.messageData(Array("llo".utf8))), .none), (.event(.messageEnd), .deliver(.text("héllo"))),
    ], canSendAfter: true),
    WSMachineCase(name: "empty binary message", steps: [
        (.event(.messageStart(.binary)), .none), (.event(.messageEnd), .deliver(.binary([]))),
    ], canSendAfter: true),
    WSMachineCase(name: "ping between fragments answered, message intact", steps: [
        (.event(.messageStart(.binary)), .none), (.event(.messageData([1])), .none),
        (.event(.ping([7, 7])), .sendPong([7, 7])), (.event(.pong([])), .pongReceived([])),
        (.event(.messageData([2])), .none), (.event(.messageEnd), .deliver(.binary([1, 2]))),
    ], canSendAfter: true),
    WSMachineCase(name: "peer closes: reply echoing the code, then EOF finishes with it", steps: [
        (.event(.close(.goingAway, reason: bye)), .replyClose(.goingAway, reason: bye, reported: .goingAway)),
        (.eof, .finish(.goingAway)), (.eof, .none),
    ], canSendAfter: false),
    WSMachineCase(name: "peer closes without a code: empty reply, 1005 reported", steps: [
        (.event(.close(nil, reason: [])), .replyClose(nil, reason: [], reported: .noStatusReceived)),
        (.timeout, .finish(.noStatusReceived)),
    ], canSendAfter: false),
    WSMachineCase(name: "we close: data sent before the peer's close still delivered (issue 22), no pong, pongs reported, peer's code wins", steps: [
        (.close(.normalClosure, "bye"), .sendClose(.normalClosure, reason: bye)),
        (.event(.messageStart(.text)), .none), (.event(.messageData([0x61])), .none), (.event(.messageEnd), .deliver(.text("a"))),
        (.event(.messageStart(.binary)), .none), (.event(.messageData([1, 2])), .none), (.event(.messageEnd), .deliver(.binary([1, 2]))),
        (.event(.ping([1])), .none), (.event(.pong([2])), .pongReceived([2])),
        (.event(.close(.normalClosure, reason: [])), .closeHandshakeDone(.normalClosure, reason: [])),
        (.eof, .finish(.normalClosure)),
    ], canSendAfter: false),
    WSMachineCase(name: "we close mid-message: the message begun before is finished and delivered", steps: [
        (.event(.messageStart(.text)), .none), (.event(.messageData(Array("he".utf8))), .none),
        (.close(.goingAway, ""), .sendClose(.goingAway, reason: [])),
        (.event(.messageData(Array("llo".utf8))), .none), (.event(.messageEnd), .deliver(.text("hello"))),
        (.event(.close(.goingAway, reason: [])), .closeHandshakeDone(.goingAway, reason: [])),
        (.event(.messageStart(.text)), .none), (.eof, .finish(.goingAway)),
    ], canSendAfter: false),
    WSMachineCase(name: "we close twice: the second is ignored", steps: [
        (.close(nil, "ignored without a code"), .sendClose(nil, reason: [])), (.close(.goingAway, ""), .none),
    ], canSendAfter: false),
    WSMachineCase(name: "we close, the peer never answers: 1006 on timeout", steps: [
        (.close(.normalClosure, ""), .sendClose(.normalClosure, reason: [])), (.timeout, .finish(.abnormalClosure)),
        (.eof, .none),
    ], canSendAfter: false),
    WSMachineCase(name: "EOF while open: 1006", steps: [
        (.event(.messageStart(.text)), .none), (.eof, .finish(.abnormalClosure)),
    ], canSendAfter: false),
    WSMachineCase(name: "invalid UTF-8: fail with 1007", steps: [
        (.parseError(.invalidUTF8), .failConnection(.invalidFramePayloadData, detail: "invalid-utf8: x")), (.eof, .none),
    ], canSendAfter: false),
    WSMachineCase(name: "message too large: fail with 1009", steps: [
        (.parseError(.messageTooLarge), .failConnection(.messageTooBig, detail: "message-too-large: x")),
    ], canSendAfter: false),
    WSMachineCase(name: "protocol error while closing: fail with 1002", steps: [
        (.close(.normalClosure, ""), .sendClose(.normalClosure, reason: [])),
        (.parseError(.reservedOpcode), .failConnection(.protocolError, detail: "reserved-opcode: x")),
        (.close(.goingAway, ""), .none),
    ], canSendAfter: false),
    WSMachineCase(name: "a parse error after the close handshake changes nothing", steps: [
        (.event(.close(.normalClosure, reason: [])), .replyClose(.normalClosure, reason: [], reported: .normalClosure)),
        (.parseError(.dataAfterClose), .none), (.eof, .finish(.normalClosure)),
    ], canSendAfter: false),
]

@Suite("WebSocket connection state machine")
struct WebSocketConnectionStateMachineTests {
    @Test("event sequences and their actions", arguments: wsMachineCases)
    func sequence(_ c: WSMachineCase) {
        var machine = WebSocketConnectionStateMachine()
        #expect(machine.canSend)
        for (i, (input, expected)) in c.steps.enumerated() {
            let action: A
            switch input {
            case .event(let event): action = machine.received(event)
            case .close(let code, let reason): action = machine.closeRequested(code, reason: Array(reason.utf8))
            case .parseError(let code): action = machine.parseFailed(WebSocketError(code, "x"))
            case .eof: action = machine.endOfStream()
            case .timeout: action = machine.closeTimedOut()
            }
            #expect(action == expected, "step \(i): \(input)")
        }
        #expect(machine.canSend == c.canSendAfter)
    }
}
