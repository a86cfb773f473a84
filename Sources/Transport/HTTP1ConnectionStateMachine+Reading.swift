// HTTP1ConnectionStateMachine's reading transitions: bytes received, the response parsed,
// paused and resumed reading, the end of the stream and a failed connection; and the shared
// endings (finishResponse, fail). States and the other transitions: HTTP1ConnectionStateMachine.swift.

import Wire
import EventLoop

extension HTTP1ConnectionStateMachine {
    // MARK: Reading

    /// Bytes arrived (or were decrypted): restarts the idle timeout. On an idle connection they
    /// are a protocol error or a close notice: the connection is closed.
    mutating func bytesReceived(now: Deadline) -> Action {
        switch state {
        case .active(var active):
            active.idleDeadline = Self.idleDeadline(active.request.idleTimeout, now: now)
            state = .active(active)
            return .none
        case .idle:
            state = .closed
            return .close
        case .awaitingHandshake, .handshaking, .closed, .upgraded:
            return .none
        }
    }

    /// Feeds the unconsumed received bytes to the parser; call again with the rest while the
    /// action is not `.none` with zero consumed.
    mutating func parse(_ input: UnsafeRawBufferPointer, now: Deadline) -> ParseStep {
        guard case .active(var active) = state else {
            return ParseStep(action: .none, consumed: 0)
        }
        // The driver stops parsing when it pauses; parsing anyway would forward bytes the
        // consumer has no room for.
        precondition(!active.reading.isPaused, "parse while reading is paused in \(state)")
        let step: Wire.ParseStep
        do throws(WireError) {
            step = try parser.parse(input)
        } catch {
            return ParseStep(action: fail(.malformed(error), retryable: false), consumed: 0)
        }
        switch step.event {
        case .needMoreData:
            return ParseStep(action: .none, consumed: step.consumed)
        case .interim(let head):
            guard head.status == 100, active.writing == .sendingHead || active.writing.isAwaitingContinue else {
                return ParseStep(action: .none, consumed: step.consumed, head: nil)  // 103 and others: skipped
            }
            active.writing = .sending
            state = .active(active)
            return ParseStep(action: .write, consumed: step.consumed)
        case .head(let head):
            active.reading = .body
            // A final answer to `Expect: 100-continue`: the body is never sent (RFC 9110 §10.1.1).
            if active.writing == .sendingHead || active.writing.isAwaitingContinue { active.writing = .abandoned }
            state = .active(active)
            return ParseStep(action: .forwardHead, consumed: step.consumed, head: head)
        case .body(let range):
            return ParseStep(action: .forwardBody(range), consumed: step.consumed)
        case .end(let end):
            active.reading = .done(keepAlive: end.keepAlive)
            state = .active(active)
            _ = now
            return ParseStep(action: finishResponse(), consumed: step.consumed, trailers: end.trailers)
        case .upgraded(let head):
            // The parser accepts a 101 only for a request that offered an upgrade; the request
            // was written whole (an upgrade offer has no body), so nothing of HTTP/1.1 is left.
            guard active.request.offersUpgrade, head.status == 101 else {
                return ParseStep(action: fail(.unexpectedUpgrade, retryable: false), consumed: step.consumed)
            }
            state = .upgraded
            return ParseStep(action: .upgrade(active.run), consumed: step.consumed, head: head)
        }
    }

    /// The consumer's buffer is full: stop reading until `resumeReading`. Returns whether the
    /// driver must stop (drop read interest, stop parsing); `false` when there is nothing to pause
    /// (already paused, or the response ended or failed meanwhile: a legitimate race, since the
    /// consumer decides on its own thread).
    mutating func pauseReading() -> Bool {
        guard case .active(var active) = state, active.reading == .body else { return false }
        active.reading = .paused(peerClosed: false)
        state = .active(active)
        return true
    }

    /// The peer hung up. Returns whether the driver must wait (reading is paused: what the peer
    /// sent before it went away is still in the kernel, and resuming reads it to the end);
    /// `false` when the driver must report the loss (`connectionFailed`) now.
    mutating func peerHungUp() -> Bool {
        guard case .active(var active) = state, active.reading.isPaused else { return false }
        active.reading = .paused(peerClosed: true)
        state = .active(active)
        return true
    }

    /// What the driver does when the consumer asks to read again.
    enum Resume: Equatable {
        /// Not paused (a late resume after a cancel, or one for an earlier request): nothing.
        case ignored
        /// Restore read interest, then parse what is already buffered.
        case read
        /// As `read`, then read what the kernel still holds until the end without waiting for
        /// events: the peer hung up while reading was paused.
        case readToEnd
    }

    /// The consumer drained its buffer: read again. The idle timeout starts afresh at `now`.
    mutating func resumeReading(now: Deadline) -> Resume {
        guard case .active(var active) = state, case .paused(let peerClosed) = active.reading else { return .ignored }
        active.reading = .body
        active.idleDeadline = Self.idleDeadline(active.request.idleTimeout, now: now)
        state = .active(active)
        return peerClosed ? .readToEnd : .read
    }

    /// The server closed its side: `clean` is `nil` over TCP, and over TLS whether the close came
    /// with `close_notify`.
    mutating func endOfStream(cleanTLSClose clean: Bool?) -> Action {
        switch state {
        case .idle, .awaitingHandshake:
            state = .closed
            return .close
        case .handshaking:
            return fail(.handshakeClosed, retryable: false)
        case .closed, .upgraded:
            return .none
        case .active(var active):
            let event: ResponseEvent?
            do throws(WireError) {
                event = try parser.finish()
            } catch {
                let early = error.rule == .closedBeforeResponse || error.rule == .truncatedBody || error.rule == .truncatedHead
                return fail(early ? .closedEarly(error) : .malformed(error), retryable: true)
            }
            guard case .end = event else { return fail(.closedEarly(nil), retryable: true) }
            // A close-delimited body over TLS must end with close_notify, or it may be truncated.
            if clean == false { return fail(.truncatedTLS, retryable: false) }
            active.reading = .done(keepAlive: false)
            state = .active(active)
            return finishResponse()
        }
    }

    /// A read, write or TLS failure that ends the connection; `retryable` when a fresh
    /// connection could succeed (a reset), not when the request itself is at fault (its body
    /// file became unreadable) or the peer's TLS is broken.
    mutating func connectionFailed(_ error: TransportError, retryable: Bool = true) -> Action {
        switch state {
        case .idle, .awaitingHandshake:
            state = .closed
            return .close
        case .closed, .upgraded: return .none
        case .handshaking, .active: return fail(.transport(error), retryable: retryable)
        }
    }

    // MARK: Endings

    /// Decides keep-alive over both halves once the response ended.
    mutating func finishResponse() -> Action {
        guard case .active(let active) = state, case .done(let parserKeepAlive) = active.reading else {
            preconditionFailure("finishResponse in \(state)")
        }
        switch active.writing {
        case .done:
            if parserKeepAlive && parser.isIdle {
                state = .idle
                return .complete(keepAlive: true, active.run)
            }
        case .sending, .sendingHead, .awaitingContinue, .abandoned:
            // An early final response (RFC 9112 §9.3: the server may answer before the body is
            // complete, typically 413 or 401): the response is delivered, and the connection,
            // whose request framing was not honoured, cannot carry another request.
            break
        }
        state = .closed
        return .complete(keepAlive: false, active.run)
    }

    /// Closes and fails the request (or the handshake), with Go's retry verdict when `retryable`.
    /// Only from `handshaking` or `active`, the states that hold a run.
    mutating func fail(_ failure: Failure, retryable: Bool) -> Action {
        let run: Run
        var retry = false
        switch state {
        case .handshaking(let handshaking, _):
            run = handshaking
        case .active(let active):
            run = active.run
            retry = retryable && active.request.isReused && active.reading == .awaitingHead && active.request.attempt == 0
                && (active.request.isIdempotent || active.written == 0)
        case .awaitingHandshake, .idle, .closed, .upgraded:
            preconditionFailure("fail(\(failure)) in \(state)")
        }
        state = .closed
        return .fail(failure, retry: retry, run)
    }

    static func idleDeadline(_ timeout: Duration?, now: Deadline) -> Deadline {
        timeout.map { now + $0 } ?? .distantFuture
    }
}
