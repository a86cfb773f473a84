// The stream side of back-pressure without sockets (STYLE.md §3): a data stream's high/low water
// marks and its byte ledger, events in, answers out. The connection's paused reading is the
// transport's (TransportTests/BackPressureStateTests).
import Testing
@testable import Client

@Suite("Back-pressure: stream flow control")
struct StreamFlowControlTests {
    /// (scenario, events: +n received, -n consumed, "d" awaiting a disposition, "a" allowed;
    /// answers: "pause", "resume" or "-"; buffered at the end)
    static let flowRows: [(String, [String], [String], Int)] = [
        ("below the high mark: reading goes on", ["+100", "+100"], ["-", "-"], 200),
        ("above the high mark: pause once", ["+600", "+600", "+100"], ["-", "pause", "-"], 1300),
        ("drained to the low mark: resume", ["+1200", "-600", "-100"], ["pause", "-", "resume"], 500),
        ("drained but not to the low mark: still paused", ["+1200", "-200"], ["pause", "-"], 1000),
        ("awaiting a disposition pauses at once", ["d", "+10"], ["pause", "-"], 10),
        ("allowed: resume", ["d", "a"], ["pause", "resume"], 0),
        ("allowed while the buffer is full: stays paused until drained", ["d", "+2000", "a", "-1600"], ["pause", "-", "-", "resume"], 400),
        ("drained while awaiting the disposition: no resume until allowed", ["+2000", "d", "-2000", "a"], ["pause", "-", "-", "resume"], 0),
    ]

    @Test(arguments: flowRows.indices)
    func flowControl(_ index: Int) {
        let (name, events, expected, buffered) = Self.flowRows[index]
        var flow = StreamFlowControl(highWater: 1000, lowWater: 500)
        var answers: [String] = []
        for event in events {
            let changed: Bool
            let verb: String
            switch event.first {
            case "+": (changed, verb) = (flow.received(Int(event.dropFirst())!), "pause")
            case "-": (changed, verb) = (flow.consumed(Int(event.dropFirst())!), "resume")
            case "d": (changed, verb) = (flow.awaitDisposition(), "pause")
            default: (changed, verb) = (flow.dispositionReceived(), "resume")
            }
            answers.append(changed ? verb : "-")
        }
        #expect(answers == expected, "\(name)")
        #expect(flow.buffered == buffered, "\(name)")
    }

    /// The ledger behind the async API: chunks leave in order, newest first on a drop.
    @Test func byteLedger() {
        var ledger = ByteLedger()
        for size in 1...3000 { ledger.append(size) }
        let last = ledger.popLast()
        #expect(last == 3000)
        var total = 0
        for expected in 1...2000 { let got = ledger.popFirst(); total += got; #expect(got == expected) }
        let rest = ledger.removeAll()
        #expect(rest == (2001...2999).reduce(0, +))
        let (first, newest) = (ledger.popFirst(), ledger.popLast())
        #expect(first == 0 && newest == 0)
        _ = total
    }
}
