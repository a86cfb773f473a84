// The gate that holds an exchange's end while handler calls handed out before it are
// outstanding (Core/ExchangeEndGate.swift), without sockets: events in, what passes out.
import Testing
@testable import Client

@Suite("Exchange end gate")
struct ExchangeEndGateTests {
    /// (scenario, events: "+n" n handed out, "-n" n handled, "end" the exchange ended;
    /// answers: "pass" the end passes now, "held", "release" a handled call released it, "-")
    static let rows: [(String, [String], [String])] = [
        ("nothing outstanding: the end passes at once", ["end"], ["pass"]),
        ("handled before the end: it passes at once", ["+2", "-1", "-1", "end"], ["-", "-", "-", "pass"]),
        ("outstanding at the end: held until the last call reports", ["+2", "end", "-1", "-1"], ["-", "held", "-", "release"]),
        ("several handed out in one go, handled together", ["+3", "end", "-3"], ["-", "held", "release"]),
        ("handed out after the end (a declined redirect's body): it waits with the rest", ["+1", "end", "+1", "-1", "-1"], ["-", "held", "-", "-", "release"]),
        ("no handler to hand to: nothing outstanding", ["+0", "end"], ["-", "pass"]),
        ("open again after a release: the next exchange's end passes", ["+1", "end", "-1", "end"], ["-", "held", "release", "pass"]),
    ]

    @Test(arguments: rows.indices)
    func gate(_ index: Int) {
        let (name, events, expected) = Self.rows[index]
        var gate = ExchangeEndGate<String>.open
        var answers: [String] = []
        for event in events {
            switch event.first {
            case "+":
                gate.handedOut(Int(event.dropFirst())!)
                answers.append("-")
            case "-":
                answers.append(gate.handled(Int(event.dropFirst())!) == "the end" ? "release" : "-")
            default:
                answers.append(gate.ended("the end") == "the end" ? "pass" : "held")
            }
        }
        #expect(answers == expected, "\(name)")
        #expect(gate == .open, "\(name): every row ends with nothing outstanding")
    }
}
