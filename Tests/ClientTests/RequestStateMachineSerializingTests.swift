// RequestStateMachine's serializing turn without sockets: response serializers run one at a
// time once the outcome stands, their completions are held until the last one ran, and a
// serializer's failure goes to the retrier (Alamofire retries after a serializer failure).
// Handlers are Strings; a serializer's held completion is "done(name)".
import Testing
@testable import Client

@Suite("RequestStateMachine serializing")
struct RequestStateMachineSerializingTests {
    typealias Machine = RequestStateMachine<Int, String, String>
    typealias Event = RequestStateMachineTests.Event
    typealias Action = Machine.Action

    /// A step: the event, the action it returns, and for `.serialized` whether the result is
    /// delivered at once (`nil` for other events).
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var steps: [(Event, Action, Bool?)]
        var final: Request.State
        var retryCount = 0
        var testDescription: String { name }
    }

    /// Resume, build exchange 1, end it: the machine is completing.
    static let ran: [(Event, Action, Bool?)] = [(.resume, .startExchange, nil), (.created(1), .executeExchange(1), nil), (.ended, .complete, nil)]

    static let cases: [Case] = [
        Case(name: "one serializer: delivered at once, the request finished", steps: [(.serializer("s"), .none, nil)] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("s", announcesFinish: true), nil),
            (.serialized("s", failed: false, retrier: true), .finishSerializing([]), true),
        ], final: .finished),
        Case(name: "two serializers take turns; the first's completion is held until the second ran", steps: [
            (.serializer("a"), .none, nil), (.handler("p"), .none, nil), (.serializer("b"), .none, nil),
        ] + ran + [
            (.recorded(failed: false, retrier: false), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: false, retrier: false), .runSerializer("b", announcesFinish: false), false),
            (.serialized("b", failed: false, retrier: false), .finishSerializing(["done(a)", "p", "done(b)"]), false),
        ], final: .finished),
        Case(name: "a serializer failure is retried: no completion for the attempt, every serializer again", steps: [
            (.serializer("a"), .none, nil), (.serializer("b"), .none, nil),
        ] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: false, retrier: true), .runSerializer("b", announcesFinish: false), false),
            (.serialized("b", failed: true, retrier: true), .askRetrier, false),
            (.decided(0.5), .scheduleRetry(delay: 0.5), nil), (.delayElapsed, .restartExchange, nil),
            (.created(2), .executeExchange(2), nil), (.ended, .complete, nil),
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: false, retrier: true), .runSerializer("b", announcesFinish: false), false),
            (.serialized("b", failed: false, retrier: true), .finishSerializing(["done(a)", "done(b)"]), false),
        ], final: .finished, retryCount: 1),
        Case(name: "retrier declines a serializer failure: its completion is held, the next runs", steps: [
            (.serializer("a"), .none, nil), (.serializer("b"), .none, nil),
        ] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: true, retrier: true), .askRetrier, false),
            (.decided(nil), .runSerializer("b", announcesFinish: false), nil),
            (.serialized("b", failed: false, retrier: true), .finishSerializing(["done(a)", "done(b)"]), false),
        ], final: .finished),
        Case(name: "doNotRetryWithError replaces the failed serializer's completion", steps: [(.serializer("a"), .none, nil)] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: true, retrier: true), .askRetrier, false),
            (.declinedReplacing("retryFailed(a)"), .finishSerializing(["retryFailed(a)"]), nil),
        ], final: .finished),
        Case(name: "a serializer failure without a retrier is delivered", steps: [(.serializer("a"), .none, nil)] + ran + [
            (.recorded(failed: false, retrier: false), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: true, retrier: false), .finishSerializing([]), true),
        ], final: .finished),
        Case(name: "the request's failure declined, then its serializer's: the retrier is asked twice", steps: [
            (.serializer("a"), .none, nil),
        ] + ran + [
            (.recorded(failed: true, retrier: true), .askRetrier, nil), (.decided(nil), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: true, retrier: true), .askRetrier, false),
            (.decided(nil), .finishSerializing(["done(a)"]), nil),
        ], final: .finished),
        // A cancel during serializing raced completion: the outcome stands and the request ends
        // `.finished` (it showed `.cancelled` with a successful response before; RequestLifecycle's
        // cancel race caught it), but no serializer failure is offered to the retrier after it.
        Case(name: "cancel while serializing: the failure is not offered, the outcome stands", steps: [
            (.serializer("a"), .none, nil),
        ] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.cancel, .none, nil), (.resume, .none, nil), (.suspend, .none, nil),
            (.serialized("a", failed: true, retrier: true), .finishSerializing([]), true),
        ], final: .finished),
        Case(name: "cancel while the retrier decides a serializer failure: no retry, its completion held", steps: [
            (.serializer("a"), .none, nil),
        ] + ran + [
            (.recorded(failed: false, retrier: true), .runSerializer("a", announcesFinish: true), nil),
            (.serialized("a", failed: true, retrier: true), .askRetrier, false), (.cancel, .none, nil),
            (.decided(0), .finishSerializing(["done(a)"]), nil),
        ], final: .finished),
        Case(name: "a serializer added while serializing takes its turn", steps: [(.serializer("a"), .none, nil)] + ran + [
            (.recorded(failed: false, retrier: false), .runSerializer("a", announcesFinish: true), nil),
            (.serializer("b"), .none, nil),
            (.serialized("a", failed: false, retrier: false), .runSerializer("b", announcesFinish: false), false),
            (.serialized("b", failed: false, retrier: false), .finishSerializing(["done(a)", "done(b)"]), false),
        ], final: .finished),
        Case(name: "a serializer added once finished takes a turn of its own and succeeds", steps: ran + [
            (.recorded(failed: false, retrier: true), .runHandlers([]), nil),
            (.serializer("late"), .runSerializer("late", announcesFinish: false), nil),
            (.serialized("late", failed: false, retrier: true), .finishSerializing([]), true),
        ], final: .finished),
        Case(name: "a serializer added once finished fails: the retrier is asked, declines, its completion runs", steps: ran + [
            (.recorded(failed: false, retrier: true), .runHandlers([]), nil),
            (.serializer("late"), .runSerializer("late", announcesFinish: false), nil),
            (.serialized("late", failed: true, retrier: true), .askRetrier, false),
            (.decided(nil), .finishSerializing(["done(late)"]), nil),
        ], final: .finished),
        Case(name: "a serializer added once finished fails and is retried: it serializes the next attempt", steps: ran + [
            (.recorded(failed: false, retrier: true), .runHandlers([]), nil),
            (.serializer("late"), .runSerializer("late", announcesFinish: false), nil),
            (.serialized("late", failed: true, retrier: true), .askRetrier, false),
            (.decided(0), .scheduleRetry(delay: 0), nil), (.delayElapsed, .restartExchange, nil),
            (.created(2), .executeExchange(2), nil), (.ended, .complete, nil),
            (.recorded(failed: false, retrier: true), .runSerializer("late", announcesFinish: true), nil),
            (.serialized("late", failed: false, retrier: true), .finishSerializing([]), true),
        ], final: .finished, retryCount: 1),
        Case(name: "a serializer added once cancelled takes its turn without the retrier", steps: [
            (.resume, .startExchange, nil), (.created(1), .executeExchange(1), nil), (.cancel, .cancelExchange(1), nil),
            (.ended, .complete, nil), (.recorded(failed: true, retrier: true), .runHandlers([]), nil),
            (.serializer("late"), .runSerializer("late", announcesFinish: false), nil),
            (.serialized("late", failed: true, retrier: true), .finishSerializing([]), true),
        ], final: .cancelled),
        Case(name: "a plain handler added once finished runs at once", steps: ran + [
            (.recorded(failed: false, retrier: true), .runHandlers([]), nil),
            (.handler("late"), .runHandlers(["late"]), nil),
        ], final: .finished),
        Case(name: "plain handlers only: finished at once", steps: [(.handler("p"), .none, nil)] + ran + [
            (.recorded(failed: false, retrier: true), .runHandlers(["p"]), nil),
        ], final: .finished),
    ]

    @Test("transitions", arguments: cases)
    func transitions(_ scenario: Case) {
        var machine = Machine()
        for (index, (event, expected, deliverNow)) in scenario.steps.enumerated() {
            let before = machine.publicState
            let action: Action
            if case .serialized(let name, let failed, let retrier) = event {
                let result = machine.serializerFinished(failed: failed, hasRetrier: retrier) { "done(\(name))" }
                #expect(result.deliverNow == deliverNow, "step \(index): \(event)")
                action = result.action
            } else {
                action = event.apply(to: &machine)
            }
            #expect(action == expected, "step \(index): \(event)")
            let after = machine.publicState
            // The one move back: a serializer added once finished shows `.resumed` again (Alamofire's).
            let lateSerializer = if case .serializer = event { before == .finished && after == .resumed } else { false }
            #expect(after == before || before.canTransition(to: after) || lateSerializer, "step \(index): \(event): \(before) → \(after)")
        }
        #expect(machine.publicState == scenario.final)
        #expect(machine.retryCount == scenario.retryCount)
    }

    @Test("a serializer's report outside its turn traps")
    func unaskedReportTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = RequestStateMachine<Int, String, String>()
            _ = machine.resume()
            _ = machine.serializerFinished(failed: false, hasRetrier: false) { "x" }
        }
    }
}
