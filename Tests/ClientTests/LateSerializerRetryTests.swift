// A response serializer added after the request finished still takes a serializing turn:
// its failure goes to the retrier, and a retry starts a new attempt whose response it then
// serializes (Alamofire puts a finished request back to `.resumed` for it; Lariat ran it at once,
// without the retrier). Against the scripted server on loopback.
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

extension ClientIntegrationTests {
    @Suite("A serializer added once finished")
    struct LateSerializerRetryTests {
        struct Value: Decodable, Sendable { let a: Int }

        /// Finishes `request` with a plain `.response` first, so the next serializer comes late.
        static func finish(_ request: DataRequest) async {
            _ = await withCheckedContinuation { continuation in
                request.response(queue: .global()) { continuation.resume(returning: $0) }
            }
        }

        /// The late serializer fails: the retrier is asked once, with its error; `.doNotRetry`
        /// delivers that failure, and the request is finished again.
        @Test func failureIsOfferedToTheRetrier() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("not json"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let asked = Mutex<[AFError?]>([])
            let retrier = Retrier { _, _, error, completion in
                asked.withLock { $0.append(error as? AFError) }
                completion(.doNotRetry)
            }
            let request = retained(Session(interceptor: retrier)).request("http://127.0.0.1:\(server.port)/x")
            await Self.finish(request)
            #expect(asked.withLock { $0 }.isEmpty, "the first response was fine")
            let response = await request.serializingDecodable(Value.self).response
            guard case .responseSerializationFailed(.decodingFailed)? = response.error else {
                Issue.record("expected the decoding failure, got \(String(describing: response.error))")
                return
            }
            #expect(asked.withLock { $0.count } == 1)
            let seen = asked.withLock { $0.first ?? nil }
            #expect(seen?.isResponseSerializationError == true, "the retrier saw \(String(describing: seen))")
            #expect(request.retryCount == 0)
            #expect(request.state == .finished)
        }

        /// The retrier retries: a new exchange runs and the late serializer's completion gets its
        /// response (and only that one).
        @Test func retryServesTheLateSerializer() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, cannedResponse("not json"), .expectRequest, cannedResponse("{\"a\":7}"), .sleep(.milliseconds(300)),
            ])
            defer { server.stop() }
            let calls = Atomic<Int>(0)
            let retrier = Retrier { request, _, _, completion in
                calls.add(1, ordering: .relaxed)
                completion(request.retryCount == 0 ? .retry : .doNotRetry)
            }
            let request = retained(Session(interceptor: retrier)).request("http://127.0.0.1:\(server.port)/x")
            await Self.finish(request)
            let delivered = Atomic<Int>(0)
            let value = await withCheckedContinuation { continuation in
                request.responseDecodable(of: Value.self, queue: .global()) { response in
                    delivered.add(1, ordering: .relaxed)
                    continuation.resume(returning: response.value?.a)
                }
            }
            #expect(value == 7)
            #expect(calls.load(ordering: .relaxed) == 1)
            #expect(request.retryCount == 1)
            try await Task.sleep(for: .milliseconds(100))  // a second, wrong delivery would come now
            #expect(delivered.load(ordering: .relaxed) == 1)
        }

        /// The late serializer's retry waits out a delay: the request is live again, so the
        /// session's `cancelAllRequests()` finds it and cancels it (no second request is sent),
        /// as Alamofire's session, which tracks a request again when it retries.
        @Test func delayedRetryIsCancelledWithTheSession() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, cannedResponse("not json"), .expectRequest, cannedResponse("{\"a\":7}"), .sleep(.milliseconds(300)),
            ])
            defer { server.stop() }
            let asked = Atomic<Int>(0)
            let retrier = Retrier { request, _, _, completion in
                asked.add(1, ordering: .relaxed)
                completion(request.retryCount == 0 ? .retryWithDelay(1) : .doNotRetry)
            }
            let session = Session(interceptor: retrier)
            let request = session.request("http://127.0.0.1:\(server.port)/x")
            await Self.finish(request)
            let response = Task { await request.serializingDecodable(Value.self).response }
            // Bounded wait for the retrier's answer; the retry is then in its 1 s delay.
            for _ in 0..<500 where asked.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(asked.load(ordering: .relaxed) == 1)
            let tracked = await withCheckedContinuation { continuation in
                session.withAllRequests { continuation.resume(returning: $0.contains(request)) }
            }
            #expect(tracked, "the request retrying for its late serializer is not among the session's live requests")
            session.cancelAllRequests()
            let result = await response.value
            #expect(result.error?.isExplicitlyCancelledError == true, "got \(String(describing: result.error)), value \(String(describing: result.value))")
            #expect(request.state == .cancelled)
            #expect(request.retryCount == 0)
            try await Task.sleep(for: .milliseconds(1200))  // past the delay: a retry would have sent now
            #expect(server.requests.count == 1)
            withExtendedLifetime(session) {}
        }

        /// A late serializer that succeeds never asks the retrier, and a late plain handler runs at once.
        @Test func successDoesNotAsk() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("{\"a\":1}"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let calls = Atomic<Int>(0)
            let retrier = Retrier { _, _, _, completion in
                calls.add(1, ordering: .relaxed)
                completion(.doNotRetry)
            }
            let request = retained(Session(interceptor: retrier)).request("http://127.0.0.1:\(server.port)/x")
            await Self.finish(request)
            let value = try await request.serializingDecodable(Value.self).value
            #expect(value.a == 1)
            #expect(calls.load(ordering: .relaxed) == 0)
            #expect(request.state == .finished)
        }
    }
}
