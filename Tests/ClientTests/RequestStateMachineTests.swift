// RequestStateMachine without sockets: events in, actions and the public state out.
//
// Exchanges are Ints and handlers Strings, so every action can be compared. The table covers
// each state's exits and the races the file comment of RequestStateMachine names; the random
// walk drives the machine like `Request` does (the starter reports once, the transport ends an
// exchange once it ran) and checks the public state only moves as `canTransition(to:)` allows
// and that at most one exchange is ever started.
import LariatTestSupport
import Testing
@testable import Client
@testable import Transport

extension RequestStateMachine.Action: Equatable where Exchange: Equatable, Handler: Equatable, FollowUp: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none), (.startExchange, .startExchange), (.complete, .complete),
             (.askRetrier, .askRetrier), (.restartExchange, .restartExchange),
             (.reportTaskSuspended, .reportTaskSuspended): return true
        case (.pauseExchange(let a), .pauseExchange(let b)), (.resumeExchange(let a), .resumeExchange(let b)): return a == b
        case (.startFollowUp(let a), .startFollowUp(let b)), (.askRedirectHandler(let a), .askRedirectHandler(let b)): return a == b
        case (.scheduleRetry(let a), .scheduleRetry(let b)): return a == b
        case (.executeExchange(let a), .executeExchange(let b)), (.cancelExchange(let a), .cancelExchange(let b)): return a == b
        case (.runHandlers(let a), .runHandlers(let b)), (.finishSerializing(let a), .finishSerializing(let b)): return a == b
        case (.runSerializer(let a, let x), .runSerializer(let b, let y)): return a == b && x == y
        default: return false
        }
    }
}

@Suite("RequestStateMachine")
struct RequestStateMachineTests {
    typealias Machine = RequestStateMachine<Int, String, String>
    typealias Action = Machine.Action

    /// One input event.
    enum Event: CustomStringConvertible {
        case resume, suspend, cancel, created(Int), startFailed, head, ended, handler(String), finished
        /// The request was made by a session with eager setup.
        case prepare
        /// The outcome was recorded: failed or not, with a retrier or not.
        case recorded(failed: Bool, retrier: Bool)
        /// The retrier answered: retry after this delay, or `nil` for no retry.
        case decided(Double?)
        /// A retry's delay elapsed.
        case delayElapsed
        /// A response serializer was added.
        case serializer(String)
        /// The running serializer reported: failed or not, with a retrier or not; its completion
        /// is named after it ("done(name)") when the machine holds it.
        case serialized(String, failed: Bool, retrier: Bool)
        /// The retrier answered `.doNotRetryWithError` for a serializer: this completion replaces its own.
        case declinedReplacing(String)

        var description: String {
            switch self {
            case .resume: "resume"
            case .suspend: "suspend"
            case .cancel: "cancel"
            case .created(let id): "created(\(id))"
            case .startFailed: "startFailed"
            case .head: "head"
            case .ended: "ended"
            case .handler(let name): "handler(\(name))"
            case .finished: "finished"
            case .recorded(let failed, let retrier): "recorded(failed: \(failed), retrier: \(retrier))"
            case .decided(let delay): "decided(\(delay.map { "\($0)" } ?? "no"))"
            case .delayElapsed: "delayElapsed"
            case .prepare: "prepare"
            case .serializer(let name): "serializer(\(name))"
            case .serialized(let name, let failed, let retrier): "serialized(\(name), failed: \(failed), retrier: \(retrier))"
            case .declinedReplacing(let name): "declinedReplacing(\(name))"
            }
        }

        func apply(to machine: inout Machine) -> Action {
            switch self {
            case .resume: machine.resume()
            case .suspend: machine.suspend()
            case .cancel: machine.cancel()
            case .created(let id): machine.exchangeCreated(id)
            case .startFailed: machine.startFailed()
            // The head's own answer (record or ignore) has its own table (`headAnswers`).
            case .head: { _ = machine.transportHeadReceived(); return .none }()
            case .ended: machine.transportEnded()
            case .handler(let name): machine.handlerAppended(name)
            case .finished: machine.outcomeRecorded(failed: false, hasRetrier: false)
            case .recorded(let failed, let retrier): machine.outcomeRecorded(failed: failed, hasRetrier: retrier)
            case .decided(let delay): machine.retryDecided(retry: delay)
            case .delayElapsed: machine.retryDelayElapsed()
            case .prepare: machine.prepare()
            case .serializer(let name): machine.handlerAppended(name, serializer: true)
            case .serialized(let name, let failed, let retrier):
                machine.serializerFinished(failed: failed, hasRetrier: retrier) { "done(\(name))" }.action
            case .declinedReplacing(let name): machine.retryDecided(retry: nil, replacement: name)
            }
        }
    }

    /// A scenario: events with the action each returns, and the public state at the end.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var steps: [(Event, Action)]
        var final: Request.State
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // The happy path: resume, build, run, head, end, finish.
        Case(name: "happy path", steps: [
            (.handler("a"), .none), (.resume, .startExchange), (.created(1), .executeExchange(1)),
            (.head, .none), (.ended, .complete), (.finished, .runHandlers(["a"])),
        ], final: .finished),
        // A handler added after the end runs at once.
        Case(name: "late handler runs at once", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.finished, .runHandlers([])), (.handler("late"), .runHandlers(["late"])),
        ], final: .finished),
        // Resume racing the start on another thread: one start only (issue 9, finding 5).
        Case(name: "resume during start does not start again", steps: [
            (.resume, .startExchange), (.resume, .none), (.created(1), .executeExchange(1)), (.resume, .none),
        ], final: .resumed),
        // The old bug's exact sequence: resume, then suspend + resume elsewhere during start.
        Case(name: "suspend+resume during start: one exchange, sent", steps: [
            (.resume, .startExchange), (.suspend, .none), (.resume, .none), (.created(1), .executeExchange(1)),
        ], final: .resumed),
        // Suspended during start: the exchange is held, sent on resume.
        Case(name: "suspend during start holds the exchange", steps: [
            (.resume, .startExchange), (.suspend, .none), (.created(7), .reportTaskSuspended), (.resume, .executeExchange(7)),
        ], final: .resumed),
        // Suspend before start, then resume starts it.
        Case(name: "suspend before start", steps: [
            (.suspend, .none), (.suspend, .none), (.resume, .startExchange), (.created(1), .executeExchange(1)),
        ], final: .resumed),
        // Suspend while running pauses the exchange's reading; resume reads again.
        Case(name: "suspend while running pauses reading", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.suspend, .pauseExchange(1)), (.suspend, .none),
            (.head, .none), (.resume, .resumeExchange(1)), (.resume, .none), (.ended, .complete),
        ], final: .resumed),
        // An exchange that ends while suspended is held: the request finishes only on resume.
        Case(name: "end while suspended waits for resume", steps: [
            (.handler("a"), .none), (.resume, .startExchange), (.created(1), .executeExchange(1)), (.suspend, .pauseExchange(1)),
            (.ended, .none), (.suspend, .none), (.resume, .complete), (.finished, .runHandlers(["a"])),
        ], final: .finished),
        Case(name: "end while suspended, then cancel", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.suspend, .pauseExchange(1)), (.ended, .none),
            (.cancel, .complete), (.resume, .none), (.finished, .runHandlers([])),
        ], final: .cancelled),
        Case(name: "cancel while suspended on the wire", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.suspend, .pauseExchange(1)),
            (.cancel, .cancelExchange(1)), (.ended, .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Cancel before resume: finish at once, never start.
        Case(name: "cancel before resume", steps: [
            (.handler("a"), .none), (.cancel, .complete), (.resume, .none), (.finished, .runHandlers(["a"])),
        ], final: .cancelled),
        // Cancel while suspended before start.
        Case(name: "cancel while suspended", steps: [
            (.suspend, .none), (.cancel, .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Cancel during start: the starter's exchange is dropped unsent.
        Case(name: "cancel during start drops the exchange", steps: [
            (.resume, .startExchange), (.cancel, .none), (.resume, .none), (.created(1), .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Cancel during a start that then fails.
        Case(name: "cancel during a failing start", steps: [
            (.resume, .startExchange), (.cancel, .none), (.startFailed, .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        // A start that fails (bad URL) finishes, not cancelled.
        Case(name: "start fails", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.finished, .runHandlers([])),
        ], final: .finished),
        // Cancel of a held exchange: it never ran, so no transport event will come.
        Case(name: "cancel a held exchange", steps: [
            (.resume, .startExchange), (.suspend, .none), (.created(3), .reportTaskSuspended), (.cancel, .complete),
            (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Cancel while running: the exchange is told, its failure finishes the request.
        Case(name: "cancel while running", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.cancel, .cancelExchange(1)),
            (.cancel, .none), (.head, .none), (.ended, .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Cancel racing completion, completion first: the response stands.
        Case(name: "cancel after the end is ignored", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete), (.cancel, .none),
            (.finished, .runHandlers([])), (.cancel, .none),
        ], final: .finished),
        // Resume after finish does nothing.
        Case(name: "resume after finish", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.finished, .runHandlers([])), (.resume, .none), (.suspend, .none),
        ], final: .finished),
        // Retry: a failure with a retrier asks it; a retry is a new exchange after the delay.
        Case(name: "failure retried once, then succeeds", steps: [
            (.handler("a"), .none), (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.recorded(failed: true, retrier: true), .askRetrier), (.decided(0.5), .scheduleRetry(delay: 0.5)),
            (.delayElapsed, .restartExchange), (.created(2), .executeExchange(2)), (.ended, .complete),
            (.recorded(failed: false, retrier: true), .runHandlers(["a"])),
        ], final: .finished),
        // The retrier declines: the failure stands.
        Case(name: "retrier declines", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.recorded(failed: true, retrier: true), .askRetrier), (.decided(nil), .runHandlers([])),
        ], final: .finished),
        // A failure without a retrier finishes at once.
        Case(name: "failure without a retrier", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.recorded(failed: true, retrier: false), .runHandlers([])),
        ], final: .finished),
        // An adaptation failure (start failed) goes to the retrier like any failure.
        Case(name: "start failure is retried", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.recorded(failed: true, retrier: true), .askRetrier),
            (.decided(0), .scheduleRetry(delay: 0)), (.delayElapsed, .restartExchange), (.created(1), .executeExchange(1)),
        ], final: .resumed),
        // A negative delay is retried at once.
        Case(name: "negative delay is clamped", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.recorded(failed: true, retrier: true), .askRetrier),
            (.decided(-3), .scheduleRetry(delay: 0)),
        ], final: .resumed),
        // Cancel during the delay ends the request at once; the stale timer is dropped.
        Case(name: "cancel during the retry delay", steps: [
            (.handler("a"), .none), (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.recorded(failed: true, retrier: true), .askRetrier), (.decided(10), .scheduleRetry(delay: 10)),
            (.resume, .none), (.suspend, .none), (.cancel, .complete), (.cancel, .none),
            (.recorded(failed: true, retrier: true), .runHandlers(["a"])), (.delayElapsed, .none),
        ], final: .cancelled),
        // Cancel in the delay, timer fires before the request recorded its outcome.
        Case(name: "stale timer while completing after cancel", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.recorded(failed: true, retrier: true), .askRetrier),
            (.decided(1), .scheduleRetry(delay: 1)), (.cancel, .complete), (.delayElapsed, .none),
            (.recorded(failed: true, retrier: true), .runHandlers([])),
        ], final: .cancelled),
        // Cancel while the retrier decides: its "retry" is ignored.
        Case(name: "cancel while the retrier decides", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.ended, .complete),
            (.recorded(failed: true, retrier: true), .askRetrier), (.cancel, .none), (.resume, .none),
            (.decided(0), .runHandlers([])),
        ], final: .cancelled),
        // A cancelled request is never offered to the retrier.
        Case(name: "cancelled request is not retried", steps: [
            (.resume, .startExchange), (.created(1), .executeExchange(1)), (.cancel, .cancelExchange(1)), (.ended, .complete),
            (.recorded(failed: true, retrier: true), .runHandlers([])),
        ], final: .cancelled),
        // Cancel during the retry's start: the second exchange is dropped unsent.
        Case(name: "cancel while the retry starts", steps: [
            (.resume, .startExchange), (.startFailed, .complete), (.recorded(failed: true, retrier: true), .askRetrier),
            (.decided(0), .scheduleRetry(delay: 0)), (.delayElapsed, .restartExchange), (.cancel, .none),
            (.created(2), .complete), (.recorded(failed: true, retrier: true), .runHandlers([])),
        ], final: .cancelled),
        // Eager setup: built at creation, shown initialized, sent on resume.
        Case(name: "eager: prepared, then resumed", steps: [
            (.prepare, .startExchange), (.prepare, .none), (.created(1), .none), (.resume, .executeExchange(1)), (.resume, .none),
        ], final: .resumed),
        Case(name: "eager: prepared stays initialized", steps: [
            (.prepare, .startExchange), (.created(1), .none), (.handler("a"), .none),
        ], final: .initialized),
        // A suspend of the prepared request holds its task: reported suspended once.
        Case(name: "eager: suspend reports the task once", steps: [
            (.prepare, .startExchange), (.created(1), .none), (.suspend, .reportTaskSuspended), (.suspend, .none),
            (.resume, .executeExchange(1)),
        ], final: .resumed),
        Case(name: "eager: cancel of the prepared request ends it unsent", steps: [
            (.prepare, .startExchange), (.created(1), .none), (.cancel, .complete), (.cancel, .none), (.resume, .none),
            (.finished, .runHandlers([])),
        ], final: .cancelled),
        // Intents while the eager build is under way: its report decides.
        Case(name: "eager: resume during preparation sends when built", steps: [
            (.prepare, .startExchange), (.resume, .none), (.created(1), .executeExchange(1)),
        ], final: .resumed),
        Case(name: "eager: suspend during preparation holds the task", steps: [
            (.prepare, .startExchange), (.suspend, .none), (.created(1), .reportTaskSuspended), (.resume, .executeExchange(1)),
        ], final: .resumed),
        Case(name: "eager: cancel during preparation", steps: [
            (.prepare, .startExchange), (.cancel, .none), (.created(1), .complete), (.finished, .runHandlers([])),
        ], final: .cancelled),
        Case(name: "eager: a failed build finishes without a resume", steps: [
            (.handler("a"), .none), (.prepare, .startExchange), (.startFailed, .complete),
            (.recorded(failed: true, retrier: false), .runHandlers(["a"])),
        ], final: .finished),
        // Prepare does nothing once the request moved on.
        Case(name: "prepare after resume does nothing", steps: [
            (.resume, .startExchange), (.prepare, .none), (.created(1), .executeExchange(1)),
        ], final: .resumed),
    ]

    @Test("retryCount counts retries that started, not ones decided")
    func retryCount() {
        var machine = Machine()
        _ = machine.resume()
        for attempt in 1...3 {
            _ = machine.startFailed()
            _ = machine.outcomeRecorded(failed: true, hasRetrier: true)
            _ = machine.retryDecided(retry: 0)
            #expect(machine.retryCount == attempt - 1)
            _ = machine.retryDelayElapsed()
            #expect(machine.retryCount == attempt)
        }
    }

    @Test("transitions", arguments: cases)
    func transitions(_ scenario: Case) {
        var machine = Machine()
        #expect(machine.publicState == .initialized)
        for (index, (event, expected)) in scenario.steps.enumerated() {
            let before = machine.publicState
            let action = event.apply(to: &machine)
            #expect(action == expected, "step \(index): \(event)")
            let after = machine.publicState
            #expect(after == before || before.canTransition(to: after), "step \(index): \(event): \(before) → \(after)")
        }
        #expect(machine.publicState == scenario.final)
    }

    @Test("the exchange on the wire is known while running or cancelling only")
    func activeExchange() {
        var machine = Machine()
        _ = machine.resume()
        #expect(machine.activeExchange == nil)
        _ = machine.exchangeCreated(4)
        #expect(machine.activeExchange == 4)
        _ = machine.cancel()
        #expect(machine.activeExchange == 4)
        _ = machine.transportEnded()
        #expect(machine.activeExchange == nil)
    }

    /// Random interleavings of user intents with the starter's, the transport's, the retrier's
    /// and the retry timer's reports, as `Request` produces them. Deterministic: a fixed-seed
    /// generator.
    @Test("random walks keep one exchange per attempt and legal public transitions")
    func randomWalks() {
        var random = SplitMix(seed: 0x5EED)
        var walksWithRetries = 0
        for walk in 0..<2_000 {
            var machine = Machine()
            var starts = 0, startPending = false, executed: Int?, ended = false, completing = false
            var asked = false, timerPending = false, retries = 0
            var finished = false, handlersAdded = 0, handlersRun = 0, trace: [String] = []
            for _ in 0..<40 where !finished {
                // Cancel is offered one step in four, so that many walks get as far as a retry.
                var choices: [Event] = [.resume, .suspend, .handler("h"), .prepare]
                if random.next() % 4 == 0 { choices.append(.cancel) }
                if startPending { choices += [.created(walk), .startFailed] }
                if executed != nil, !ended { choices += [.head, .ended] }
                if completing { choices += [.recorded(failed: random.next() % 4 != 0, retrier: random.next() % 4 != 0)] }
                if asked { choices += [.decided(random.next() % 3 == 0 ? nil : 0)] }
                if timerPending { choices.append(.delayElapsed) }
                let event = choices[Int(random.next() % UInt64(choices.count))]
                trace.append(event.description)
                let before = machine.publicState
                let action = event.apply(to: &machine)
                #expect(before == machine.publicState || before.canTransition(to: machine.publicState), "\(trace)")
                switch event {
                case .handler: handlersAdded += 1
                case .created, .startFailed: startPending = false
                case .ended: ended = true
                case .recorded: completing = false
                case .decided: asked = false
                case .delayElapsed: timerPending = false
                default: break
                }
                switch action {
                case .startExchange: starts += 1; startPending = true
                case .restartExchange:
                    retries += 1; startPending = true; executed = nil; ended = false
                    #expect(machine.retryCount == retries, "\(trace)")
                case .executeExchange(let id): #expect(executed == nil, "\(trace)"); executed = id
                case .complete: completing = true
                case .askRetrier: asked = true
                case .scheduleRetry: timerPending = true
                case .runHandlers(let handlers):
                    handlersRun += handlers.count
                    if case .handler = event {} else { finished = true }
                case .none, .cancelExchange, .startFollowUp, .askRedirectHandler, .reportTaskSuspended, .pauseExchange,
                     .resumeExchange, .runSerializer, .finishSerializing: break  // no serializers in these walks
                }
            }
            #expect(starts <= 1, "\(trace)")
            if finished { #expect(handlersRun == handlersAdded, "\(trace)") }
            if retries > 0 { walksWithRetries += 1 }
        }
        #expect(walksWithRetries > 100, "the walks must exercise retries: \(walksWithRetries)")
    }

    // Impossible transitions trap with the state in the message.
    @Test("finishing twice traps")
    func finishTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = RequestStateMachine<Int, String, String>()
            _ = machine.cancel()
            _ = machine.outcomeRecorded(failed: false, hasRetrier: false)
            _ = machine.outcomeRecorded(failed: false, hasRetrier: false)
        }
    }

    @Test("a retry decision nobody asked for traps")
    func unaskedDecisionTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = RequestStateMachine<Int, String, String>()
            _ = machine.resume()
            _ = machine.retryDecided(retry: 0)
        }
    }

    @Test("a transport end before any exchange traps")
    func endBeforeStartTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = RequestStateMachine<Int, String, String>()
            _ = machine.resume()
            _ = machine.transportEnded()
        }
    }
}
