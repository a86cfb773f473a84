#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization

// Redirects and authentication challenges: a response head that calls for another exchange of
// the same request. `judge(_:)` decides from the head (pure rules in `RedirectRules` and
// `HTTPAuthentication`), `RequestStateMachine` sequences the hop, and these perform it: the
// next exchange is built from the recorded URLRequest through `Session.transportRequest` (so
// cookies from the redirect response apply), with the request's resource deadline, a fresh idle
// timeout, and no adapters (URLSession's own hops never reach Alamofire's adapters either).

/// A request's follow-up bookkeeping, inside `Request`'s mutex.
struct FollowUpState {
    /// The request's own redirect handler (wins over the session's).
    var redirectHandler: (any RedirectHandler)?
    /// The request's own credential (wins over the session's credential storage).
    var credential: URLCredential?
    /// Which challenges ``credential`` answers (``CredentialScope/origin`` by default).
    var credentialScope = CredentialScope.origin
    /// The URL of this attempt's first exchange, recorded when a follow-up replaces it: the
    /// origin ``credential`` belongs to. `nil` while the first exchange is the current one.
    var firstURL: URL?
    /// The request as first built, for ``URLSessionTask/originalRequest``.
    var originalRequest: URLRequest?
    /// Redirects followed so far.
    var redirectCount = 0
    /// Challenges answered so far: one per request, plus one for a Digest `stale=true`.
    var challengesAnswered = 0
    /// Whether the one extra answer for `stale=true` was used.
    var staleAnswered = false
    /// The next exchange's request, decided and not yet started.
    var pending: Pending?

    /// Forgets the counts and any pending hop: a retry starts a new chain.
    mutating func startOver() {
        (redirectCount, challengesAnswered, staleAnswered, pending, firstURL) = (0, 0, false, nil, nil)
    }

    /// A decided (or to-be-decided) next request.
    struct Pending {
        /// The request URLSession's rules (or the challenge answer) give.
        var request: URLRequest
        /// Whether the body is sent again, so an upload's body is rebuilt from its source.
        var keepsBody: Bool
        /// The handler still to ask, for an undecided redirect.
        var handler: (any RedirectHandler)?
    }
}

/// Which challenges a request's own credential answers: ``Request/authenticate(with:)`` gives
/// ``origin``, fetch's options the others.
package struct CredentialScope: Sendable, Equatable {
    /// The authentication methods answered (`NSURLAuthenticationMethodHTTPBasic`, `…HTTPDigest`);
    /// empty: any supported one, the strongest offered.
    package var methods: Set<String>
    /// Whether challenges from other origins than the first exchange's are answered too
    /// (curl's `--location-trusted`).
    package var anyOrigin: Bool

    /// A scope.
    /// - Parameters:
    ///   - methods: The methods answered; empty for any.
    ///   - anyOrigin: Whether other origins are answered too.
    package init(methods: Set<String> = [], anyOrigin: Bool = false) {
        (self.methods, self.anyOrigin) = (methods, anyOrigin)
    }

    /// Any supported method, the first origin only: ``Request/authenticate(with:)``'s scope.
    package static let origin = CredentialScope()

    /// Whether a challenge for `method` is answered.
    func answers(_ method: String) -> Bool { methods.isEmpty || methods.contains(method) }
}

/// Where the current exchange's body bytes go: to the request, discarded while a decided
/// follow-up waits, or held (with the head) while a user's redirect handler has not answered.
/// Written and read on the connection's loop (the head, then the body, in order) and reset when
/// the next exchange is built, after the last one ended; atomics so the bytes' path needs no
/// lock (the held hop has its own, taken only on that path). Stored inline in `Request`
/// (noncopyable): no allocation per exchange.
struct BodyRoute: ~Copyable, Sendable {
    private let discarding = Atomic<Bool>(false)
    private let drained = Atomic<Int>(0)
    private let abandoned = Atomic<Bool>(false)
    private let held = Mutex<HeldHop?>(nil)

    /// A redirect's head and body kept from the consumer until the handler answered, as
    /// URLSession asks `willPerformHTTPRedirection` before delivering any of the 3xx: delivered
    /// only if the handler declines.
    struct HeldHop: Sendable {
        /// The redirect's head.
        var head: TransportResponseHead
        /// Its body so far, at most ``BodyRoute/maxDrainedBytes``.
        var body: [Data] = []
    }

    /// Most body bytes read and discarded before a follow-up: 64 KiB (redirect and 401 bodies
    /// are short HTML). Past it the connection is closed rather than read further.
    static let maxDrainedBytes = 64 * 1024

    /// Whether bytes are discarded.
    var isDiscarding: Bool { discarding.load(ordering: .relaxed) }
    /// Whether the request closed the exchange because the body was too long to drain.
    var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }
    /// Discards the rest of the body.
    func discard() { discarding.store(true, ordering: .relaxed) }
    /// Holds `head` and the body that follows (up to the cap) instead of delivering them.
    func hold(_ head: TransportResponseHead) {
        held.withLock { $0 = HeldHop(head: head) }
        discard()
    }
    /// Delivers bytes again, for a new exchange (the last one has ended).
    func reset() {
        discarding.store(false, ordering: .relaxed)
        drained.store(0, ordering: .relaxed)
        abandoned.store(false, ordering: .relaxed)
        held.withLock { $0 = nil }
    }
    /// Counts discarded bytes, keeping them when a hop is held; returns true once when the cap is
    /// passed (close the exchange; a held body is then incomplete).
    func drain(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let total = drained.add(bytes.count, ordering: .relaxed).newValue
        guard total > Self.maxDrainedBytes else {
            held.withLock { hop in hop?.body.append(Data(bytes)) }
            return false
        }
        return !abandoned.exchange(true, ordering: .relaxed)
    }
    /// Takes the held hop, if any; `complete` is false when its body passed the cap.
    func takeHeld() -> (hop: HeldHop, complete: Bool)? {
        held.withLock { hop in
            defer { hop = nil }
            return hop.map { ($0, !isAbandoned) }
        }
    }
}

extension Request {
    // MARK: Public API

    /// The request's own redirect handler, `nil` when the session's (or URLSession's default,
    /// follow) applies.
    public internal(set) var redirectHandler: (any RedirectHandler)? {
        get { mutable.withLock { $0.followUp.redirectHandler } }
        set { mutable.withLock { $0.followUp.redirectHandler = newValue } }
    }

    /// The credential answering this request's Basic or Digest challenges, `nil` when the
    /// session's credential storage applies.
    public internal(set) var credential: URLCredential? {
        get { mutable.withLock { $0.followUp.credential } }
        set { mutable.withLock { $0.followUp.credential = newValue } }
    }

    /// Sets the redirect handler of this request, overriding the session's.
    /// - Parameter handler: The handler.
    /// - Returns: The request.
    /// - Precondition: No handler was set on this request before (as Alamofire).
    @discardableResult
    public func redirect(using handler: any RedirectHandler) -> Self {
        mutable.withLock { state in
            precondition(state.followUp.redirectHandler == nil, "Redirect handler has already been set.")
            state.followUp.redirectHandler = handler
        }
        return self
    }

    /// Answers a 401 Basic or Digest challenge with this user name and password (never sent
    /// before the server asks, as URLSession). A wrong password delivers the server's second 401
    /// to validators and serializers.
    ///
    /// The credential answers challenges from the origin (scheme, host, port) the request was
    /// first sent to only: a redirect to another origin, or from https to http, never receives
    /// it (the session's ``URLSessionConfiguration/urlCredentialStorage`` may still answer there,
    /// by protection space).
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    ///   - persistence: `.forSession` by default; Lariat keeps nothing beyond the request itself.
    /// - Returns: The request.
    @discardableResult
    public func authenticate(username: String, password: String, persistence: URLCredential.Persistence = .forSession) -> Self {
        authenticate(with: URLCredential(user: username, password: password, persistence: persistence))
    }

    /// Answers a 401 Basic or Digest challenge with `credential`, from the origin the request
    /// was first sent to only (see ``authenticate(username:password:persistence:)``).
    /// - Parameter credential: The credential.
    /// - Returns: The request.
    @discardableResult
    public func authenticate(with credential: URLCredential) -> Self {
        self.credential = credential
        return self
    }

    /// Answers 401 challenges with `credential` within `scope` (fetch's `--digest`,
    /// `--anyauth` and `--location-trusted`).
    /// - Parameters:
    ///   - credential: The credential.
    ///   - scope: The methods it answers and whether other origins get it.
    /// - Returns: The request.
    @discardableResult
    package func authenticate(with credential: URLCredential, scope: CredentialScope) -> Self {
        mutable.withLock { state in (state.followUp.credential, state.followUp.credentialScope) = (credential, scope) }
        return self
    }

    // MARK: Judging a head

    /// What a response head means: a response to deliver, or a follow-up (with the pending
    /// request), or a failure to record. Runs on the connection's loop; only user-free work.
    func judge(_ head: TransportResponseHead) -> (kind: RequestStateMachine<Exchange, ResponseHandler>.HeadKind,
                                                  pending: FollowUpState.Pending?, error: AFError?, countsRedirect: Bool) {
        let status = head.status
        guard status == 401 || RedirectRules.redirectStatuses.contains(status) else { return (.final, nil, nil, false) }
        let (request, followUp) = mutable.withLock { ($0.request, $0.followUp) }
        guard let request else { return (.final, nil, nil, false) }
        if status == 401 {
            guard let next = challengeAnswer(head, request: request, followUp: followUp) else { return (.final, nil, nil, false) }
            return (.decided, FollowUpState.Pending(request: next, keepsBody: true), nil, false)
        }
        let location = head.fields.first { $0.name.lowercased() == "location" }?.value
        switch RedirectRules.next(status: status, location: location, current: request) {
        case .notRedirect:
            return (.final, nil, nil, false)
        case .failure(let code):
            return (.final, nil, .sessionTaskFailed(error: URLError(code)), false)
        case .follow(let next, let keepsBody):
            let limit = session.configuration.httpMaximumRedirects
            guard followUp.redirectCount < limit else {
                return (.final, nil, .sessionTaskFailed(error: URLError(.httpTooManyRedirects)), false)
            }
            let handler = followUp.redirectHandler ?? session.redirectHandler
            let fixed: Bool? = handler.map { ($0 as? Redirector)?.fixedAnswer } ?? true
            switch fixed {
            case true?: return (.decided, FollowUpState.Pending(request: next, keepsBody: keepsBody), nil, true)
            case false?: return (.final, nil, nil, false)
            case nil: return (.undecided, FollowUpState.Pending(request: next, keepsBody: keepsBody, handler: handler), nil, false)
            }
        }
    }

    /// The request answering a 401's challenge, `nil` to deliver the 401: no supported
    /// challenge, no credential for it, or already answered (once, plus once for Digest `stale=true`).
    private func challengeAnswer(_ head: TransportResponseHead, request: URLRequest, followUp: FollowUpState) -> URLRequest? {
        let values = head.fields.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
        guard let url = request.url, let (challenge, _, credential) = challengeChoice(values, url: url, followUp: followUp) else { return nil }
        let stale = challenge.scheme == "digest" && challenge["stale"]?.lowercased() == "true"
        guard followUp.challengesAnswered == 0 || (followUp.challengesAnswered == 1 && stale && !followUp.staleAnswered) else { return nil }
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard let answer = HTTPAuthentication.answer(challenge, user: user, password: password,
                                                     method: request.httpMethod ?? "GET", uri: target) else { return nil }
        var next = request
        next.setValue(answer.authorization, forHTTPHeaderField: "Authorization")
        return next
    }

    /// The challenge a 401 from `url` is answered with, its protection space and the credential
    /// answering it (`nil` when none does): the strongest challenge the request's own credential
    /// may answer (its methods; its first origin unless its scope says any), else the strongest
    /// one the session's credential storage holds a credential for (by protection space), else
    /// the strongest supported one without a credential (for monitors). `nil`: none supported.
    func challengeChoice(_ values: [String], url: URL, followUp: FollowUpState)
        -> (challenge: AuthenticationChallenge, space: URLProtectionSpace, credential: URLCredential?)? {
        guard !values.isEmpty, let parsed = AuthenticationChallenge.parse(fields: values) else { return nil }
        let challenges = HTTPAuthentication.ranked(parsed)
        guard let strongest = challenges.first else { return nil }
        let scheme = url.scheme?.lowercased() ?? "http"
        func space(_ challenge: AuthenticationChallenge) -> URLProtectionSpace {
            URLProtectionSpace(host: url.host(percentEncoded: false) ?? "", port: url.port ?? (scheme == "https" ? 443 : 80),
                               protocol: scheme, realm: challenge["realm"], authenticationMethod: HTTPAuthentication.method(of: challenge))
        }
        if let own = followUp.credential,
           followUp.credentialScope.anyOrigin || RedirectRules.sameOrigin(followUp.firstURL ?? url, url),
           let challenge = challenges.first(where: { followUp.credentialScope.answers(HTTPAuthentication.method(of: $0)) }) {
            return (challenge, space(challenge), own)
        }
        if let storage = session.configuration.urlCredentialStorage {
            for challenge in challenges {
                let protectionSpace = space(challenge)
                if let stored = storage.credential(answering: protectionSpace) { return (challenge, protectionSpace, stored) }
            }
        }
        return (strongest, space(strongest), nil)
    }

    /// Records the judged head's follow-up under the lock, with the machine's transition.
    func recordJudgement(_ judgement: (kind: RequestStateMachine<Exchange, ResponseHandler>.HeadKind,
                                       pending: FollowUpState.Pending?, error: AFError?, countsRedirect: Bool),
                         into state: inout Mutable) {
        state.followUp.pending = judgement.pending
        if let error = judgement.error { state.error = state.error ?? error }
        guard judgement.kind == .decided else { return }
        if judgement.countsRedirect {
            state.followUp.redirectCount += 1
        } else {
            if state.followUp.challengesAnswered == 1 { state.followUp.staleAnswered = true }
            state.followUp.challengesAnswered += 1
        }
    }

    // MARK: Performing a follow-up

    /// Builds the pending follow-up's exchange on the request's queue (an upload's body is
    /// rebuilt from its source there, and the last body is forgotten).
    func startFollowUp() {
        underlyingQueue.async { [self] in
            reportFollowUp()
            prepareForFollowUp()
            let (pending, firstStart) = mutable.withLock { state in
                let pending = state.followUp.pending
                state.followUp.pending = nil
                (state.error, state.response) = (nil, nil)
                return (pending, state.firstStart ?? .now())
            }
            guard let pending else { preconditionFailure("startFollowUp without a pending request: the head's judgement records it") }
            var next = pending.request
            let uploadBody: RequestBody?
            do {
                uploadBody = pending.keepsBody ? try makeUploadBody(for: &next) : nil
            } catch {
                return failFollowUp((error as? AFError) ?? AFError.createUploadableFailed(error: error))
            }
            mutable.withLock { state in
                // The request's own credential stays with the first exchange's origin.
                if state.followUp.firstURL == nil { state.followUp.firstURL = state.request?.url }
                state.request = next
            }
            sendFollowUp(next, uploadBody: uploadBody, firstStart: firstStart)
        }
    }

    /// Asks the redirect handler (user code) on the request's queue; its first answer counts.
    func askRedirectHandler() {
        let (pending, response) = mutable.withLock { state in (state.followUp.pending, state.response) }
        guard let pending, let handler = pending.handler, let response, let task else {
            preconditionFailure("askRedirectHandler without a pending redirect: the head's judgement records it")
        }
        let answered = AnswerOnce()
        underlyingQueue.async { [self] in
            handler.task(task, willBeRedirectedTo: pending.request, for: response) { [self] next in
                guard answered.first() else { return }  // a second call is ignored
                let (action, cancelled) = mutable.withLock { state in
                    if let next {
                        state.followUp.pending = FollowUpState.Pending(request: next, keepsBody: pending.keepsBody)
                        state.followUp.redirectCount += 1
                    } else {
                        state.followUp.pending = nil
                    }
                    return (state.machine.redirectDecided(follow: next != nil), state.machine.isCancelled)
                }
                if next == nil { redirectDeclined() }
                // A cancelled request gets nothing more; the next exchange (if any) drops the held hop.
                if next == nil && !cancelled { deliverHeldRedirect() }
                perform(action, onWorker: true)
            }
        }
    }
}

extension Request {
    /// The handler declined the held redirect: its head and body reach the request now, as a
    /// response's would have (decoding, progress, `didReceive(head:)`, the body hooks). A body
    /// that passed the cap was cut off on the wire: the request fails rather than deliver part.
    fileprivate func deliverHeldRedirect() {
        guard let (hop, complete) = route.takeHeld() else { return }
        guard complete else {
            let failure = AFError.sessionTaskFailed(error: URLError(.dataLengthExceedsMaximum, userInfo: request?.url.map {
                [NSURLErrorFailingURLErrorKey: $0]
            } ?? [:]))
            mutable.withLock { $0.error = $0.error ?? failure }
            return
        }
        prepareContentDecoding(for: hop.head)
        deliverHeadThroughCache(hop.head)
        expectBody(length: hop.head.contentLength)
        if let response { taskReceived(response, expectedLength: hop.head.contentLength) }
        for chunk in hop.body {
            chunk.withUnsafeBytes { bytes in
                taskReceived(bytes)
                receiveBody(bytes)
            }
            bodyReceived(chunk.count)
        }
        finishContentDecoding(complete: true)
        transferEnded()
    }
}

/// Lets only the first of a user handler's completion calls through.
private final class AnswerOnce: Sendable {
    private let answered = Atomic<Bool>(false)
    /// True for the first call only.
    func first() -> Bool { !answered.exchange(true, ordering: .relaxed) }
}
