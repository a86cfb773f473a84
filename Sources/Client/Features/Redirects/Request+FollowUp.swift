#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Transport
import Wire

// Redirects and authentication challenges: a response head that calls for another exchange of
// the same request. `judge(_:)` decides from the head (pure rules in `RedirectRules` and
// `HTTPAuthentication`) and names it in a `FollowUpDecision`, `RequestStateMachine` sequences the
// hop (the next request travels in its states and actions), and these perform it: the
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
    /// Whether a forwarding proxy's 407 was answered (once, as curl).
    var proxyChallengeAnswered = false

    /// Forgets the counts: a retry starts a new chain.
    mutating func startOver() {
        (redirectCount, challengesAnswered, staleAnswered, firstURL, proxyChallengeAnswered) = (0, 0, false, nil, false)
    }
}

/// A decided (or to-be-decided) next exchange of a request: a redirect's or a challenge's
/// answer. Carried by `RequestStateMachine`'s follow-up states and actions.
struct FollowUp: Sendable {
    /// The request URLSession's rules (or the challenge answer) give.
    var request: URLRequest
    /// Whether the body is sent again, so an upload's body is rebuilt from its source.
    var keepsBody: Bool
    /// The handler still to ask, for an undecided redirect.
    var handler: (any RedirectHandler)?
}

/// What a response head means for a request, as `Request.judge(_:)` decides from the head alone.
struct FollowUpDecision {
    /// The head's kind for the state machine, carrying the next exchange for a follow-up.
    var kind: Request.Machine.HeadKind
    /// A failure to record (a bad redirect, too many redirects): the head is recorded, its body
    /// dropped, and the request ends with the error.
    var error: AFError?
    /// A decided redirect counts toward the limit; a decided challenge answer counts as answered.
    var countsRedirect: Bool
    /// A decided answer to a proxy's 407 (counted apart from the origin's 401s).
    var answersProxy = false

    /// The head is the response.
    static let deliver = FollowUpDecision(kind: .final, error: nil, countsRedirect: false)

    /// The head is the response, and the request fails with `error`.
    static func fail(_ error: AFError) -> FollowUpDecision { FollowUpDecision(kind: .final, error: error, countsRedirect: false) }

    /// Where the exchange's body goes.
    var route: FollowUpRoute.Mode {
        switch kind {
        case .final: error == nil ? .deliver : .discard
        case .decided: .discard
        case .undecided: .hold
        }
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

    /// What a response head means: a response to deliver, or a follow-up (with its next
    /// request), or a failure to record. Runs on the connection's loop; only user-free work.
    func judge(_ head: TransportResponseHead) -> FollowUpDecision {
        let status = head.status
        guard status == 401 || status == 407 || RedirectRules.redirectStatuses.contains(status) else { return .deliver }
        let (request, followUp) = mutable.withLock { ($0.inFlight, $0.followUp) }
        guard let request else { return .deliver }
        if status == 407 {
            guard let next = proxyChallengeAnswer(head, request: request, followUp: followUp) else { return .deliver }
            return FollowUpDecision(kind: .decided(FollowUp(request: next, keepsBody: true)), error: nil, countsRedirect: false, answersProxy: true)
        }
        if status == 401 {
            guard let next = challengeAnswer(head, request: request, followUp: followUp) else { return .deliver }
            return FollowUpDecision(kind: .decided(FollowUp(request: next, keepsBody: true)), error: nil, countsRedirect: false)
        }
        let location = head.fields.firstValue(named: "location")
        switch RedirectRules.next(status: status, location: location, current: request) {
        case .notRedirect:
            return .deliver
        case .failure(let code):
            return .fail(.sessionTaskFailed(error: URLError(code)))
        case .follow(let next, let keepsBody):
            let limit = context.configuration.httpMaximumRedirects
            guard followUp.redirectCount < limit else { return .fail(.sessionTaskFailed(error: URLError(.httpTooManyRedirects))) }
            let handler = followUp.redirectHandler ?? context.redirectHandler
            let fixed: Bool? = handler.map { ($0 as? Redirector)?.fixedAnswer } ?? true
            switch fixed {
            case true?: return FollowUpDecision(kind: .decided(FollowUp(request: next, keepsBody: keepsBody)), error: nil, countsRedirect: true)
            case false?: return .deliver
            case nil:
                return FollowUpDecision(kind: .undecided(FollowUp(request: next, keepsBody: keepsBody, handler: handler)),
                                        error: nil, countsRedirect: false)
            }
        }
    }

    /// The request answering a 401's challenge, `nil` to deliver the 401: no supported
    /// challenge, no credential for it, or already answered (once, plus once for Digest `stale=true`).
    private func challengeAnswer(_ head: TransportResponseHead, request: URLRequest, followUp: FollowUpState) -> URLRequest? {
        let values = head.fields.filter { $0.hasName("www-authenticate") }.map(\.value)
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

    /// The request answering a forwarding proxy's 407 (curl's `--proxy-digest`,
    /// `--proxy-anyauth`), `nil` to deliver it: the proxy this plain request goes to in
    /// absolute-form has a credential whose ``ProxyServer/authenticationMethods`` are not Basic
    /// alone (Basic went with the request already), the proxy offers a scheme among them, and no
    /// 407 was answered yet. The answer goes in `Proxy-Authorization`, with the origin-form
    /// target as Digest's uri, as curl 7.88 computes it; a tunnel's 407 is answered in the
    /// transport's CONNECT exchange instead.
    private func proxyChallengeAnswer(_ head: TransportResponseHead, request: URLRequest, followUp: FollowUpState) -> URLRequest? {
        guard !followUp.proxyChallengeAnswered, let url = request.url, let scheme = url.scheme?.lowercased(),
              let configuration = context.configuration.proxy,
              let server = configuration.proxy(forScheme: scheme, host: url.host(percentEncoded: false) ?? ""),
              !server.tunnels(isTLS: scheme == "https", tunnelsHTTP: configuration.tunnelsHTTP),
              let user = server.username, server.authenticationMethods != .basic else { return nil }
        let values = head.fields.filter { $0.hasName("proxy-authenticate") }.map(\.value)
        guard let parsed = AuthenticationChallenge.parse(fields: values) else { return nil }
        let methods = server.authenticationMethods
        guard let challenge = HTTPAuthentication.ranked(parsed).first(where: { challenge in
            methods.contains(challenge.scheme == "digest" ? .digest : .basic)
        }) else { return nil }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard let answer = HTTPAuthentication.answer(challenge, user: user, password: server.password ?? "",
                                                     method: request.httpMethod ?? "GET", uri: target) else { return nil }
        var next = request
        next.setValue(answer.authorization, forHTTPHeaderField: "Proxy-Authorization")
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
        if let storage = context.configuration.urlCredentialStorage {
            for challenge in challenges {
                let protectionSpace = space(challenge)
                if let stored = storage.credential(answering: protectionSpace) { return (challenge, protectionSpace, stored) }
            }
        }
        return (strongest, space(strongest), nil)
    }

    /// Records the judged head's counts under the lock, with the machine's transition.
    func recordDecision(_ decision: FollowUpDecision, into state: inout Mutable) {
        if let error = decision.error { state.error = state.error ?? error }
        guard case .decided = decision.kind else { return }
        if decision.answersProxy {
            state.followUp.proxyChallengeAnswered = true
        } else if decision.countsRedirect {
            state.followUp.redirectCount += 1
        } else {
            if state.followUp.challengesAnswered == 1 { state.followUp.staleAnswered = true }
            state.followUp.challengesAnswered += 1
        }
    }

    // MARK: Performing a follow-up

    /// Builds the follow-up's exchange on the request's queue (an upload's body is rebuilt from
    /// its source there, and the last body is forgotten).
    func startFollowUp(_ pending: FollowUp) {
        underlyingQueue.async { [self] in
            reportFollowUp(pending)
            prepareForFollowUp()
            let firstStart = mutable.withLock { state in
                (state.error, state.response) = (nil, nil)
                return state.firstStart ?? .now()
            }
            var next = pending.request
            let uploadBody: RequestBody?
            do {
                uploadBody = pending.keepsBody ? try makeUploadBody(for: &next) : nil
            } catch {
                return failFollowUp((error as? AFError) ?? AFError.createUploadableFailed(error: error))
            }
            mutable.withLock { state in
                // The request's own credential stays with the first exchange's origin.
                if state.followUp.firstURL == nil { state.followUp.firstURL = state.inFlight?.url }
                state.hop = next
            }
            sendFollowUp(next, uploadBody: uploadBody, firstStart: firstStart)
        }
    }

    /// Asks the redirect handler (user code) about `pending` on the request's queue; its first
    /// answer counts. Without a handler, a response or a task (never: the machine asks only for
    /// a held redirect, whose head was recorded), the redirect response is delivered.
    func askRedirectHandler(_ pending: FollowUp) {
        let response = mutable.withLock { $0.response }
        let answered = AnswerOnce()
        underlyingQueue.async { [self] in
            guard let handler = pending.handler, let response, let task else { return redirectAnswered(nil, pending, answered) }
            handler.task(task, willBeRedirectedTo: pending.request, for: response) { [self] next in
                redirectAnswered(next, pending, answered)
            }
        }
    }

    /// The redirect handler's answer: follow `next`, or deliver the held redirect (`nil`).
    private func redirectAnswered(_ next: URLRequest?, _ pending: FollowUp, _ answered: AnswerOnce) {
        guard answered.first() else { return }  // a second call is ignored
        let followUp = next.map { FollowUp(request: $0, keepsBody: pending.keepsBody) }
        let (action, cancelled) = mutable.withLock { state in
            if followUp != nil { state.followUp.redirectCount += 1 }
            return (state.machine.redirectDecided(follow: followUp), state.machine.isCancelled)
        }
        if next == nil { redirectDeclined() }
        // A cancelled request gets nothing more; the next exchange (if any) drops the held hop.
        if next == nil && !cancelled { deliverHeld() }
        perform(action, onWorker: true)
    }
}

/// Lets only the first of a user handler's completion calls through.
private final class AnswerOnce: Sendable {
    private let answered = Atomic<Bool>(false)
    /// True for the first call only.
    func first() -> Bool { !answered.exchange(true, ordering: .relaxed) }
}
