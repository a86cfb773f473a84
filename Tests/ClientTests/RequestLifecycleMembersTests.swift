// Alamofire's request lifecycle members: `cURLDescription`, the task stand-ins, the URLRequest
// and task creation handlers, `withAllRequests`, `cancelAllRequests`, `shouldAutomaticallyResume`
// and the public state's transition rules.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

@Suite("Request state transitions")
struct RequestStateTransitionTests {
    /// Alamofire's `Request.State` rules, every pair: (from, to, allowed).
    static let table: [(Request.State, Request.State, Bool)] = {
        let all: [Request.State] = [.initialized, .resumed, .suspended, .cancelled, .finished]
        let allowed: Set<String> = [
            "initialized→initialized", "initialized→resumed", "initialized→suspended", "initialized→cancelled", "initialized→finished",
            "resumed→suspended", "resumed→cancelled", "resumed→finished",
            "suspended→resumed", "suspended→cancelled", "suspended→finished",
        ]
        return all.flatMap { from in all.map { to in (from, to, allowed.contains("\(from)→\(to)")) } }
    }()

    @Test("canTransition(to:) follows Alamofire's table", arguments: 0..<25)
    func transition(_ index: Int) {
        let (from, to, allowed) = Self.table[index]
        #expect(from.canTransition(to: to) == allowed, "\(from) → \(to)")
    }
}

extension ClientIntegrationTests {
    @Suite("Request lifecycle members")
    struct RequestLifecycleMembersTests {
        private func okServer(_ count: Int = 1) throws -> ScriptedServer {
            var steps: [ScriptedServer.Step] = []
            for _ in 0..<count { steps += [.expectRequest, cannedResponse("hello")] }
            return try ScriptedServer(script: steps)
        }

        @Test("cURLDescription: method, configured then request headers, escaped quotes, body, URL")
        func cURL() async throws {
            let server = try okServer()
            defer { server.stop() }
            let configuration = URLSessionConfiguration.default
            configuration.httpAdditionalHeaders = ["User-Agent": "lariat-test", "Cookie": "hidden=1"]
            configuration.httpShouldSetCookies = false  // no `-b` line from cookies other tests stored for 127.0.0.1
            let session = Session(configuration: configuration)
            let url = "http://127.0.0.1:\(server.port)/post"
            let request = session.request(url, method: .post, parameters: ["a": "b"], encoder: JSONParameterEncoder.default,
                                          headers: ["X-Quote": "say \"hi\""], shouldAutomaticallyResume: false)
            #expect(request.cURLDescription() == "$ curl command could not be created")
            let described = Mutex<[String]>([])
            request.cURLDescription(on: .global()) { text in described.withLock { $0.append(text) } }
            request.resume()
            _ = await request.serializingData().response
            let expected = """
            $ curl -v \\
            \t-X POST \\
            \t-H "User-Agent: lariat-test" \\
            \t-H "X-Quote: say \\"hi\\"" \\
            \t-H "Content-Type: application/json" \\
            \t-d "{\\"a\\":\\"b\\"}" \\
            \t"\(url)"
            """
            #expect(request.cURLDescription() == expected)
            try await Task.sleep(for: .milliseconds(50))
            #expect(described.withLock { $0 } == [expected])
        }

        @Test("cURLDescription: -u for the request's credential, -b for the stored cookies, after -X")
        func cURLCredentialAndCookies() async throws {
            let server = try okServer()
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            let url = URL(string: "http://127.0.0.1:\(server.port)/private")!
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "sid=abc"], for: url)
            configuration.httpCookieStorage?.setCookies(cookies, for: url, mainDocumentURL: nil)
            let request = retained(Session(configuration: configuration)).request(url).authenticate(username: "ann", password: "pw")
            _ = await request.serializingData().response
            #expect(request.cURLDescription() == """
            $ curl -v \\
            \t-X GET \\
            \t-u ann:pw \\
            \t-b "sid=abc" \\
            \t"\(url.absoluteString)"
            """)
        }

        @Test("urlRequests(), urlSessionTasks() and cURLDescriptions() yield each attempt's value, then end")
        func lifecycleStreams() async throws {
            let server = try okServer()
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/s")
            async let urls = request.urlRequests().reduce(into: [URL?]()) { $0.append($1.url) }
            async let tasks = request.urlSessionTasks().reduce(0) { count, _ in count + 1 }
            async let curls = request.cURLDescriptions().reduce(0) { count, _ in count + 1 }
            let (u, t, c) = await (urls, tasks, curls)
            #expect(u == [URL(string: "http://127.0.0.1:\(server.port)/s")] && t == 1 && c == 1)
        }

        @Test("the task stand-in describes the attempt; creation handlers see the URLRequest and the task")
        func taskStandIn() async throws {
            let server = try okServer(2)
            defer { server.stop() }
            let session = Session()
            let urls = Mutex<[URL?]>([]), tasks = Mutex<[Int]>([])
            let request = session.request("http://127.0.0.1:\(server.port)/a")
                .onURLRequestCreation(on: .global()) { request in urls.withLock { $0.append(request.url) } }
                .onURLSessionTaskCreation(on: .global()) { task in tasks.withLock { $0.append(task.taskIdentifier) } }
            let response = await request.serializingData().response
            #expect(response.value == Data("hello".utf8))
            let task = try #require(request.task)
            #expect(task is URLSessionDataTask)
            #expect(task.state == .completed)
            #expect(task.response?.statusCode == 200)
            #expect(task.countOfBytesReceived == 5)
            #expect(task.countOfBytesExpectedToReceive == 5)
            #expect(task.error == nil)
            #expect(task.originalRequest?.url == request.request?.url)
            #expect(request.tasks.count == 1 && request.firstTask === task && request.lastTask === task)
            #expect(request.requests.count == 1 && request.lastRequest == request.request)
            #expect(request.performedRequests.count == 1)
            #expect(request.description == "GET http://127.0.0.1:\(server.port)/a (200)")
            // A second request of the session gets the next identifier.
            let second = session.request("http://127.0.0.1:\(server.port)/b")
            _ = await second.serializingData().response
            #expect(second.task?.taskIdentifier == task.taskIdentifier + 1)
            try await Task.sleep(for: .milliseconds(50))
            #expect(urls.withLock { $0 } == [URL(string: "http://127.0.0.1:\(server.port)/a")])
            #expect(tasks.withLock { $0 } == [task.taskIdentifier])
        }

        @Test("withAllRequests sees resumed, unfinished requests only")
        func withAllRequests() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.milliseconds(300)), cannedResponse("late")])
            defer { server.stop() }
            let session = Session(startRequestsImmediately: false)
            let idle = session.request("http://127.0.0.1:\(server.port)/idle")
            let running = session.request("http://127.0.0.1:\(server.port)/running").resume()
            let seen = await withCheckedContinuation { continuation in
                session.withAllRequests { continuation.resume(returning: $0) }
            }
            #expect(seen == [running])
            #expect(!seen.contains(idle))
            _ = await running.serializingData().response
            let after = await withCheckedContinuation { continuation in
                session.withAllRequests { continuation.resume(returning: $0) }
            }
            #expect(after.isEmpty)
        }

        @Test("cancelAllRequests completes once every live request finished, cancelled")
        func cancelAll() async throws {
            let slow: [ScriptedServer.Step] = [.expectRequest, .sleep(.seconds(3)), cannedResponse("late")]
            let server = try ScriptedServer(script: slow, forEveryConnection: true)
            defer { server.stop() }
            let session = Session()
            let finished = Atomic<Int>(0)
            let requests = (0..<3).map { index in
                session.request("http://127.0.0.1:\(server.port)/\(index)").response(queue: .global()) { _ in
                    finished.add(1, ordering: .relaxed)
                }
            }
            #expect(server.waitForConnections(3))
            let start = ContinuousClock.now
            await withCheckedContinuation { continuation in
                session.cancelAllRequests(completingOnQueue: .global()) { continuation.resume() }
            }
            #expect(ContinuousClock.now - start < .seconds(2))
            #expect(requests.allSatisfy { $0.state == .cancelled })
            // Handlers were handed out before the completion (each then hops to its queue).
            try await Task.sleep(for: .milliseconds(50))
            #expect(finished.load(ordering: .relaxed) == 3)
        }

        @Test("shouldAutomaticallyResume: false holds the request until resume(); true starts it in a session that does not")
        func shouldAutomaticallyResume() async throws {
            let server = try okServer(1)
            defer { server.stop() }
            let held = retained(Session()).request("http://127.0.0.1:\(server.port)/", shouldAutomaticallyResume: false)
            #expect(held.shouldAutomaticallyResume == false)
            held.response(queue: .global()) { _ in }
            #expect(held.state == .initialized)
            held.cancel()

            let lazy = Session(startRequestsImmediately: false)
            let started = lazy.request("http://127.0.0.1:\(server.port)/", shouldAutomaticallyResume: true)
            let response = await started.serializingData().response
            #expect(response.value == Data("hello".utf8))
            #expect(lazy.request("http://127.0.0.1:\(server.port)/").shouldAutomaticallyResume == nil)
        }

        @Test("a task created while suspended is held: suspended, then running once resumed")
        func heldTask() async throws {
            let server = try okServer()
            defer { server.stop() }
            let session = Session(startRequestsImmediately: false)
            let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let request = session.request("http://127.0.0.1:\(server.port)/", requestModifier: { _ in
                entered.signal()
                _ = release.wait(timeout: .now() + 2)
            })
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { request.resume(); done.signal() }
            _ = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: entered.wait(timeout: .now() + 2)) }
            }
            request.suspend()
            release.signal()
            _ = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: done.wait(timeout: .now() + 2)) }
            }
            #expect(request.task?.state == .suspended)
            request.task?.resume()  // the task stand-in resumes its request
            let response = await request.serializingData().response
            #expect(response.value == Data("hello".utf8))
            #expect(request.task?.state == .completed)
        }
    }
}
