// HTTP1ConnectionStateMachine: events in, actions out, no sockets (STYLE.md §3). Each scenario is
// a script of events and the outcomes the driver must see, in order.
import Testing
import Wire
import EventLoop
@testable import Transport

@Suite("HTTP/1.1 connection state machine")
struct HTTP1ConnectionStateMachineTests {
    /// The driver's per-exchange record is a tag here: each request's number.
    typealias Machine = HTTP1ConnectionStateMachine<Int>

    /// What the driver is told, in a form a table can spell.
    enum Outcome: Equatable, CustomStringConvertible {
        case write
        case head(Int)
        case body(String)
        case complete(keepAlive: Bool)
        case fail(Machine.Failure, retry: Bool)
        case close
        case upgrade(Int)

        /// A failure without the wording and offsets of its error: tables name the rule only.
        static func name(_ failure: Machine.Failure) -> String {
            switch failure {
            case .malformed(let error): "malformed(\(error.rule))"
            case .closedEarly(let error): "closedEarly(\(error.map { "\($0.rule)" } ?? "-"))"
            case .transport(let error): "transport(\(error.kind))"
            default: "\(failure)"
            }
        }

        var description: String {
            switch self {
            case .write: "write"
            case .head(let status): "head \(status)"
            case .body(let text): "body \(text.debugDescription)"
            case .complete(let keepAlive): "complete(keepAlive: \(keepAlive))"
            case .fail(let failure, let retry): "fail(\(Self.name(failure)), retry: \(retry))"
            case .close: "close"
            case .upgrade(let status): "upgrade \(status)"
            }
        }
    }

    /// An input to the machine; times are seconds after the start.
    enum Event {
        case start(Machine.RequestInfo, RequestMethod = .get)
        case written(Int)
        case writeFailed
        case received(String)
        case endOfStream(clean: Bool?)
        case timer(at: Double)
        case cancel
        case failed
    }

    static let t0 = Deadline(uptimeNanoseconds: 1_000_000_000_000)
    static func at(_ seconds: Double) -> Deadline { t0 + .milliseconds(Int64(seconds * 1000)) }

    static func request(
        head: Int = 40, body: Int = 0, idempotent: Bool = true, reused: Bool = false, attempt: Int = 0,
        expectsContinue: Bool = false, idle: Duration? = .seconds(10), deadline: Deadline = .distantFuture, upgrade: Bool = false
    ) -> Machine.RequestInfo {
        Machine.RequestInfo(headLength: head, bodyLength: body, isIdempotent: idempotent, isReused: reused,
                            attempt: attempt, expectsContinue: expectsContinue, idleTimeout: idle, deadline: deadline,
                            offersUpgrade: upgrade)
    }

    static let switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"

    /// Runs `events` on `machine` and returns every outcome that is not `.none`.
    static func run(_ events: [Event], on machine: inout Machine) -> [Outcome] {
        var outcomes: [Outcome] = []
        var input: [UInt8] = []  // received and not yet consumed, across events
        var requests = machine.run ?? 0  // the run tag of the latest request (started here or before)
        func record(_ action: Machine.Action, input: [UInt8] = []) {
            switch action {
            case .none: break
            case .write: outcomes.append(.write)
            case .forwardHead: break  // recorded with the head's status below
            case .forwardBody(let range): outcomes.append(.body(String(decoding: input[range], as: UTF8.self)))
            case .complete(let keepAlive, let run):
                #expect(run == requests, "completed request \(run), started \(requests)")
                outcomes.append(.complete(keepAlive: keepAlive))
            case .fail(let failure, let retry, let run):
                #expect(run == requests, "failed request \(run), started \(requests)")
                outcomes.append(.fail(failure, retry: retry))
            case .close: outcomes.append(.close)
            case .upgrade(let run):
                #expect(run == requests, "upgraded request \(run), started \(requests)")
            }
        }
        for event in events {
            switch event {
            case .start(let info, let method):
                requests += 1
                record(machine.requestStarted(info, run: requests, method: method, now: t0))
            case .written(let count): record(machine.bytesWritten(count, now: t0))
            case .writeFailed: record(machine.writeFailed())
            case .received(let text):
                record(machine.bytesReceived(now: t0))
                input += Array(text.utf8)
                while machine.isActive {
                    let step = input.withUnsafeBytes { machine.parse($0, now: t0) }
                    if step.action == .forwardHead, let head = step.head { outcomes.append(.head(head.status)) }
                    if case .upgrade = step.action, let head = step.head { outcomes.append(.upgrade(head.status)) }
                    record(step.action, input: input)
                    input.removeFirst(step.consumed)
                    if step.action == .none && step.consumed == 0 { break }
                }
            case .endOfStream(let clean): record(machine.endOfStream(cleanTLSClose: clean))
            case .timer(let seconds): record(machine.timerFired(now: at(seconds)))
            case .cancel: record(machine.cancelled())
            case .failed: record(machine.connectionFailed(TransportError(.connectionLost, "reset")))
            }
        }
        return outcomes
    }

    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    static let lost = Machine.Failure.transport(TransportError(.connectionLost, "reset"))

    // (scenario, events, expected outcomes, connection idle afterwards)
    static let scenarios: [(String, [Event], [Outcome], Bool)] = [
        ("GET, response, keep-alive",
         [.start(request()), .written(40), .received(ok)],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
        ("response split across reads",
         [.start(request()), .written(40), .received("HTTP/1.1 200 OK\r\nContent-"), .received("Length: 2\r\n\r\no"), .received("k")],
         [.write, .head(200), .body("o"), .body("k"), .complete(keepAlive: true)], true),
        ("Connection: close ends keep-alive",
         [.start(request()), .written(40), .received("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")],
         [.write, .head(200), .complete(keepAlive: false)], false),
        ("close-delimited body ends at end of stream",
         [.start(request()), .written(40), .received("HTTP/1.1 200 OK\r\n\r\nabc"), .endOfStream(clean: nil)],
         [.write, .head(200), .body("abc"), .complete(keepAlive: false)], false),
        ("close-delimited body over TLS without close_notify is truncated",
         [.start(request()), .written(40), .received("HTTP/1.1 200 OK\r\n\r\nabc"), .endOfStream(clean: false)],
         [.write, .head(200), .body("abc"), .fail(.truncatedTLS, retry: false)], false),
        ("interim 103 skipped, final delivered",
         [.start(request()), .written(40), .received("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok)],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
        ("HEAD response has no body",
         [.start(request(), .head), .written(40), .received("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n")],
         [.write, .head(200), .complete(keepAlive: true)], true),
        ("response before the request was fully written: early answer, connection closed",
         [.start(request(body: 1000)), .written(100), .received("HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n")],
         [.write, .head(413), .complete(keepAlive: false)], false),
        ("write fails, the server's early answer is still read",
         [.start(request(body: 1000)), .written(100), .writeFailed, .received("HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n")],
         [.write, .head(413), .complete(keepAlive: false)], false),
        ("write fails, then the server closes: connection lost",
         [.start(request(body: 1000)), .written(100), .writeFailed, .endOfStream(clean: nil)],
         [.write, .fail(.closedEarly(WireError(.closedBeforeResponse, "")), retry: false)], false),
        ("Expect: 100-continue: head only, then the body after 100",
         [.start(request(body: 10, expectsContinue: true)), .written(40), .received("HTTP/1.1 100 Continue\r\n\r\n"), .written(10), .received(ok)],
         [.write, .write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
        ("Expect: 100-continue: no answer within the delay sends the body",
         [.start(request(body: 10, expectsContinue: true)), .written(40), .timer(at: 1.0), .written(10), .received(ok)],
         [.write, .write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
        ("Expect: 100-continue: a final answer instead, the body is never sent",
         [.start(request(body: 10, expectsContinue: true)), .written(40), .received("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")],
         [.write, .head(401), .complete(keepAlive: false)], false),
        ("reused connection closed before any response: retried",
         [.start(request(reused: true)), .written(40), .endOfStream(clean: nil)],
         [.write, .fail(.closedEarly(WireError(.closedBeforeResponse, "")), retry: true)], false),
        ("reused connection reset before any response: retried",
         [.start(request(reused: true)), .written(40), .failed],
         [.write, .fail(lost, retry: true)], false),
        ("non-idempotent request written on a reused connection: not retried",
         [.start(request(idempotent: false, reused: true)), .written(40), .failed],
         [.write, .fail(lost, retry: false)], false),
        ("non-idempotent request with nothing written: retried",
         [.start(request(idempotent: false, reused: true)), .failed],
         [.write, .fail(lost, retry: true)], false),
        ("fresh connection: never retried",
         [.start(request()), .written(40), .failed],
         [.write, .fail(lost, retry: false)], false),
        ("second attempt: never retried",
         [.start(request(reused: true, attempt: 1)), .written(40), .failed],
         [.write, .fail(lost, retry: false)], false),
        ("after the head: never retried",
         [.start(request(reused: true)), .written(40), .received("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"), .endOfStream(clean: nil)],
         [.write, .head(200), .body("ab"), .fail(.closedEarly(WireError(.truncatedBody, "")), retry: false)], false),
        ("malformed response: failed, not retried",
         [.start(request(reused: true)), .written(40), .received("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")],
         [.write, .fail(.malformed(WireError(.contentLengthMismatch, "")), retry: false)], false),
        // The parser refuses a 101 to a request that offered no upgrade (RFC 9110 §7.8).
        ("unexpected 101: failed",
         [.start(request()), .written(40), .received("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n")],
         [.write, .fail(.malformed(WireError(.unsolicitedUpgrade, "")), retry: false)], false),
        ("101 to a request offering an upgrade: the connection is handed over",
         [.start(request(upgrade: true)), .written(40), .received(switching + "frame")],
         [.write, .upgrade(101)], false),
        ("an upgrade offer answered 200: an ordinary response, kept alive",
         [.start(request(upgrade: true)), .written(40), .received(ok)],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
        ("an upgrade offer answered after an interim 100: still handed over",
         [.start(request(upgrade: true)), .written(40), .received("HTTP/1.1 100 Continue\r\n\r\n" + switching)],
         [.write, .upgrade(101)], false),
        ("idle timeout while waiting",
         [.start(request(idle: .seconds(2))), .written(40), .timer(at: 1.0), .timer(at: 2.0)],
         [.write, .fail(.idleTimeout(.seconds(2)), retry: false)], false),
        ("resource deadline passes though bytes keep coming",
         [.start(request(deadline: at(3))), .written(40), .received("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n"), .timer(at: 3.0)],
         [.write, .head(200), .body("a"), .fail(.deadline, retry: false)], false),
        ("cancel while running",
         [.start(request()), .written(40), .cancel, .received(ok)],
         [.write, .fail(.cancelled, retry: false)], false),
        ("bytes on an idle connection close it",
         [.start(request()), .written(40), .received(ok), .received("HTTP/1.1 200 OK\r\n")],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true), .close], false),
        ("end of stream on an idle connection closes it",
         [.start(request()), .written(40), .received(ok), .endOfStream(clean: nil)],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true), .close], false),
        ("two requests in a row on one connection",
         [.start(request()), .written(40), .received(ok), .start(request(reused: true)), .written(40), .received(ok)],
         [.write, .head(200), .body("ok"), .complete(keepAlive: true), .write, .head(200), .body("ok"), .complete(keepAlive: true)], true),
    ]

    @Test(arguments: scenarios.indices)
    func scenario(_ index: Int) {
        let (name, events, expected, idleAfter) = Self.scenarios[index]
        var machine = Machine()
        let outcomes = Self.run(events, on: &machine)
        #expect(outcomes.map(\.description) == expected.map(\.description), "\(name)")
        #expect(machine.isIdle == idleAfter, "\(name)")
    }

    // MARK: Timer deadlines

    @Test func timerFollowsTheEarliestDeadline() {
        var machine = Machine()
        _ = machine.requestStarted(Self.request(idle: .seconds(5), deadline: Self.at(3)), run: 1, method: .get, now: Self.t0)
        #expect(machine.timerDeadline == Self.at(3))
        var other = Machine()
        _ = other.requestStarted(Self.request(idle: .seconds(2)), run: 1, method: .get, now: Self.t0)
        #expect(other.timerDeadline == Self.at(2))
        _ = other.bytesReceived(now: Self.at(1.5))
        #expect(other.timerDeadline == Self.at(3.5))  // progress moves the idle deadline
        var none = Machine()
        _ = none.requestStarted(Self.request(idle: nil), run: 1, method: .get, now: Self.t0)
        #expect(none.timerDeadline == nil)  // infinite timeouts: no timer at all
    }

    @Test func continueDelayIsPartOfTheTimer() {
        var machine = Machine()
        _ = machine.requestStarted(Self.request(body: 5, expectsContinue: true, idle: .seconds(30)), run: 1, method: .post, now: Self.t0)
        #expect(machine.writableLimit == 40)
        _ = machine.bytesWritten(40, now: Self.t0)
        #expect(machine.timerDeadline == Self.t0 + Machine.continueDelay)
        #expect(machine.timerFired(now: Self.t0 + Machine.continueDelay) == .write)
        #expect(machine.writableLimit == 45)
    }

    /// A TLS connection's machine with request 7's handshake started at `deadline`.
    static func handshaking(until deadline: Deadline, connectDeadline: Deadline? = nil) -> Machine {
        var machine = Machine(tls: true, connectDeadline: connectDeadline)
        #expect(machine.awaitsHandshake && !machine.isIdle && machine.run == nil)
        machine.handshakeStarted(7, deadline: deadline)
        #expect(machine.isHandshaking && machine.run == 7)
        return machine
    }

    @Test func handshakeTimesOutAndCancels() {
        var machine = Self.handshaking(until: Self.at(2))
        #expect(machine.timerDeadline == Self.at(2))
        #expect(machine.timerFired(now: Self.at(1)) == .none)
        #expect(machine.timerFired(now: Self.at(2)) == .fail(.handshakeTimeout, retry: false, 7))
        #expect(machine.run == nil)
        var cancelled = Self.handshaking(until: Self.at(2))
        #expect(cancelled.cancelled() == .fail(.cancelled, retry: false, 7))
        #expect(cancelled.handshakeCompleted() == nil)  // the engine finished as the cancel closed it
        #expect(cancelled.isClosed)
        var done = Self.handshaking(until: Self.at(2))
        #expect(done.handshakeCompleted() == 7)  // the driver starts request 7 next
        #expect(done.isIdle && done.timerDeadline == nil && done.run == nil)
    }

    // (scenario, handshake deadline, connect deadline through a proxy, the timer's deadline)
    static let handshakeDeadlines: [(String, Double?, Double?, Double?)] = [
        ("the request's limit alone", 5, nil, 5),
        ("the proxy's connect deadline comes first", 5, 3, 3),
        ("the request's limit comes first", 2, 3, 2),
        ("no limit at all: no timer", nil, nil, nil),
        ("no request limit, the proxy's deadline", nil, 4, 4),
    ]

    @Test(arguments: handshakeDeadlines.indices)
    func handshakeDeadline(_ index: Int) {
        let (name, request, connect, expected) = Self.handshakeDeadlines[index]
        let machine = Self.handshaking(until: request.map(Self.at) ?? .distantFuture, connectDeadline: connect.map(Self.at))
        #expect(machine.timerDeadline == expected.map(Self.at), "\(name)")
    }

    // (scenario, event before the handshake began, outcomes)
    static let beforeHandshake: [(String, Event, [Outcome])] = [
        ("cancel: nothing runs, close", .cancel, [.close]),
        ("end of stream: close", .endOfStream(clean: nil), [.close]),
        ("reset: close", .failed, [.close]),
        ("timer: nothing (no timer is armed)", .timer(at: 100), []),
        ("bytes: nothing until the handshake reads them", .received(""), []),
    ]

    @Test(arguments: beforeHandshake.indices)
    func eventBeforeTheHandshake(_ index: Int) {
        let (name, event, expected) = Self.beforeHandshake[index]
        var machine = Machine(tls: true)
        #expect(Self.run([event], on: &machine).map(\.description) == expected.map(\.description), "\(name)")
        #expect(machine.isClosed == !expected.isEmpty, "\(name)")
    }

    @Test func handshakeThenRequestCarriesTheRun() {
        var machine = Self.handshaking(until: Self.at(5))
        let run = machine.handshakeCompleted()
        #expect(run == 7)
        _ = machine.requestStarted(Self.request(), run: 7, method: .get, now: Self.t0)
        _ = machine.bytesWritten(40, now: Self.t0)
        machine.updateRun { $0 += 1 }  // the driver's summary counters change in place
        #expect(machine.run == 8)
        let step = Array(Self.ok.utf8).withUnsafeBytes { raw in
            var step = machine.parse(raw, now: Self.t0)
            while step.action != .complete(keepAlive: true, 8), step.consumed > 0 {
                step = machine.parse(UnsafeRawBufferPointer(rebasing: raw[step.consumed...]), now: Self.t0)
            }
            return step
        }
        #expect(step.action == .complete(keepAlive: true, 8))
        #expect(machine.isIdle && machine.run == nil)
    }

    /// After a 101 the socket is another driver's: the bytes past the head stay unconsumed for
    /// it, and no event makes the machine read, write, time out or close again.
    @Test func upgradedConnectionIsLeftAlone() {
        var machine = Machine()
        _ = machine.requestStarted(Self.request(upgrade: true), run: 3, method: .get, now: Self.t0)
        _ = machine.bytesWritten(40, now: Self.t0)
        let input = Array((Self.switching + "frame").utf8)
        let step = input.withUnsafeBytes { machine.parse($0, now: Self.t0) }
        #expect(step.action == .upgrade(3) && step.head?.status == 101)
        #expect(input.count - step.consumed == 5)  // "frame", left for the WebSocket driver
        #expect(machine.isUpgraded && !machine.isActive && machine.run == nil && machine.timerDeadline == nil)
        #expect(machine.cancelled() == .none)
        #expect(machine.timerFired(now: Self.at(100)) == .none)
        #expect(machine.endOfStream(cleanTLSClose: nil) == .none)
        #expect(machine.connectionFailed(TransportError(.connectionLost, "reset")) == .none)
        #expect(machine.bytesReceived(now: Self.t0) == .none)
        machine.closed()
        #expect(machine.isUpgraded && !machine.isClosed)
    }

    @Test func lateEventsAfterCloseAreIgnored() {
        var machine = Machine()
        _ = machine.requestStarted(Self.request(), run: 1, method: .get, now: Self.t0)
        #expect(machine.cancelled() == .fail(.cancelled, retry: false, 1))
        #expect(machine.bytesWritten(10, now: Self.t0) == .none)
        #expect(machine.timerFired(now: Self.at(100)) == .none)
        #expect(machine.endOfStream(cleanTLSClose: nil) == .none)
        #expect(machine.cancelled() == .none)
    }
}
