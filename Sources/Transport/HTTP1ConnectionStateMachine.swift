// HTTP1ConnectionStateMachine: what one HTTP/1.1 connection does next, with no I/O (STYLE.md §3).
//
// The driver (`HTTP1Connection`) reads and writes bytes, pumps TLS and owns the timer; every
// decision is made here: when the body may be written, what a parser event means, whether the
// connection can carry another request, whether a failure may be retried silently, and which
// deadline the one timer must be armed at.
//
// Reading and writing are modelled separately, as hyper does (`conn.rs`: `Reading`, `Writing`,
// `try_keep_alive`), so an early response during an upload, `Expect: 100-continue` and a server
// that stops reading mid-upload are states rather than flags:
//
//   Writing:  sending ──all bytes written──▶ done
//             sendingHead (Expect: 100-continue) ──head written──▶ awaitingContinue
//                awaitingContinue ──100 Continue, or the continue delay──▶ sending
//                awaitingContinue ──final response head──▶ abandoned (the body is never sent)
//             sending ──write failed (EPIPE, reset) or early final response──▶ abandoned
//   Reading:  awaitingHead ──interim 1xx──▶ awaitingHead
//             awaitingHead ──final head──▶ body ──end──▶ done(keepAlive)
//             body ──pauseReading (the consumer's buffer is full)──▶ paused ──resumeReading──▶ body
//             (paused: the driver neither reads the socket nor parses; the idle timeout is
//             suspended, since we are the ones not reading; the resource deadline still runs.
//             A hang-up while paused is remembered, `paused(peerClosed: true)`: the socket left
//             epoll, so resuming must read what the kernel holds to the end without events.)
//
// Connection states and exits:
//   awaitingHandshake (TLS, before the first request) ──handshakeStarted──▶ handshaking
//   handshaking ──handshakeCompleted──▶ idle (the driver starts the first request at once)
//               ──handshakeFailed, timer, end of stream, cancel──▶ closed
//   idle ──requestStarted──▶ active
//        ──bytes or end of stream while idle, idle timer──▶ closed
//   active ──reading done and writing done──▶ idle (keep-alive) or closed
//          ──reading done, writing abandoned or still sending──▶ closed (the response is delivered)
//          ──malformed response, reset, timer, cancel, end of stream before the end──▶ closed
//   closed: terminal; late events (a timer that raced the close, a write completion) are ignored.
//
// Keep-alive is decided in one place, `finishResponse`, over both halves: the parser said the
// connection may carry another response, the whole request went out, and nothing but the
// response arrived (`leftoverBytes`, checked by the driver, including TLS plaintext).
//
// Silent retry (Go's `shouldRetryRequest`): only a reused connection, only before any byte of the
// response, only the first attempt, and only if the request is idempotent or nothing of it was
// written. The verdict travels with the failure; the pool does the retry.
//
// Deadlines (URLSession's model): the idle timeout (`timeoutIntervalForRequest`) restarts on
// every byte read and every write the socket took; the resource deadline
// (`timeoutIntervalForResource`) never moves; the handshake also honours the connect timeout.
// `timerDeadline` is the earliest of those that apply (and of the 100-continue delay); the driver
// keeps its one timer there.
//
// `Run` is the driver's per-exchange record (the exchange and its summary): it lives only in the
// states that have an exchange (`handshaking`, `active`) and leaves in the action that ends it
// (`complete`, `fail`), so no exchange can outlive its state beside the machine. Tests use a tag.

import Wire
import EventLoop

struct HTTP1ConnectionStateMachine<Run> {
    /// What the machine needs to know of a request when it starts.
    struct RequestInfo: Equatable {
        /// Bytes of the serialized head.
        var headLength: Int
        /// Bytes of the body (0 when there is none).
        var bodyLength: Int
        /// RFC 9110 §9.2.2: may be retried silently.
        var isIdempotent: Bool
        /// The connection served an earlier request.
        var isReused: Bool
        /// Silent retries already done for this request.
        var attempt: Int
        /// The head says `Expect: 100-continue` and there is a body to hold back.
        var expectsContinue: Bool
        /// Longest silence; `nil`: none.
        var idleTimeout: Duration?
        /// The request's resource deadline.
        var deadline: Deadline
        /// The head offers a protocol switch (`Upgrade`, a WebSocket's opening handshake): only
        /// then is a `101` accepted, and it hands the connection over (RFC 9110 §7.8).
        var offersUpgrade = false
        /// Relaxations of how this request's response is read (strict by default).
        var responseParsing = ResponseParsingOptions.strict
    }

    /// The effect the driver must carry out.
    enum Action {
        /// Nothing to do.
        case none
        /// Write request bytes up to `writableLimit` (more may be allowed than before).
        case write
        /// Forward the final response head.
        case forwardHead
        /// Forward body bytes at `range` of the parser's input.
        case forwardBody(Range<Int>)
        /// The response of `run` ended: deliver it, then put the connection back in the pool
        /// (`keepAlive`) or close it.
        case complete(keepAlive: Bool, Run)
        /// Close the connection and fail `run` with `failure`; when `retry`, hand the request
        /// back to the pool for one attempt on a fresh connection instead.
        case fail(Failure, retry: Bool, Run)
        /// Close the connection (no request on it).
        case close
        /// `101 Switching Protocols` to a request that offered an upgrade: hand the socket, with
        /// the bytes after the head, to `run`'s new protocol (the head is the step's).
        case upgrade(Run)
    }

    /// Why a request failed, mapped to a `TransportError` by the driver.
    enum Failure: Equatable {
        /// A socket, TLS or body-file failure the driver saw; it is reported as is.
        case transport(TransportError)
        /// The server closed the connection during the TLS handshake.
        case handshakeClosed
        /// The response broke HTTP/1.1.
        case malformed(WireError)
        /// The server closed before the response was complete; the parser's error says where.
        case closedEarly(WireError?)
        /// A close-delimited body over TLS ended without `close_notify`.
        case truncatedTLS
        /// No byte for the idle timeout.
        case idleTimeout(Duration)
        /// The resource deadline passed.
        case deadline
        /// The TLS handshake did not finish in time.
        case handshakeTimeout
        /// An unexpected `101` or tunnel answer.
        case unexpectedUpgrade
        /// The request was cancelled.
        case cancelled
    }

    /// The result of feeding bytes to the parser.
    struct ParseStep {
        /// What to do.
        var action: Action
        /// Bytes of the input consumed.
        var consumed: Int
        /// The head when `action` is `.forwardHead` (offsets into the input).
        var head: ResponseHead?
        /// The trailers when `action` is `.complete` (offsets into the input).
        var trailers: HeaderFields?
    }

    enum Writing: Equatable {
        /// `Expect: 100-continue`: only the head goes out. Exits: head written → awaitingContinue;
        /// 100 Continue → sending; a final head → abandoned.
        case sendingHead
        /// Bytes go out up to `writableLimit`.
        case sending
        /// The head is out; the body waits for `100 Continue` until `until`. Exits: 100 or the
        /// delay → sending; a final head → abandoned.
        case awaitingContinue(until: Deadline)
        /// Everything was written.
        case done
        /// Writing stopped before the end (early final response, or the server stopped reading):
        /// the connection cannot be reused.
        case abandoned
    }

    enum Reading: Equatable {
        /// No final head yet.
        case awaitingHead
        /// Inside the body of the final response.
        case body
        /// Inside the body, with reading stopped because the consumer's bounded buffer is full
        /// (back-pressure). Exits: resumeReading → body; cancel, deadline → closed (the request
        /// fails); peerHungUp → paused(peerClosed: true). No parsing happens here: the driver
        /// leaves unparsed bytes in its buffer. `peerClosed`: the peer hung up meanwhile, so the
        /// socket will report nothing more and resuming reads it to the end without events.
        case paused(peerClosed: Bool)
        /// The response ended; `keepAlive` is the parser's verdict.
        case done(keepAlive: Bool)
    }

    struct Active {
        /// The driver's record of the exchange.
        var run: Run
        var request: RequestInfo
        var writing: Writing
        var reading: Reading
        var written = 0
        /// When the idle timeout runs out (moves on progress).
        var idleDeadline: Deadline
    }

    enum State {
        /// A TLS connection whose handshake has not begun. `connectDeadline`: through a proxy,
        /// when the connect limit that began at the proxy's TCP connect ends (the handshake must
        /// be over by then too). Exits: handshakeStarted → handshaking; cancel, close → closed.
        case awaitingHandshake(connectDeadline: Deadline?)
        /// The TLS handshake for `run`'s request, before the first request. Exits: completed →
        /// idle; failure, timer, end of stream, cancel → closed.
        case handshaking(Run, until: Deadline)
        /// Between requests (in the pool). Exits: requestStarted → active; anything read → closed.
        case idle
        /// One request under way.
        case active(Active)
        /// Terminal.
        case closed
        /// Terminal: a `101` handed the socket to another protocol's driver; nothing here may
        /// read, write or close it any more.
        case upgraded
    }

    /// How long a request with `Expect: 100-continue` holds its body back when the server says
    /// nothing (curl's default, also a common server expectation).
    static var continueDelay: Duration { .seconds(1) }

    /// Internal, not private: the transitions are split by concern over this file's extensions
    /// (+Reading, +Timer), and only they change it.
    var state: State
    var parser: ResponseParser

    /// A machine for a new connection: idle over plain TCP; over TLS (`tls`), waiting for its
    /// handshake, which must end by `connectDeadline` when given (through a proxy).
    init(tls: Bool = false, connectDeadline: Deadline? = nil, limits: ParserLimits = .default) {
        state = tls ? .awaitingHandshake(connectDeadline: connectDeadline) : .idle
        parser = ResponseParser(limits: limits)
    }

    // MARK: Queries

    /// Whether the connection is closed.
    var isClosed: Bool { if case .closed = state { true } else { false } }
    /// Whether a `101` handed the socket over (see `State.upgraded`).
    var isUpgraded: Bool { if case .upgraded = state { true } else { false } }
    /// Whether the connection waits for its next request.
    var isIdle: Bool { if case .idle = state { true } else { false } }
    /// Whether the TLS handshake is running.
    var isHandshaking: Bool { if case .handshaking = state { true } else { false } }
    /// Whether this is a TLS connection whose handshake has not begun.
    var awaitsHandshake: Bool { if case .awaitingHandshake = state { true } else { false } }
    /// The record of the exchange handshaking or running here; `nil` otherwise.
    var run: Run? {
        switch state {
        case .handshaking(let run, _): run
        case .active(let active): active.run
        case .awaitingHandshake, .idle, .closed, .upgraded: nil
        }
    }
    /// Whether a request is under way.
    var isActive: Bool { if case .active = state { true } else { false } }
    /// Whether the final response head of the active request arrived.
    var responseStarted: Bool {
        guard case .active(let active) = state else { return false }
        return active.reading != .awaitingHead
    }
    /// Whether reading is stopped for back-pressure (see `Reading.paused`).
    var isReadPaused: Bool {
        guard case .active(let active) = state else { return false }
        return active.reading.isPaused
    }
    /// Request bytes written so far.
    var written: Int { if case .active(let active) = state { active.written } else { 0 } }
    /// How many request bytes may have been written by now: the head alone while a
    /// `100 Continue` is awaited, the whole request while sending, what was written otherwise.
    var writableLimit: Int {
        guard case .active(let active) = state else { return 0 }
        switch active.writing {
        case .sending: return active.request.headLength + active.request.bodyLength
        case .sendingHead, .awaitingContinue: return active.request.headLength
        case .done, .abandoned: return active.written
        }
    }

    /// When the driver's timer must fire, or `nil` for no timer (idle: the pool's idle timeout
    /// is the driver's own).
    var timerDeadline: Deadline? {
        switch state {
        case .handshaking(_, let until): return until == .distantFuture ? nil : until
        case .awaitingHandshake, .idle, .closed, .upgraded: return nil
        case .active(let active):
            // Paused: the silence is ours, so the idle timeout does not run (resumeReading
            // restarts it); the resource deadline does.
            let idle = active.reading.isPaused ? Deadline.distantFuture : active.idleDeadline
            var earliest = min(idle, active.request.deadline)
            if case .awaitingContinue(let until) = active.writing { earliest = min(earliest, until) }
            return earliest == .distantFuture ? nil : earliest
        }
    }

    // MARK: Handshake

    /// The TLS handshake for `run`'s request begins; it must end by `deadline` (the request's
    /// own limits) and by the connect deadline given at creation, whichever comes first.
    mutating func handshakeStarted(_ run: Run, deadline: Deadline) {
        guard case .awaitingHandshake(let connectDeadline) = state else { preconditionFailure("handshakeStarted in \(state)") }
        state = .handshaking(run, until: min(deadline, connectDeadline ?? .distantFuture))
    }

    /// The TLS handshake finished: the connection is idle and the driver starts the returned
    /// run's request on it; `nil` when a cancel closed the connection as the engine finished.
    mutating func handshakeCompleted() -> Run? {
        guard case .handshaking(let run, _) = state else {
            if case .closed = state { return nil }  // a cancel closed it while the engine finished
            preconditionFailure("handshakeCompleted in \(state)")
        }
        state = .idle
        return run
    }

    // MARK: Requests

    /// `run`'s request with `method` starts on this idle connection; the driver writes it
    /// (`writableLimit` bytes).
    mutating func requestStarted(_ request: RequestInfo, run: Run, method: RequestMethod, now: Deadline) -> Action {
        guard case .idle = state else { preconditionFailure("requestStarted in \(state)") }
        parser.expectResponse(to: method, offeringUpgrade: request.offersUpgrade, options: request.responseParsing)
        let writing: Writing = request.expectsContinue && request.bodyLength > 0 ? .sendingHead : .sending
        state = .active(Active(run: run, request: request, writing: writing, reading: .awaitingHead,
                               idleDeadline: Self.idleDeadline(request.idleTimeout, now: now)))
        return .write
    }

    /// The socket (or TLS engine) took `count` more request bytes.
    mutating func bytesWritten(_ count: Int, now: Deadline) -> Action {
        guard case .active(var active) = state else { return .none }  // closed meanwhile: ignore
        active.written += count
        active.idleDeadline = Self.idleDeadline(active.request.idleTimeout, now: now)
        let total = active.request.headLength + active.request.bodyLength
        precondition(active.written <= total, "wrote \(active.written) of \(total) bytes")
        switch active.writing {
        case .sending where active.written == total:
            active.writing = .done
        case .sendingHead where active.written == active.request.headLength:
            active.writing = .awaitingContinue(until: now + Self.continueDelay)
        default:
            break
        }
        state = .active(active)
        if active.writing == .done, case .done = active.reading { return finishResponse() }
        return .none
    }

    /// A chunked body's stream ended: its wire length is now `bodyLength` (it was given as more
    /// than any body until then, so writing could not be `done` early).
    mutating func bodyLengthKnown(_ bodyLength: Int) {
        guard case .active(var active) = state, active.request.bodyLength != bodyLength else { return }
        precondition(active.written <= active.request.headLength + bodyLength, "wrote \(active.written), body now \(bodyLength) in \(state)")
        active.request.bodyLength = bodyLength
        state = .active(active)
    }

    /// Updates the running exchange's record in place (the driver's summary counters); nothing
    /// when no request runs.
    mutating func updateRun(_ body: (inout Run) -> Void) {
        guard case .active(var active) = state else { return }
        state = .closed  // leaves `active` uniquely referenced while `body` mutates it
        body(&active.run)
        state = .active(active)
    }

    /// Writing failed (the server reset or stopped reading). The response may still be on its
    /// way (a 413 before closing), so reading goes on; the request fails only if reading fails.
    mutating func writeFailed() -> Action {
        guard case .active(var active) = state else { return .none }
        if case .done = active.reading { return finishResponse() }
        active.writing = .abandoned
        state = .active(active)
        return .none
    }
}

extension HTTP1ConnectionStateMachine.Failure {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.transport(let a), .transport(let b)): a.kind == b.kind && a.detail == b.detail
        case (.handshakeClosed, .handshakeClosed), (.truncatedTLS, .truncatedTLS), (.deadline, .deadline),
             (.handshakeTimeout, .handshakeTimeout), (.unexpectedUpgrade, .unexpectedUpgrade), (.cancelled, .cancelled):
            true
        case (.malformed(let a), .malformed(let b)): a == b
        case (.closedEarly(let a), .closedEarly(let b)): a == b
        case (.idleTimeout(let a), .idleTimeout(let b)): a == b
        default: false
        }
    }
}

extension HTTP1ConnectionStateMachine.Writing {
    var isAwaitingContinue: Bool { if case .awaitingContinue = self { true } else { false } }
}

extension HTTP1ConnectionStateMachine.Reading {
    var isPaused: Bool { if case .paused = self { true } else { false } }
}

extension HTTP1ConnectionStateMachine.Action: Equatable where Run: Equatable {}
extension HTTP1ConnectionStateMachine.ParseStep: Equatable where Run: Equatable {}

extension HTTP1ConnectionStateMachine.Action {
    /// Whether the action ends the request on this connection.
    var endsRequest: Bool {
        switch self {
        case .complete, .fail, .upgrade: true
        case .none, .write, .forwardHead, .forwardBody, .close: false
        }
    }
}
