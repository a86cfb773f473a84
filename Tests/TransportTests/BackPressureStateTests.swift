// Back-pressure without sockets (STYLE.md §3): the connection machine's paused-read state, events
// in, answers out. The stream's high/low water marks are Client's (StreamFlowControlTests).
import Testing
import Wire
import EventLoop
@testable import Transport

@Suite("Back-pressure: paused reading")
struct BackPressureStateTests {
    typealias Machine = HTTP1ConnectionStateMachine<Int>
    typealias Table = HTTP1ConnectionStateMachineTests

    /// A machine inside a chunked body (one chunk parsed), idle timeout 2 s, deadline at 10 s.
    static func inBody() -> Machine {
        var machine = Machine()
        _ = machine.requestStarted(Table.request(idle: .seconds(2), deadline: Table.at(10)), run: 1, method: .get, now: Table.t0)
        _ = machine.bytesWritten(40, now: Table.t0)
        let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let step = head.withUnsafeBytes { machine.parse($0, now: Table.t0) }
        #expect(step.action == .forwardHead)
        return machine
    }

    /// An event of the paused-read table, at seconds after t0.
    enum Event: CustomStringConvertible {
        case pause, resume(at: Double), timer(at: Double), cancel, receive(String), hangUp
        var description: String {
            switch self {
            case .pause: "pause"
            case .resume(let t): "resume@\(t)"
            case .timer(let t): "timer@\(t)"
            case .cancel: "cancel"
            case .receive(let text): "receive \(text.debugDescription)"
            case .hangUp: "hang-up"
            }
        }
    }

    /// What the driver is told, spelled for a table.
    static func run(_ events: [Event], on machine: inout Machine) -> [String] {
        var out: [String] = []
        for event in events {
            switch event {
            case .pause: out.append("pause:\(machine.pauseReading())")
            case .resume(let t): out.append("resume:\(machine.resumeReading(now: Table.at(t)))")
            case .timer(let t): out.append("timer:\(Self.spell(machine.timerFired(now: Table.at(t))))")
            case .cancel: out.append("cancel:\(Self.spell(machine.cancelled()))")
            case .hangUp: out.append("hangUp:\(machine.peerHungUp())")
            case .receive(let text):
                var bytes = Array(text.utf8)
                while machine.isActive {
                    let step = bytes.withUnsafeBytes { machine.parse($0, now: Table.t0) }
                    if step.action != .none { out.append("parse:\(Self.spell(step.action))") }
                    bytes.removeFirst(step.consumed)
                    if step.action == .none && step.consumed == 0 { break }
                }
            }
            out.append(machine.timerDeadline.map { "timer at \(Double(($0 - Table.t0).components.seconds))" } ?? "no timer")
        }
        return out
    }

    /// An action without the generic type's name.
    static func spell(_ action: Machine.Action) -> String {
        switch action {
        case .fail(let failure, let retry, let run): "fail(\(failure), retry: \(retry), run \(run))"
        case .complete(let keepAlive, let run): "complete(keepAlive: \(keepAlive), run \(run))"
        default: "\(action)"
        }
    }

    // (scenario, events, expected answers with the timer after each)
    static let rows: [(String, [Event], [String])] = [
        ("pause in the body: the idle timeout stops, the deadline stays",
         [.pause], ["pause:true", "timer at 10.0"]),
        ("a second pause is nothing to do",
         [.pause, .pause], ["pause:true", "timer at 10.0", "pause:false", "timer at 10.0"]),
        ("paused past the idle timeout: no failure (we are the ones not reading)",
         [.pause, .timer(at: 5)], ["pause:true", "timer at 10.0", "timer:none", "timer at 10.0"]),
        ("resume restarts the idle timeout from the resume",
         [.pause, .resume(at: 6)], ["pause:true", "timer at 10.0", "resume:read", "timer at 8.0"]),
        ("after resuming, silence fails as before",
         [.pause, .resume(at: 6), .timer(at: 8)],
         ["pause:true", "timer at 10.0", "resume:read", "timer at 8.0", "timer:fail(idleTimeout(2.0 seconds), retry: false, run 1)", "no timer"]),
        ("the resource deadline fails a paused request",
         [.pause, .timer(at: 10)], ["pause:true", "timer at 10.0", "timer:fail(deadline, retry: false, run 1)", "no timer"]),
        ("cancel while paused",
         [.pause, .cancel], ["pause:true", "timer at 10.0", "cancel:fail(cancelled, retry: false, run 1)", "no timer"]),
        ("a resume that was never paused is ignored",
         [.resume(at: 1)], ["resume:ignored", "timer at 2.0"]),
        ("a late resume after a cancel is ignored",
         [.pause, .cancel, .resume(at: 1)],
         ["pause:true", "timer at 10.0", "cancel:fail(cancelled, retry: false, run 1)", "no timer", "resume:ignored", "no timer"]),
        ("resumed, the body goes on and ends with keep-alive",
         [.pause, .resume(at: 1), .receive("1\r\na\r\n0\r\n\r\n")],
         ["pause:true", "timer at 10.0", "resume:read", "timer at 3.0", "parse:forwardBody(Range(3..<4))", "parse:complete(keepAlive: true, run 1)", "no timer"]),
        ("a hang-up while reading is the driver's to report now",
         [.hangUp], ["hangUp:false", "timer at 2.0"]),
        ("a hang-up while paused waits in the state; the resume reads to the end",
         [.pause, .hangUp, .resume(at: 1)], ["pause:true", "timer at 10.0", "hangUp:true", "timer at 10.0", "resume:readToEnd", "timer at 3.0"]),
        ("paused again while reading to the end: the driver re-marks the hang-up for the next resume",
         [.pause, .hangUp, .resume(at: 1), .pause, .hangUp, .resume(at: 2)],
         ["pause:true", "timer at 10.0", "hangUp:true", "timer at 10.0", "resume:readToEnd", "timer at 3.0",
          "pause:true", "timer at 10.0", "hangUp:true", "timer at 10.0", "resume:readToEnd", "timer at 4.0"]),
        ("a hang-up while paused, then cancel: the request fails as cancelled",
         [.pause, .hangUp, .cancel], ["pause:true", "timer at 10.0", "hangUp:true", "timer at 10.0", "cancel:fail(cancelled, retry: false, run 1)", "no timer"]),
    ]

    @Test(arguments: rows.indices)
    func pausedReading(_ index: Int) {
        let (name, events, expected) = Self.rows[index]
        var machine = Self.inBody()
        #expect(Self.run(events, on: &machine) == expected, "\(name)")
    }

    /// Pausing is only for a body being read: not before the head, not once the response ended,
    /// not on an idle or closed connection.
    @Test func pauseOutsideTheBodyIsRefused() {
        var idle = Machine()
        let idlePaused = idle.pauseReading()
        #expect(!idlePaused)
        var waiting = Machine()
        _ = waiting.requestStarted(Table.request(), run: 1, method: .get, now: Table.t0)
        let waitingPaused = waiting.pauseReading()
        #expect(!waitingPaused)
        #expect(!waiting.isReadPaused)
        var done = Machine()
        _ = done.requestStarted(Table.request(), run: 1, method: .get, now: Table.t0)
        _ = done.bytesWritten(40, now: Table.t0)
        var outcomes = Table.run([.received(Table.ok)], on: &done)
        outcomes.removeAll()
        let donePaused = done.pauseReading()
        #expect(done.isIdle && !donePaused)
    }
}
