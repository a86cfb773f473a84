// Interceptors: adapters change what the server sees (request's first, then the session's),
// adaptation failures send nothing, retriers' errors and cancels during a retry's delay end the
// request as Alamofire does, and `Interceptor`'s composition order. Socket tests run against
// ScriptedServer inside the serialized integration parent; composition needs no sockets.
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

/// An error thrown by test adapters and retriers.
struct InterceptorTestError: Error, Equatable {
    var label: String
}

/// A counter shared with `@Sendable` closures.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    /// The count.
    var value: Int { count.load(ordering: .relaxed) }
}

/// An adapter appending `value` to the `X-Order` field, so the server sees the order adapters ran in.
func orderAdapter(_ value: String) -> Adapter {
    Adapter { request, _, completion in
        var request = request
        let old = request.headers.value(for: "X-Order")
        request.headers.update(name: "X-Order", value: old.map { "\($0),\(value)" } ?? value)
        completion(.success(request))
    }
}

extension ClientIntegrationTests {
    @Suite("Interceptors")
    struct InterceptorTests {
        private func url(_ server: ScriptedServer, _ path: String = "/") -> String {
            "http://127.0.0.1:\(server.port)\(path)"
        }

        private func head(_ server: ScriptedServer, _ index: Int = 0) -> String {
            let requests = server.requests
            return index < requests.count ? String(decoding: requests[index], as: UTF8.self) : ""
        }

        @Test("the session's adapter runs, then the request's (Alamofire 5.12); the server sees both")
        func adapterOrder() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let session = Session(interceptor: orderAdapter("session"))
            let response = await session.request(url(server), interceptor: orderAdapter("request")).serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(head(server).contains("X-Order: session,request\r\n"), "\(head(server))")
            #expect(response.request?.headers.value(for: "X-Order") == "session,request")
        }

        @Test("httpbin echoes the field an adapter added", .enabled(if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"] != nil))
        func adapterAgainstHTTPBin() async throws {
            struct Echo: Decodable { var headers: [String: String] }
            let base = try #require(ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"])
            let session = Session(interceptor: orderAdapter("session"))
            let echo = try await session.request(base + "/headers", interceptor: orderAdapter("request"))
                .serializingDecodable(Echo.self).value
            #expect(echo.headers["X-Order"] == "session,request")
        }

        @Test("an adapter that fails: requestAdaptationFailed with its error, nothing sent")
        func adapterThrows() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let failing = Adapter { _, _, completion in completion(.failure(InterceptorTestError(label: "no token"))) }
            let request = retained(Session()).request(url(server), interceptor: failing)
            let response = await request.serializingData().response
            guard case .failure(let error) = response.result, case .requestAdaptationFailed(let underlying) = error else {
                Issue.record("expected requestAdaptationFailed, got \(response.result)")
                return
            }
            #expect(underlying as? InterceptorTestError == InterceptorTestError(label: "no token"))
            #expect(error.isRequestAdaptationError)
            #expect(request.retryCount == 0)
            // The request as built before adapting stays visible (RetryPolicy reads its method).
            #expect(response.request?.method == .get)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
        }

        @Test("adapters run again on every retry, on the request's queue")
        func adaptersRunPerAttempt() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("no", status: "500 Internal Server Error", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let adaptations = CallCounter()
            let onQueue = CallCounter()
            let key = DispatchSpecificKey<Bool>()
            let adapter = Adapter { request, _, completion in
                // Each request's queue targets the session's root queue, which carries the key.
                if DispatchQueue.getSpecific(key: key) == true { onQueue.increment() }
                var request = request
                request.headers.update(name: "X-Attempt", value: "\(adaptations.increment())")
                completion(.success(request))
            }
            let rootQueue = DispatchQueue(label: "test.root")
            rootQueue.setSpecific(key: key, value: true)
            let session = Session(rootQueue: rootQueue)
            let request = session.request(url(server), interceptor: Interceptor(adapter: adapter, retrier: RetryPolicy(exponentialBackoffScale: 0.001)))
            let response = await request.validate().serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(request.retryCount == 1)
            #expect(adaptations.value == 2)
            #expect(onQueue.value == 2)
            #expect(head(server, 0).contains("X-Attempt: 1\r\n"))
            #expect(head(server, 1).contains("X-Attempt: 2\r\n"))
        }

        // The retrier is asked twice, as Alamofire asks it: for the request's failure, then for
        // the serializer's (which rethrows the request's error). The second answer wraps the first.
        @Test("a retrier's error: requestRetryFailed with the retry error and the original error")
        func retrierError() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("no", status: "503 Service Unavailable")])
            defer { server.stop() }
            let retrier = Retrier { _, _, _, completion in completion(.doNotRetryWithError(InterceptorTestError(label: "give up"))) }
            let response = await retained(Session()).request(url(server), interceptor: retrier).validate().serializingData().response
            guard case .failure(let error) = response.result, case .requestRetryFailed(let retryError, let original) = error else {
                Issue.record("expected requestRetryFailed, got \(response.result)")
                return
            }
            #expect(retryError as? InterceptorTestError == InterceptorTestError(label: "give up"))
            guard case .requestRetryFailed(let firstRetryError, let firstOriginal)? = original as? AFError else {
                Issue.record("the serializer's failure is the request's requestRetryFailed: \(original)")
                return
            }
            #expect(firstRetryError as? InterceptorTestError == InterceptorTestError(label: "give up"))
            #expect((firstOriginal as? AFError)?.responseCode == 503)
            #expect(error.isRequestRetryError)
            #expect(server.requests.count == 1)
        }

        @Test("a retrier that declines leaves the original error")
        func retrierDeclines() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("no", status: "503 Service Unavailable")])
            defer { server.stop() }
            let asked = CallCounter()
            let retrier = Retrier { _, _, _, completion in asked.increment(); completion(.doNotRetry) }
            let response = await retained(Session(interceptor: retrier)).request(url(server)).validate().serializingData().response
            #expect(response.error?.responseCode == 503)
            #expect(asked.value == 2, "once for the request's failure, once for the serializer's (Alamofire's)")
        }

        @Test("a successful response is not offered to the retrier")
        func successNotOffered() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let asked = CallCounter()
            let retrier = Retrier { _, _, _, completion in asked.increment(); completion(.retry) }
            let response = await retained(Session()).request(url(server), interceptor: retrier).validate().serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(asked.value == 0)
        }

        @Test("cancel during a retry's delay ends the request at once with explicitlyCancelled")
        func cancelDuringDelay() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("no", status: "500 Internal Server Error")])
            defer { server.stop() }
            let asked = CallCounter()
            let retrier = Retrier { _, _, _, completion in asked.increment(); completion(.retryWithDelay(30)) }
            let request = retained(Session()).request(url(server), interceptor: retrier).validate()
            let task = Task { await request.serializingData().response }
            while asked.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))  // into the delay
            #expect(request.state == .resumed)
            let start = ContinuousClock.now
            request.cancel()
            let response = await task.value
            #expect(milliseconds(since: start) < 1_000)
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            #expect(request.state == .cancelled)
            #expect(request.retryCount == 0)
            #expect(server.requests.count == 1)
        }

        @Test("an upload's body is sent again, whole, on a retry")
        func uploadRetried() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("no", status: "500 Internal Server Error", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let retrier = Retrier { request, _, _, completion in completion(request.retryCount == 0 ? .retry : .doNotRetry) }
            let body = Data("payload-0123456789".utf8)
            let request = retained(Session()).upload(body, to: url(server), interceptor: retrier)
            let response = await request.validate().serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(server.requests.count == 2)
            #expect(head(server, 0).hasSuffix("payload-0123456789"))
            #expect(head(server, 1).hasSuffix("payload-0123456789"))
        }

        @Test("a retried download keeps only the successful attempt's file")
        func downloadRetried() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("failed attempt", status: "503 Service Unavailable", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse("second")],
            ]))
            defer { server.stop() }
            let request = retained(Session()).download(url(server), interceptor: .retryPolicy(exponentialBackoffScale: 0.001))
            let response = await request.validate().serializingDownloadedFileURL().response
            let file = try #require(response.value)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Data(contentsOf: file) == Data("second".utf8))
            #expect(request.retryCount == 1)
        }
    }
}

@Suite("Interceptor composition")
struct InterceptorCompositionTests {
    let session = Session()

    private func adapt(_ adapter: any RequestAdapter) async -> Result<URLRequest, any Error> {
        let request = URLRequest(url: URL(string: "http://example.invalid/")!)
        let state = RequestAdapterState(requestID: UUID(), session: session)
        return await withCheckedContinuation { continuation in
            adapter.adapt(request, using: state) { continuation.resume(returning: $0) }
        }
    }

    private func retry(_ retrier: any RequestRetrier) async -> RetryResult {
        let request = session.request("http://example.invalid/")
        return await withCheckedContinuation { continuation in
            retrier.retry(request, for: session, dueTo: AFError.explicitlyCancelled) { continuation.resume(returning: $0) }
        }
    }

    @Test("adapters then interceptors, in order, each given the previous output")
    func adapterOrder() async throws {
        let interceptor = Interceptor(adapters: [orderAdapter("a1"), orderAdapter("a2")], interceptors: [orderAdapter("i1")])
        #expect(interceptor.adapters.count == 3 && interceptor.retriers.count == 1)
        let adapted = try await adapt(interceptor).get()
        #expect(adapted.headers.value(for: "X-Order") == "a1,a2,i1")
    }

    @Test("the first adapter failure stops the chain")
    func adapterFailureStops() async {
        let ran = CallCounter()
        let counting = Adapter { request, _, completion in ran.increment(); completion(.success(request)) }
        let failing = Adapter { _, _, completion in completion(.failure(InterceptorTestError(label: "stop"))) }
        let result = await adapt(Interceptor(adapters: [counting, failing, counting]))
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error as? InterceptorTestError == InterceptorTestError(label: "stop"))
        #expect(ran.value == 1)
    }

    /// Rows: the retriers' answers in order → the interceptor's answer and how many were asked.
    static let retryRows: [(answers: [RetryResult], expected: String, asked: Int)] = [
        ([], "doNotRetry", 0),
        ([.doNotRetry, .doNotRetry], "doNotRetry", 2),
        ([.doNotRetry, .retryWithDelay(3), .retry], "retryWithDelay(3.0)", 2),
        ([.retry, .retryWithDelay(3)], "retry", 1),
        ([.doNotRetry, .doNotRetryWithError(InterceptorTestError(label: "x")), .retry], "doNotRetryWithError", 2),
    ]

    @Test("retriers are asked in order until one says anything but doNotRetry", arguments: retryRows.indices)
    func retrierOrder(row: Int) async {
        let (answers, expected, asked) = Self.retryRows[row]
        let count = CallCounter()
        let retriers = answers.map { answer in Retrier { _, _, _, completion in count.increment(); completion(answer) } }
        let result = await retry(Interceptor(retriers: retriers))
        let name = switch result {
        case .retry: "retry"
        case .retryWithDelay(let delay): "retryWithDelay(\(delay))"
        case .doNotRetry: "doNotRetry"
        case .doNotRetryWithError: "doNotRetryWithError"
        }
        #expect(name == expected)
        #expect(count.value == asked)
    }

    @Test("Request.interceptor(_:), adapt(using:) and retry(using:) add after what the request has")
    func requestAdditions() async throws {
        let request = session.request("http://example.invalid/", interceptor: orderAdapter("given"))
            .adapt(using: orderAdapter("added")).interceptor(orderAdapter("intercepted"))
        let adapter = try #require(request.interceptor)
        let adapted = try await withCheckedContinuation { continuation in
            adapter.adapt(URLRequest(url: URL(string: "http://example.invalid/")!), for: session) { continuation.resume(returning: $0) }
        }.get()
        #expect(adapted.headers.value(for: "X-Order") == "given,added,intercepted")
        let order = Mutex<[String]>([])
        let plain = session.request("http://example.invalid/")
            .retry(using: Retrier { _, _, _, completion in order.withLock { $0.append("first") }; completion(.doNotRetry) })
            .retry(using: Retrier { _, _, _, completion in order.withLock { $0.append("second") }; completion(.doNotRetry) })
        _ = await retry(try #require(plain.interceptor))
        #expect(order.withLock { $0 } == ["first", "second"])
    }

    @Test("interceptors come after the retriers given on their own")
    func interceptorsAfterRetriers() async {
        let order = Mutex<[String]>([])
        let first = Retrier { _, _, _, completion in order.withLock { $0.append("retrier") }; completion(.doNotRetry) }
        let second = Retrier { _, _, _, completion in order.withLock { $0.append("interceptor") }; completion(.doNotRetry) }
        _ = await retry(Interceptor(retriers: [first], interceptors: [second]))
        #expect(order.withLock { $0 } == ["retrier", "interceptor"])
    }

    @Test("the session's interceptor comes before the request's (Alamofire 5.12)")
    func requestBeforeSession() async throws {
        let session = Session(interceptor: orderAdapter("session"))
        let request = session.request("http://example.invalid/", interceptor: orderAdapter("request"))
        let adapter = try #require(session.adapter(for: request))
        let adapted = try await withCheckedContinuation { continuation in
            adapter.adapt(URLRequest(url: URL(string: "http://example.invalid/")!), for: session) { continuation.resume(returning: $0) }
        }.get()
        #expect(adapted.headers.value(for: "X-Order") == "session,request")
        #expect(session.retrier(for: session.request("http://example.invalid/")) != nil)
        #expect(Session().retrier(for: retained(Session()).request("http://example.invalid/")) == nil)
    }
}
