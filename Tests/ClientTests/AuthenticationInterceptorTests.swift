// AuthenticationInterceptor: the refresh machine as a table (no sockets), then the interceptor
// against ScriptedServer: 20 concurrent requests with an expired token share one refresh, a 401
// refreshes and retries with the new token, and a missing credential or a refresh loop fails the
// request before anything is sent.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import LariatTestSupport
@testable import Client

/// A bearer token for the tests.
struct TestToken: AuthenticationCredential, Sendable, Equatable {
    var value: String
    var expired = false
    var requiresRefresh: Bool { expired }
}

/// Bearer tokens; a refresh answers after `delay` with `next` (or `failure`), counting refreshes.
final class TestAuthenticator: Authenticator {
    let refreshes = CallCounter()
    let next: TestToken
    let failure: InterceptorTestError?
    let delay: Double

    init(next: TestToken = TestToken(value: "fresh"), failure: InterceptorTestError? = nil, delay: Double = 0.1) {
        self.next = next
        self.failure = failure
        self.delay = delay
    }

    func apply(_ credential: TestToken, to urlRequest: inout URLRequest) {
        urlRequest.headers.update(.authorization(bearerToken: credential.value))
    }

    func refresh(_ credential: TestToken, for session: Session, completion: @escaping @Sendable (Result<TestToken, any Error>) -> Void) {
        refreshes.increment()
        let result: Result<TestToken, any Error> = failure.map { .failure($0) } ?? .success(next)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { completion(result) }
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: any Error) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: TestToken) -> Bool {
        urlRequest.headers.value(for: "Authorization") == "Bearer \(credential.value)"
    }
}

@Suite("CredentialRefreshMachine")
struct CredentialRefreshMachineTests {
    typealias Machine = CredentialRefreshMachine<String, String>

    /// Whether an action is `resume` of exactly these waiters with this credential (or failure).
    private func isResume(_ action: Machine.Action, _ waiters: [String], _ expected: Result<String, AuthenticationError>) -> Bool {
        guard case .resume(let got, let result) = action, got == waiters else { return false }
        switch (result, expected) {
        case (.success(let a), .success(let b)): return a == b
        case (.failure(let a), .failure(let b)): return (a as? AuthenticationError) == b
        default: return false
        }
    }

    @Test("a valid credential is applied at once")
    func valid() {
        var machine = Machine(credential: "t", window: nil)
        guard case .proceed("t", "r1") = machine.adapt("r1", now: 0, requiresRefresh: { _ in false }) else {
            Issue.record("expected proceed"); return
        }
    }

    @Test("no credential fails the adaptation with missingCredential")
    func missing() {
        var machine = Machine(credential: nil, window: nil)
        #expect(isResume(machine.adapt("r1", now: 0, requiresRefresh: { _ in false }), ["r1"], .failure(.missingCredential)))
    }

    @Test("one refresh for every request that needs it meanwhile; all resume with the new credential")
    func coalesced() {
        var machine = Machine(credential: "old", window: nil)
        guard case .refresh("old") = machine.adapt("a1", now: 0, requiresRefresh: { _ in true }) else {
            Issue.record("expected refresh"); return
        }
        guard case .wait = machine.adapt("a2", now: 0, requiresRefresh: { _ in true }),
              case .wait = machine.refreshRejected("r1", credential: "old", now: 0) else {
            Issue.record("expected wait"); return
        }
        #expect(isResume(machine.refreshFinished(.success("new")), ["a1", "a2", "r1"], .success("new")))
        #expect(machine.credential == "new")
        #expect(machine.refreshCount == 1)
        guard case .proceed("new", "a3") = machine.adapt("a3", now: 0, requiresRefresh: { _ in false }) else {
            Issue.record("expected proceed after the refresh"); return
        }
    }

    @Test("a failed refresh fails every waiter and keeps the old credential")
    func refreshFails() {
        var machine = Machine(credential: "old", window: nil)
        _ = machine.refreshRejected("r1", credential: "old", now: 0)
        _ = machine.refreshRejected("r2", credential: "old", now: 0)
        let action = machine.refreshFinished(.failure(AuthenticationError.missingCredential))
        #expect(isResume(action, ["r1", "r2"], .failure(.missingCredential)))
        #expect(machine.credential == "old")
    }

    @Test("the refresh window: one refresh too many within it is excessiveRefresh; later ones are allowed")
    func window() {
        var machine = Machine(credential: "c", window: (interval: 30, maximumAttempts: 2))
        for time in [0.0, 10] {
            guard case .refresh = machine.refreshRejected("r", credential: "c", now: time) else { Issue.record("refresh at \(time)"); return }
            _ = machine.refreshFinished(.success("c"))
        }
        #expect(isResume(machine.refreshRejected("late", credential: "c", now: 29), ["late"], .failure(.excessiveRefresh)))
        guard case .refresh = machine.refreshRejected("r", credential: "c", now: 31) else {
            Issue.record("the first refresh left the window at 30 s"); return
        }
        #expect(machine.refreshCount == 3)
    }

    @Test("a refresh result nobody started traps")
    func unexpectedResultTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = CredentialRefreshMachine<String, String>(credential: "c", window: nil)
            _ = machine.refreshFinished(.success("x"))
        }
    }
}

extension ClientIntegrationTests {
    @Suite("AuthenticationInterceptor")
    struct AuthenticationInterceptorTests {
        private func url(_ server: ScriptedServer) -> String { "http://127.0.0.1:\(server.port)/" }

        @Test("20 concurrent requests with an expired token: one refresh, all sent with the new token")
        func refreshCoalescing() async throws {
            let server = try ScriptedServer(
                script: [.expectRequest, cannedResponse(extra: "Connection: close\r\n"), .close], forEveryConnection: true
            )
            defer { server.stop() }
            let authenticator = TestAuthenticator()
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "stale", expired: true))
            let session = Session(interceptor: interceptor)
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { await session.request(url(server)).serializingData().response.value == Data("ok".utf8) }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results == Array(repeating: true, count: 20))
            #expect(authenticator.refreshes.value == 1)
            let heads = server.requests.map { String(decoding: $0, as: UTF8.self) }
            #expect(heads.count == 20)
            #expect(heads.allSatisfy { $0.contains("Authorization: Bearer fresh\r\n") })
            #expect(interceptor.credential == TestToken(value: "fresh"))
        }

        @Test("a 401 refreshes the token and retries with it")
        func unauthorizedRefreshes() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("no", status: "401 Unauthorized", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let authenticator = TestAuthenticator(delay: 0)
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "revoked"))
            let request = retained(Session()).request(url(server), interceptor: interceptor)
            let response = await request.validate().serializingData().response
            #expect(response.value == Data("ok".utf8), "\(response.result)")
            #expect(authenticator.refreshes.value == 1)
            #expect(request.retryCount == 1)
            let heads = server.requests.map { String(decoding: $0, as: UTF8.self) }
            #expect(heads.count == 2)
            #expect(heads.first?.contains("Authorization: Bearer revoked\r\n") == true)
            #expect(heads.last?.contains("Authorization: Bearer fresh\r\n") == true)
        }

        @Test("no credential: requestAdaptationFailed(missingCredential), nothing sent")
        func missingCredential() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let interceptor = AuthenticationInterceptor<TestAuthenticator>(authenticator: TestAuthenticator())
            let response = await retained(Session()).request(url(server), interceptor: interceptor).serializingData().response
            guard case .failure(.requestAdaptationFailed(let error)) = response.result else {
                Issue.record("expected requestAdaptationFailed, got \(response.result)"); return
            }
            #expect(error as? AuthenticationError == .missingCredential)
            #expect(server.connectionCount == 0)
        }

        @Test("a refresh that keeps returning expired tokens stops at the window: excessiveRefresh")
        func excessiveRefresh() async throws {
            let authenticator = TestAuthenticator(next: TestToken(value: "still-expired", expired: true), delay: 0)
            let interceptor = AuthenticationInterceptor(
                authenticator: authenticator, credential: TestToken(value: "expired", expired: true),
                refreshWindow: .init(interval: 30, maximumAttempts: 2)
            )
            let response = await retained(Session()).request("http://127.0.0.1:\(refusedPort())/", interceptor: interceptor).serializingData().response
            guard case .failure(.requestAdaptationFailed(let error)) = response.result else {
                Issue.record("expected requestAdaptationFailed, got \(response.result)"); return
            }
            #expect(error as? AuthenticationError == .excessiveRefresh)
            #expect(authenticator.refreshes.value == 2)
        }

        @Test("a failed refresh fails the waiting request with the refresh's error")
        func refreshFailure() async throws {
            let authenticator = TestAuthenticator(failure: InterceptorTestError(label: "refresh down"), delay: 0)
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "old", expired: true))
            let response = await retained(Session()).request("http://127.0.0.1:\(refusedPort())/", interceptor: interceptor).serializingData().response
            guard case .failure(.requestAdaptationFailed(let error)) = response.result else {
                Issue.record("expected requestAdaptationFailed, got \(response.result)"); return
            }
            #expect(error as? InterceptorTestError == InterceptorTestError(label: "refresh down"))
        }
    }
}
