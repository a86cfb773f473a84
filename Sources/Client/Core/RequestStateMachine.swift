// A request's lifecycle as one value: user intents (resume, suspend, cancel, handlers) and the
// transport's events in, effects out. No I/O and no user code: `Request` holds it in its mutex,
// feeds it events, and performs the returned action outside the lock (STYLE.md §3).
//
// States, with the public `Request.State` each one shows:
//
//   initialized ───────resume──────▶ starting ──exchangeCreated──▶ running ──transportEnded──▶ completing ──outcomeRecorded──▶ finished
//   (.initialized)                   (.resumed)                     (.resumed)                  (.resumed)                       (.finished)
//        │ suspend                    │ ▲ suspend/resume             │ cancel
//        ▼                            ▼ │                            ▼
//   suspendedBeforeStart ─resume─▶  starting(suspended)          cancelling ──transportEnded──▶ completing(cancelled)
//   (.suspended)                    (.suspended)                  (.cancelled)                   (.cancelled) ──outcomeRecorded──▶ finished(cancelled)
//                                     │ exchangeCreated
//                                     ▼
//                                   suspendedWithExchange ──resume──▶ running
//                                   (.suspended)
//
//   starting ──cancel──▶ cancelledWhileStarting ──exchangeCreated / startFailed──▶ completing(cancelled)
//   initialized, suspendedBeforeStart, suspendedWithExchange ──cancel──▶ completing(cancelled)
//   starting ──startFailed──▶ completing
//
// Eager setup (`Session(requestSetup: .eager)`): the URLRequest and the task are built when the
// request is made, before any resume, and the request still shows `.initialized`:
//
//   initialized ──prepare──▶ preparing ──exchangeCreated──▶ prepared ──resume──▶ running
//   (.initialized)           (.initialized)                  (.initialized) ──suspend──▶ suspendedWithExchange
//   preparing ──resume/suspend──▶ starting(suspended: false/true); ──cancel──▶ cancelledWhileStarting
//   prepared ──cancel──▶ completing(cancelled)
//
// Suspend on the wire (Alamofire's `task.suspend()`): the connection stops reading, and an
// exchange that ends meanwhile is held, so a suspended request does not finish until resumed:
//
//   running ──suspend──▶ suspendedRunning ──resume──▶ running
//   (.resumed)           (.suspended)  │ transportEnded ──▶ endedWhileSuspended ──resume──▶ completing
//                                      │ cancel ──▶ cancelling            (.suspended) ──cancel──▶ completing(cancelled)
//
// Why `starting` is a state of its own: building the URLRequest runs user code (the request
// modifier, adapters) outside the lock. The old `Request` read "not started yet" from
// `exchange == nil`, so a suspend and a resume from another thread during that window started a
// second exchange (issue 9, finding 5; `RequestLifecycleTests.resumeSuspendResumeRace`). Here
// only the `resume` that leaves `initialized` or `suspendedBeforeStart` returns `startExchange`,
// and `starting` is left only by the starter's own `exchangeCreated` or `startFailed`.
//
// Retry (a retrier decides; each retry is a new exchange of the same request):
//
//   completing ──outcomeRecorded(failed, retrier)──▶ awaitingRetrier ──retryDecided(retry)──▶ waitingToRetry
//   (.resumed)                                       (.resumed)                                (.resumed)
//                                                       │ doNotRetry                             │ retryDelayElapsed
//                                                       ▼                                        ▼
//                                                    finished                                  starting (retryCount + 1;
//                                                                                               adapters run again)
//   awaitingRetrier ──cancel──▶ awaitingRetrier(cancelled) ──retryDecided(anything)──▶ finished(cancelled)
//   waitingToRetry ──cancel──▶ completing(cancelled): no exchange is on the wire, so it ends at
//   once; the pending timer's `retryDelayElapsed` then finds the request over and is dropped.
//
// `completing` no longer finishes by itself: the request records the outcome, runs validators,
// then reports `outcomeRecorded` and the machine decides between serializing and asking the
// retrier. Only a failed, uncancelled request with a retrier asks (Alamofire's `retryOrFinish`).
//
// Serializing (Alamofire's response serializers, one at a time, in the order they were added;
// their completions are held until the last one ran, then called in that order):
//
//   completing ──outcomeRecorded──▶ serializing ──serializerFinished(ok)──▶ serializing (next) … ──▶ finished
//   (.resumed)   (no retry asked)    (.resumed)   action runSerializer(next), or finishSerializing(completions)
//                                       │ serializerFinished(failed, retrier, not cancelled)
//                                       ▼
//                                    awaitingRetrier(failedSerializer) ──retryDecided(retry)──▶ waitingToRetry
//                                       │ retryDecided(nil) ──▶ serializing (next; the failed one's completion, or its
//                                       │                       replacement for `.doNotRetryWithError`, is held)
//   A retry forgets the held completions: every serializer runs again on the next attempt's
//   response, and none of them completes for the failed attempt. A plain handler (no serializer,
//   e.g. `response(completionHandler:)`) is held as a completion when its turn comes.
//   serializing ──cancel──▶ serializing(cancelled): no serializer failure is offered to the retrier;
//     the outcome stands (`.resumed`, then `.finished`), as for a cancel racing completion.
//   finished ──serializer added──▶ serializing (that serializer alone; `.resumed` again, as
//     Alamofire's): its failure goes to the retrier, and a retry starts a new attempt. A plain
//     handler added once finished runs at once.
//
// Follow-ups (a redirect or an answered authentication challenge; each is a new exchange of the
// same request, built from the recorded next URLRequest, without adapters, as URLSession's own
// hops):
//
//   running ──headReceived(.decided(next))──▶ drainingForFollowUp(next) ──transportEnded(ok)──▶ starting (followUpCount + 1)
//   (.resumed)                                 (.resumed; the body is discarded, capped)    action startFollowUp(next)
//      │ headReceived(.undecided(next))            │ transportEnded(failed) ──▶ completing
//      ▼                                           │ cancel ──▶ cancelling
//   runningRedirect(next) ──transportEnded(ok)──▶ awaitingRedirectHandler(next) ──redirectDecided(follow)──▶ starting
//   (.resumed; the body is kept: it is           (.resumed) action askRedirectHandler(next)
//    the response if the handler says no)           │ redirectDecided(nil) ──▶ completing
//                                                   │ cancel ──▶ awaitingRedirectHandler(cancelled) ──redirectDecided──▶ completing(cancelled)
//
// The next exchange's request (`FollowUp`) travels in the state cases and the actions: there is
// no "pending" field beside the machine to fall out of step with it.
//
// `.decided`: the follow-up is known from the head alone (no redirect handler or a fixed
// `Redirector`, or a challenge answered with a credential), so the body is never delivered.
// `.undecided`: a user's handler decides, off the connection's loop, once the response ended.
//
// Generic over the exchange and handler types so the table tests need no sockets.

/// The lifecycle of one request; see the file comment for states and transitions.
/// `FollowUp` is what a follow-up's next exchange is built from (`Request`'s `FollowUp`).
struct RequestStateMachine<Exchange, Handler, FollowUp> {
    enum State {
        /// Created, never resumed. Exits: resume → starting; suspend → suspendedBeforeStart;
        /// cancel → completing(cancelled).
        case initialized
        /// Suspended before anything was built. Exits: resume → starting; cancel → completing(cancelled).
        case suspendedBeforeStart
        /// One thread is building the URLRequest and the exchange (outside the lock).
        /// `suspended`: a suspend arrived meanwhile, so the exchange is held when it comes.
        /// Exits: exchangeCreated → running or suspendedWithExchange; startFailed → completing;
        /// cancel → cancelledWhileStarting; suspend/resume toggle `suspended`.
        case starting(suspended: Bool)
        /// A follow-up is decided from the head; the response body is being discarded.
        /// Exits: transportEnded(ok) → starting; transportEnded(failed) → completing;
        /// cancel → cancelling.
        case drainingForFollowUp(Exchange, next: FollowUp)
        /// A redirect arrived that a user's handler decides once the response ended; the body is
        /// kept. Exits: transportEnded(ok) → awaitingRedirectHandler; transportEnded(failed) →
        /// completing; cancel → cancelling.
        case runningRedirect(Exchange, next: FollowUp)
        /// The redirect handler is deciding about `next` (user code, outside the lock).
        /// `cancelled`: a cancel arrived meanwhile, so the request finishes whatever it says.
        /// Exits: redirectDecided → starting or completing.
        case awaitingRedirectHandler(next: FollowUp, cancelled: Bool)
        /// Built eagerly at creation, not resumed (shows `.initialized`).
        /// Exits: exchangeCreated → prepared; startFailed → completing; resume → starting;
        /// suspend → starting(suspended: true); cancel → cancelledWhileStarting.
        case preparing
        /// Built eagerly, never resumed: the exchange waits unsent (shows `.initialized`).
        /// Exits: resume → running; suspend → suspendedWithExchange; cancel → completing(cancelled).
        case prepared(Exchange)
        /// Cancelled while the starter builds; the starter's report finishes the request.
        /// Exits: exchangeCreated (the exchange is dropped unsent) or startFailed → completing(cancelled).
        case cancelledWhileStarting
        /// Built while suspended; not handed to the pool. Exits: resume → running;
        /// cancel → completing(cancelled) (no transport event will come: it never ran).
        case suspendedWithExchange(Exchange)
        /// Handed to the pool; transport events arrive. Exits: transportEnded → completing;
        /// cancel → cancelling; suspend → suspendedRunning.
        case running(Exchange)
        /// Suspended on the wire: the connection was asked to stop reading; a head or body
        /// already read may still arrive. Exits: resume → running; transportEnded →
        /// endedWhileSuspended; cancel → cancelling; a follow-up head → drainingForFollowUp or
        /// runningRedirect (a hop's bookkeeping is not held).
        case suspendedRunning(Exchange)
        /// The exchange ended while suspended: the outcome (recorded) waits for a resume.
        /// Exits: resume → completing; cancel → completing(cancelled).
        case endedWhileSuspended
        /// Told the transport to stop; waiting for its terminal event. Exit: transportEnded →
        /// completing(cancelled).
        case cancelling(Exchange)
        /// The outcome is settled; the request records it and runs validators, then reports
        /// `outcomeRecorded`. Exits: outcomeRecorded → finished or awaitingRetrier; cancel does
        /// nothing (the outcome stands).
        case completing(cancelled: Bool)
        /// The request (or, with `failedSerializer`, one of its response serializers) failed and
        /// its retrier is deciding (user code, outside the lock). `failedSerializer`: the failed
        /// serializer's completion, held if the retrier declines. `cancelled`: a cancel arrived
        /// meanwhile, so whatever the retrier says, it does not retry.
        /// Exits: retryDecided → waitingToRetry, serializing or finished.
        case awaitingRetrier(cancelled: Bool, failedSerializer: Handler?)
        /// The outcome stands; the queued serializers run one at a time (`serializerIndex` is the
        /// running one), their completions held in `completions`. `cancelled`: the request was
        /// cancelled (before or meanwhile): no failure is offered to the retrier.
        /// Exits: serializerFinished → serializing (next), awaitingRetrier or finished.
        case serializing(cancelled: Bool)
        /// A retry is scheduled; no exchange exists. Exits: retryDelayElapsed → starting;
        /// cancel → completing(cancelled).
        case waitingToRetry
        /// Final: handlers ran; later handlers run at once.
        case finished(cancelled: Bool)
    }

    /// What the caller must do, outside the lock.
    enum Action {
        /// Nothing.
        case none
        /// Build the URLRequest and the exchange on this thread, then report ``exchangeCreated(_:)``
        /// or ``startFailed()``.
        case startExchange
        /// Hand the exchange to the connection pool.
        case executeExchange(Exchange)
        /// Ask the exchange's connection to stop reading; report the task suspended.
        case pauseExchange(Exchange)
        /// Ask the exchange's connection to read again; report the task resumed.
        case resumeExchange(Exchange)
        /// The built exchange is held unsent because the request is suspended: report its task
        /// suspended.
        case reportTaskSuspended
        /// Tell the exchange to stop; its terminal event follows.
        case cancelExchange(Exchange)
        /// Record the outcome, run validators, then report ``outcomeRecorded(failed:hasRetrier:)``.
        case complete
        /// Ask the retrier about the recorded error, then report ``retryDecided(retry:)``.
        case askRetrier
        /// Report ``retryDelayElapsed()`` after this many seconds (0: as soon as possible).
        case scheduleRetry(delay: Double)
        /// Reset the per-exchange state (error, response, body), then build the URLRequest and
        /// the exchange again, as ``startExchange``.
        case restartExchange
        /// The request finished without a serializer to run: report it finished, then run these
        /// handlers, in order (also: a handler added once finished, to run at once).
        case runHandlers([Handler])
        /// Run this response serializer; it reports ``serializerFinished(failed:hasRetrier:completion:)``.
        /// `announcesFinish`: the first of an attempt: report the request finished first (as
        /// Alamofire's `requestDidFinish`, once per attempt that reaches its serializers).
        case runSerializer(Handler, announcesFinish: Bool)
        /// The last serializer ran: the request is finished (already reported); run these held
        /// completions, in order.
        case finishSerializing([Handler])
        /// Build the follow-up's exchange (no adapters), then report ``exchangeCreated(_:)`` or
        /// ``startFailed()``.
        case startFollowUp(FollowUp)
        /// Ask the redirect handler about this redirect (the held response's), then report
        /// ``redirectDecided(follow:)``.
        case askRedirectHandler(FollowUp)
    }

    /// What a response head means for the exchange, as the request judged it.
    enum HeadKind {
        /// A response to deliver (the common case).
        case final
        /// A follow-up is decided: discard the body, then start it.
        case decided(FollowUp)
        /// A redirect a user's handler decides once the response ended.
        case undecided(FollowUp)
    }

    /// What to do with a head, answering ``transportHeadReceived(_:)``.
    enum HeadAction: Equatable {
        /// Record the head and route its body as judged.
        case record
        /// Drop it: the request was cancelled meanwhile, and the end follows.
        case ignore
    }

    /// A queued response handler: a serializer runs and reports back; a plain handler is held
    /// as a completion when its turn comes.
    enum Entry {
        case serializer(Handler)
        case plain(Handler)
    }

    var state = State.initialized
    /// Handlers waiting for the request to finish; always empty once `finished`.
    var handlers: InlineList<Entry> = []
    /// While `serializing`: the entry whose turn it is.
    var serializerIndex = 0
    /// While `serializing`: completions of the serializers that ran, in order, held until the last.
    var completions: [Handler] = []
    /// While `serializing`: whether the outcome being serialized is a cancelled one. A cancel that
    /// arrives during serializing only keeps failures from the retrier: the outcome stands, so
    /// the request shows `.resumed`, then `.finished`, as for a cancel racing completion.
    var outcomeCancelled = false
    /// How many retries started (Alamofire's `Request.retryCount`): counted when the retry's
    /// delay has elapsed and its exchange is being built, not when it is decided.
    private(set) var retryCount = 0
    /// How many follow-up exchanges (redirects and challenge answers) started.
    private(set) var followUpCount = 0

    /// The public state this one shows (Alamofire's `Request.State`).
    var publicState: Request.State {
        switch state {
        case .initialized, .preparing, .prepared: return .initialized
        case .suspendedBeforeStart, .starting(suspended: true), .suspendedWithExchange, .suspendedRunning, .endedWhileSuspended:
            return .suspended
        case .starting(suspended: false), .running, .completing(cancelled: false), .awaitingRetrier(cancelled: false, _), .waitingToRetry,
             .drainingForFollowUp, .runningRedirect, .awaitingRedirectHandler(_, cancelled: false):
            return .resumed
        case .serializing, .awaitingRetrier(cancelled: true, failedSerializer: .some):
            // A cancel during serializing (or while the retrier weighs a serializer's failure)
            // leaves the outcome as it was.
            return outcomeCancelled ? .cancelled : .resumed
        case .cancelledWhileStarting, .cancelling, .completing(cancelled: true), .awaitingRetrier(cancelled: true, failedSerializer: nil), .finished(cancelled: true),
             .awaitingRedirectHandler(_, cancelled: true):
            return .cancelled
        case .finished(cancelled: false): return .finished
        }
    }

    /// Whether the request was cancelled (and the cancel took effect).
    var isCancelled: Bool { publicState == .cancelled }

    /// The exchange on the wire, if one is (running or being cancelled).
    var activeExchange: Exchange? {
        switch state {
        case .running(let exchange), .cancelling(let exchange), .drainingForFollowUp(let exchange, _), .runningRedirect(let exchange, _),
             .suspendedRunning(let exchange):
            return exchange
        default: return nil
        }
    }

    /// Whether the exchange on the wire is a hop a follow-up continues (its head called for
    /// another exchange, decided or for a redirect handler to decide).
    var isFollowingUp: Bool {
        switch state {
        case .drainingForFollowUp, .runningRedirect: true
        default: false
        }
    }

    // MARK: User intents

    /// `resume()` was called.
    mutating func resume() -> Action {
        switch state {
        case .initialized, .suspendedBeforeStart:
            state = .starting(suspended: false)
            return .startExchange
        case .starting:
            // Resume racing the start on another thread: that thread builds the one exchange;
            // this only lifts a suspend that arrived meanwhile.
            state = .starting(suspended: false)
            return .none
        case .preparing:
            // The eager build is under way: its report sends the exchange.
            state = .starting(suspended: false)
            return .none
        case .suspendedWithExchange(let exchange), .prepared(let exchange):
            state = .running(exchange)
            return .executeExchange(exchange)
        case .suspendedRunning(let exchange):
            state = .running(exchange)
            return .resumeExchange(exchange)
        case .endedWhileSuspended:
            state = .completing(cancelled: false)
            return .complete
        case .running, .cancelledWhileStarting, .cancelling, .completing, .awaitingRetrier, .waitingToRetry, .finished,
             .drainingForFollowUp, .runningRedirect, .awaitingRedirectHandler, .serializing:
            return .none  // Alamofire: resuming a running, retrying, cancelled or finished request does nothing.
        }
    }

    /// `suspend()` was called.
    mutating func suspend() -> Action {
        switch state {
        case .initialized:
            state = .suspendedBeforeStart
        case .starting, .preparing:
            // Suspend racing the start: the exchange is kept unsent when it comes.
            state = .starting(suspended: true)
        case .prepared(let exchange):
            state = .suspendedWithExchange(exchange)
            return .reportTaskSuspended
        case .running(let exchange):
            state = .suspendedRunning(exchange)
            return .pauseExchange(exchange)
        case .suspendedBeforeStart, .suspendedWithExchange, .suspendedRunning, .endedWhileSuspended, .cancelledWhileStarting, .cancelling, .completing,
             .awaitingRetrier, .waitingToRetry, .finished, .drainingForFollowUp, .runningRedirect, .awaitingRedirectHandler, .serializing:
            break  // Already suspended, in flight (cannot pause), between attempts, or over.
        }
        return .none
    }

    /// The request was made by a session with eager setup: build it now, without sending it.
    mutating func prepare() -> Action {
        guard case .initialized = state else { return .none }
        state = .preparing
        return .startExchange
    }

    /// `cancel()` was called.
    mutating func cancel() -> Action {
        switch state {
        case .initialized, .suspendedBeforeStart, .suspendedWithExchange, .prepared, .endedWhileSuspended:
            state = .completing(cancelled: true)
            return .complete
        case .starting, .preparing:
            // The starter finishes the request when it reports back.
            state = .cancelledWhileStarting
            return .none
        case .running(let exchange), .drainingForFollowUp(let exchange, _), .runningRedirect(let exchange, _), .suspendedRunning(let exchange):
            state = .cancelling(exchange)
            return .cancelExchange(exchange)
        case .awaitingRedirectHandler(let next, cancelled: false):
            // The handler's answer finishes the request; it cannot start another exchange now.
            state = .awaitingRedirectHandler(next: next, cancelled: true)
            return .none
        case .awaitingRetrier(cancelled: false, let failedSerializer):
            // The retrier's answer finishes the request; it cannot start another exchange now.
            state = .awaitingRetrier(cancelled: true, failedSerializer: failedSerializer)
            return .none
        case .serializing(cancelled: false):
            // The outcome stands and the serializers go on (the request shows `.resumed`, then
            // `.finished`: the cancel raced completion), but no failure of theirs is retried.
            state = .serializing(cancelled: true)
            return .none
        case .waitingToRetry:
            // Nothing is on the wire: end now rather than when the delay would have elapsed.
            state = .completing(cancelled: true)
            return .complete
        case .cancelledWhileStarting, .cancelling, .completing, .awaitingRetrier(cancelled: true, _), .finished,
             .awaitingRedirectHandler(_, cancelled: true), .serializing(cancelled: true):
            // Cancel racing completion: the transport's end got here first, so the response
            // stands and the cancel does nothing (as Alamofire's cancel of a finished request).
            return .none
        }
    }

    /// A response handler was added: a plain one (`serializer: false`) or a response serializer,
    /// which reports ``serializerFinished(failed:hasRetrier:completion:)`` when it ran.
    /// Once finished, a plain handler runs at once; a serializer takes a serializing turn of
    /// its own (the request shows `.resumed` again, as Alamofire's), so its failure goes to the
    /// retrier like any other serializer's.
    mutating func handlerAppended(_ handler: Handler, serializer: Bool = false) -> Action {
        if case .finished(let cancelled) = state {
            guard serializer else { return .runHandlers([handler]) }
            (handlers, serializerIndex, completions, outcomeCancelled) = ([.serializer(handler)], 0, [], cancelled)
            state = .serializing(cancelled: cancelled)
            return .runSerializer(handler, announcesFinish: false)
        }
        handlers.append(serializer ? .serializer(handler) : .plain(handler))
        return .none
    }

    // MARK: Starter reports

    /// The starter built the exchange.
    mutating func exchangeCreated(_ exchange: Exchange) -> Action {
        switch state {
        case .starting(suspended: false):
            state = .running(exchange)
            return .executeExchange(exchange)
        case .starting(suspended: true):
            state = .suspendedWithExchange(exchange)
            return .reportTaskSuspended
        case .preparing:
            state = .prepared(exchange)
            return .none
        case .cancelledWhileStarting:
            state = .completing(cancelled: true)  // The exchange is dropped: it never ran.
            return .complete
        default:
            preconditionFailure("exchangeCreated in state \(state): only the starter reports it, once")
        }
    }

    /// The starter could not build the request (the error is recorded by the caller).
    mutating func startFailed() -> Action {
        switch state {
        case .starting, .preparing:
            state = .completing(cancelled: false)
            return .complete
        case .cancelledWhileStarting:
            state = .completing(cancelled: true)
            return .complete
        default:
            preconditionFailure("startFailed in state \(state): only the starter reports it, once")
        }
    }

    // MARK: Transport events

    /// The response head arrived; `kind` is what the request judged it to be (see ``HeadKind``).
    mutating func transportHeadReceived(_ kind: HeadKind = .final) -> HeadAction {
        switch state {
        case .running(let exchange), .suspendedRunning(let exchange):
            switch kind {
            case .final: break
            case .decided(let next): state = .drainingForFollowUp(exchange, next: next)
            case .undecided(let next): state = .runningRedirect(exchange, next: next)
            }
            return .record
        case .cancelling:
            return .ignore  // Cancelled meanwhile: the head is not recorded; the end follows.
        default:
            preconditionFailure("response head in state \(state): heads come only from a running exchange")
        }
    }

    /// The exchange ended: the whole response arrived, or it failed (a cancelled exchange fails).
    /// `failed` matters only for a follow-up: a failed exchange ends the request with its error.
    mutating func transportEnded(failed: Bool = false) -> Action {
        switch state {
        case .running:
            state = .completing(cancelled: false)
            return .complete
        case .suspendedRunning:
            state = .endedWhileSuspended
            return .none
        case .drainingForFollowUp(_, let next) where !failed:
            followUpCount += 1
            state = .starting(suspended: false)
            return .startFollowUp(next)
        case .runningRedirect(_, let next) where !failed:
            state = .awaitingRedirectHandler(next: next, cancelled: false)
            return .askRedirectHandler(next)
        case .drainingForFollowUp, .runningRedirect:
            state = .completing(cancelled: false)
            return .complete
        case .cancelling:
            // Whether the transport saw the cancel or finished first, the user cancelled before
            // the end reached us: the request reports explicitlyCancelled.
            state = .completing(cancelled: true)
            return .complete
        default:
            preconditionFailure("transport end in state \(state): an exchange ends once, and only after it ran")
        }
    }

    // MARK: Finishing and retrying

    /// The outcome was recorded and validators ran. A failed, uncancelled request with a
    /// retrier asks it; any other finishes and hands out the handlers.
    mutating func outcomeRecorded(failed: Bool, hasRetrier: Bool) -> Action {
        guard case .completing(let cancelled) = state else {
            preconditionFailure("outcomeRecorded in state \(state): it follows completing, once")
        }
        if failed, hasRetrier, !cancelled {
            state = .awaitingRetrier(cancelled: false, failedSerializer: nil)
            return .askRetrier
        }
        return startSerializing(cancelled: cancelled)
    }

    /// The retrier answered: `retry` is the delay in seconds to retry after, `nil` for no retry
    /// (the request records any retry error before reporting).
    /// After a serializer's failure, `replacement` (the request's `.doNotRetryWithError`) is held
    /// instead of the failed serializer's own completion when there is no retry.
    mutating func retryDecided(retry delay: Double?, replacement: Handler? = nil) -> Action {
        guard case .awaitingRetrier(let cancelled, let failedSerializer) = state else {
            preconditionFailure("retryDecided in state \(state): only the retrier's one answer reports it")
        }
        guard let delay, !cancelled else {
            guard let failedSerializer else { return startSerializing(cancelled: cancelled) }
            completions.append(replacement ?? failedSerializer)
            serializerIndex += 1
            state = .serializing(cancelled: cancelled)
            return nextSerializer(announcesFinish: false)
        }
        // Every serializer runs again on the retry's response; none completes for this attempt.
        (serializerIndex, completions) = (0, [])
        state = .waitingToRetry
        return .scheduleRetry(delay: max(0, delay))
    }

    /// The retry's delay elapsed: build the next exchange.
    mutating func retryDelayElapsed() -> Action {
        switch state {
        case .waitingToRetry:
            retryCount += 1
            state = .starting(suspended: false)
            return .restartExchange
        case .completing(cancelled: true), .finished(cancelled: true):
            return .none  // Cancelled during the delay: the request ended then; the timer is stale.
        default:
            preconditionFailure("retryDelayElapsed in state \(state): one timer per scheduled retry")
        }
    }

    /// The redirect handler answered: `follow` is the request's next exchange when it returned a
    /// request, `nil` to deliver the redirect response.
    mutating func redirectDecided(follow next: FollowUp?) -> Action {
        guard case .awaitingRedirectHandler(_, let cancelled) = state else {
            preconditionFailure("redirectDecided in state \(state): only the redirect handler's one answer reports it")
        }
        guard let next, !cancelled else {
            state = .completing(cancelled: cancelled)
            return .complete
        }
        followUpCount += 1
        state = .starting(suspended: false)
        return .startFollowUp(next)
    }

    /// Finishes with no serializer run: every queued handler is plain, held in `completions`.
}

extension RequestStateMachine.Action: Sendable where Exchange: Sendable, Handler: Sendable, FollowUp: Sendable {}
extension RequestStateMachine.HeadKind: Sendable where FollowUp: Sendable {}
