// RequestStateMachine's follow-up transitions (redirects and answered challenges) without
// sockets: each row is a sequence of events and the actions and public states expected.
import LariatTestSupport
import Testing
@testable import Client

@Suite("RequestStateMachine follow-ups")
struct RequestStateMachineFollowUpTests {
    typealias Machine = RequestStateMachine<Int, String, String>
    typealias Action = Machine.Action

    /// One input event of a follow-up row.
    enum Event: Sendable, CustomStringConvertible {
        case resume, created(Int), head(Machine.HeadKind), ended(failed: Bool), cancel, redirectDecided(String?), recorded
        var description: String {
            switch self {
            case .resume: "resume"
            case .created(let id): "created(\(id))"
            case .head(let kind): "head(\(kind))"
            case .ended(let failed): failed ? "ended(failed)" : "ended"
            case .cancel: "cancel"
            case .redirectDecided(let follow): "redirectDecided(\(follow ?? "nil"))"
            case .recorded: "recorded"
            }
        }
        func apply(to machine: inout Machine) -> Action {
            switch self {
            case .resume: machine.resume()
            case .created(let id): machine.exchangeCreated(id)
            // The head's own answer (record or ignore) has its own table (`headAnswers`).
            case .head(let kind): { _ = machine.transportHeadReceived(kind); return .none }()
            case .ended(let failed): machine.transportEnded(failed: failed)
            case .cancel: machine.cancel()
            case .redirectDecided(let follow): machine.redirectDecided(follow: follow)
            case .recorded: machine.outcomeRecorded(failed: false, hasRetrier: false)
            }
        }
    }

    /// A row: the scenario, then each event with the action and public state after it.
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var steps: [(Event, Action, Request.State)]
        var followUps: Int
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a decided redirect drains, then starts the next exchange", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.decided("next")), .none, .resumed), (.ended(failed: false), .startFollowUp("next"), .resumed),
            (.created(2), .executeExchange(2), .resumed), (.head(.final), .none, .resumed),
            (.ended(failed: false), .complete, .resumed), (.recorded, .runHandlers([]), .finished),
        ], followUps: 1),
        Row(name: "a draining exchange that fails ends the request with its error", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.decided("next")), .none, .resumed), (.ended(failed: true), .complete, .resumed),
        ], followUps: 0),
        Row(name: "cancel while draining cancels the exchange", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.decided("next")), .none, .resumed), (.cancel, .cancelExchange(1), .cancelled),
            (.ended(failed: true), .complete, .cancelled), (.recorded, .runHandlers([]), .cancelled),
        ], followUps: 0),
        Row(name: "an undecided redirect asks the handler once the response ended; follow", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.undecided("next")), .none, .resumed), (.ended(failed: false), .askRedirectHandler("next"), .resumed),
            (.redirectDecided("chosen"), .startFollowUp("chosen"), .resumed), (.created(2), .executeExchange(2), .resumed),
        ], followUps: 1),
        Row(name: "the handler says no: the redirect response is delivered", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.undecided("next")), .none, .resumed), (.ended(failed: false), .askRedirectHandler("next"), .resumed),
            (.redirectDecided(nil), .complete, .resumed), (.recorded, .runHandlers([]), .finished),
        ], followUps: 0),
        Row(name: "cancel while the handler decides: its answer finishes the request cancelled", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.undecided("next")), .none, .resumed), (.ended(failed: false), .askRedirectHandler("next"), .resumed),
            (.cancel, .none, .cancelled), (.redirectDecided("chosen"), .complete, .cancelled),
            (.recorded, .runHandlers([]), .cancelled),
        ], followUps: 0),
        Row(name: "an undecided redirect whose exchange fails completes without asking", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.undecided("next")), .none, .resumed), (.ended(failed: true), .complete, .resumed),
        ], followUps: 0),
        Row(name: "cancel during an undecided redirect's body cancels the exchange", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.undecided("next")), .none, .resumed), (.cancel, .cancelExchange(1), .cancelled),
            (.ended(failed: false), .complete, .cancelled),
        ], followUps: 0),
        Row(name: "a redirect chain: two decided hops", steps: [
            (.resume, .startExchange, .resumed), (.created(1), .executeExchange(1), .resumed),
            (.head(.decided("next")), .none, .resumed), (.ended(failed: false), .startFollowUp("next"), .resumed),
            (.created(2), .executeExchange(2), .resumed), (.head(.decided("next")), .none, .resumed),
            (.ended(failed: false), .startFollowUp("next"), .resumed), (.created(3), .executeExchange(3), .resumed),
        ], followUps: 2),
    ]

    @Test("follow-up transitions", arguments: rows)
    func row(_ row: Row) {
        var machine = Machine()
        for (index, (event, action, state)) in row.steps.enumerated() {
            let got = event.apply(to: &machine)
            #expect(got == action, "step \(index) \(event)")
            #expect(machine.publicState == state, "step \(index) \(event)")
        }
        #expect(machine.followUpCount == row.followUps)
    }

    /// Random interleavings of cancels with the transport's heads (final, decided, undecided),
    /// ends (ok or failed) and the redirect handler's answers, as `Request` produces them: one
    /// head and one end per exchange, one answer per question. The public state only moves as
    /// `canTransition(to:)` allows, one exchange runs at a time, every started follow-up is
    /// counted, and every walk ends with its handlers run. Deterministic: a fixed-seed generator.
    @Test("random walks through follow-ups")
    func randomWalks() {
        let seed: UInt64 = 0xF011_0F05
        var generator = SplitMix(seed: seed)
        for walk in 0..<2_000 {
            var machine = Machine()
            var trace: [String] = ["seed \(seed) walk \(walk)"]
            var nextID = 0, startPending = false, running: Int?, headSeen = false, asked = false, completing = false
            var followUps = 0, finished = false
            _ = machine.handlerAppended("h")
            var action = machine.resume()
            for _ in 0..<60 where !finished {
                switch action {
                case .startExchange, .startFollowUp: startPending = true
                case .executeExchange(let id): #expect(running == nil, "\(trace)"); running = id; headSeen = false
                case .askRedirectHandler: asked = true
                case .complete: completing = true
                case .runHandlers(let handlers): #expect(handlers == ["h"], "\(trace)"); finished = true
                default: break
                }
                if case .startFollowUp = action { followUps += 1 }
                if finished { break }
                var choices: [Event] = []
                if generator.next() % 6 == 0 { choices.append(.cancel) }
                if startPending { choices.append(.created(nextID)) }
                if running != nil, !headSeen {
                    choices += [.head(.final), .head(.decided("next")), .head(.undecided("next")), .ended(failed: true)]
                }
                if running != nil, headSeen { choices += [.ended(failed: false), .ended(failed: generator.next() % 5 == 0)] }
                if asked { choices.append(.redirectDecided(generator.next() % 2 == 0 ? "chosen" : nil)) }
                if completing { choices.append(.recorded) }
                guard !choices.isEmpty else { Issue.record("stuck: \(trace)"); break }
                let event = choices[Int(generator.next() % UInt64(choices.count))]
                trace.append(event.description)
                switch event {
                case .created: startPending = false; nextID += 1
                case .head: headSeen = true
                case .ended: running = nil
                case .redirectDecided: asked = false
                case .recorded: completing = false
                default: break
                }
                let before = machine.publicState
                action = event.apply(to: &machine)
                #expect(before == machine.publicState || before.canTransition(to: machine.publicState), "\(trace)")
                if case .cancelExchange(let id) = action { #expect(id == running, "\(trace)") }
            }
            #expect(finished, "\(trace)")
            #expect(machine.followUpCount == followUps, "\(trace)")
        }
    }

    /// The head's own answer: recorded while the exchange runs, whatever its kind; ignored once
    /// a cancel is on its way (nothing is recorded, the end follows). No action comes of either:
    /// `Request.perform` has no head case to trap on.
    @Test("a head is recorded while running, ignored while cancelling", arguments: ["final", "decided", "undecided"])
    func headAnswers(_ kind: String) {
        let head: Machine.HeadKind = kind == "final" ? .final : kind == "decided" ? .decided("next") : .undecided("next")
        var running = Machine()
        _ = running.resume()
        _ = running.exchangeCreated(1)
        #expect(running.transportHeadReceived(head) == .record)
        var cancelling = Machine()
        _ = cancelling.resume()
        _ = cancelling.exchangeCreated(1)
        #expect(cancelling.cancel() == .cancelExchange(1))
        #expect(cancelling.transportHeadReceived(head) == .ignore)
        #expect(cancelling.transportEnded(failed: true) == .complete)
        #expect(cancelling.publicState == .cancelled)
    }

    /// The follow-up's request travels in the states: the action that starts the next exchange
    /// carries the request the head decided, or the one the redirect handler chose.
    @Test("the next request travels from the head to the start")
    func nextRequestTravels() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.exchangeCreated(1)
        _ = machine.transportHeadReceived(.undecided("rules' choice"))
        #expect(machine.transportEnded(failed: false) == .askRedirectHandler("rules' choice"))
        #expect(machine.redirectDecided(follow: "handler's choice") == .startFollowUp("handler's choice"))
        _ = machine.exchangeCreated(2)
        _ = machine.transportHeadReceived(.decided("challenge answer"))
        #expect(machine.transportEnded(failed: false) == .startFollowUp("challenge answer"))
    }

    @Test("redirectDecided outside awaitingRedirectHandler traps")
    func decidedTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = RequestStateMachine<Int, String, String>()
            _ = machine.redirectDecided(follow: "next")
        }
    }
}
