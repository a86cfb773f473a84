// A cancel made from a user handler before that handler could see the completion wins, even
// when the whole response arrived meanwhile: a stream's chunk handler (by its token), and an
// `onHTTPResponse` handler answering `.cancel` after an empty body, for streams and data
// requests. Alamofire orders a request's completion after what it handed to those handlers (its
// suite's testThatDataStreamCanBeCancelledByToken failed 2 runs in 3 against Lariat). Each test
// keeps the handler's queue busy until the exchange has ended on the wire (or, where the
// transport holds the end for the answer, for a while), so the handler's cancel comes late.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Glibc
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("A cancel from a handler beats the end")
    struct HandlerCancelOrderTests {
        /// Blocks `queue` until `request`'s task completed on the wire (at most `limit`), then
        /// 50 ms more: the exchange's end has reached the request by the time the queue's next
        /// block runs, unless something holds it.
        static func hold(_ queue: DispatchQueue, until request: Request, limit: Duration = .seconds(5)) {
            queue.async {
                let deadline = ContinuousClock.now + limit
                while request.task?.state != .completed, ContinuousClock.now < deadline { usleep(1000) }
                usleep(50_000)
            }
        }

        /// The chunk handler cancels by its token after the body (one byte) and the exchange's
        /// end arrived: the completion, after the chunk on the same queue, is explicitly cancelled.
        @Test func streamTokenCancelAfterTheLastByte() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("x"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let chunks = Atomic<Int>(0)
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let queue = DispatchQueue(label: "c")
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x")
            Self.hold(queue, until: request)
            request.responseStream(on: queue) { stream in
                switch stream.event {
                case .stream:
                    chunks.add(1, ordering: .relaxed)
                    stream.token.cancel()
                case .complete(let completion):
                    done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(chunks.load(ordering: .relaxed) == 1)
            #expect(completion.response?.statusCode == 200)
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
            #expect(request.isCancelled)
        }

        /// Two handlers on two queues: the completion waits for the slower one, whose cancel wins;
        /// the faster one sees the chunk and then the same cancelled completion.
        @Test func streamCancelFromTheSlowerOfTwoHandlers() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("x"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let fast = ResponseWaiter<DataStreamRequest.Completion>()
            let slow = ResponseWaiter<DataStreamRequest.Completion>()
            let slowQueue = DispatchQueue(label: "slow")
            // Started once both handlers are there: each must be handed the chunk.
            let request = retained(Session(startRequestsImmediately: false)).streamRequest("http://127.0.0.1:\(server.port)/x")
            Self.hold(slowQueue, until: request)
            request
                .responseStream(on: DispatchQueue(label: "fast")) { stream in
                    if let completion = stream.completion { fast.deliver(completion) }
                }
                .responseStream(on: slowQueue) { stream in
                    switch stream.event {
                    case .stream: stream.cancel()
                    case .complete(let completion): slow.deliver(completion)
                    }
                }
                .resume()
            let (first, second) = (await fast.response(cancelling: nil), await slow.response(cancelling: nil))
            #expect(first.error?.isExplicitlyCancelledError == true, "\(String(describing: first.error))")
            #expect(second.error?.isExplicitlyCancelledError == true, "\(String(describing: second.error))")
        }

        /// A stream handler that does not cancel: the late chunk is still followed by a clean
        /// completion (the held end is released, not lost).
        @Test func streamLateHandlerWithoutCancelCompletes() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("xyz"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let received = Mutex<String>("")
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let queue = DispatchQueue(label: "c")
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x")
            Self.hold(queue, until: request)
            request.responseStreamString(on: queue) { stream in
                switch stream.event {
                case .stream(.success(let text)): received.withLock { $0 += text }
                case .complete(let completion): done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(received.withLock { $0 } == "xyz")
            #expect(completion.error == nil, "\(String(describing: completion.error))")
            #expect(request.state == .finished)
        }

        /// A stream's `onHTTPResponse` answers `.cancel` late, the response's body being empty: the
        /// request is cancelled, as URLSession waits for the answer (reading pauses at the head, so
        /// the exchange cannot end before it; the hold times out after 300 ms).
        @Test func streamDispositionCancelAfterAnEmptyBody() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse(""), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let queue = DispatchQueue(label: "c")
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x")
            Self.hold(queue, until: request, limit: .milliseconds(300))
            request
                .onHTTPResponse(on: queue) { _, decide in decide(.cancel) }
                .responseStream(on: queue) { stream in
                    if let completion = stream.completion { done.deliver(completion) }
                }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
        }

        /// A data request's `onHTTPResponse` answers late, the response's body being empty:
        /// `.cancel` gives the handler `explicitlyCancelled`, `.allow` the response as usual.
        @Test(arguments: [true, false])
        func dataRequestDispositionAfterAnEmptyBody(cancels: Bool) async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse(""), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let queue = DispatchQueue(label: "c")
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/x")
            Self.hold(queue, until: request, limit: .milliseconds(300))
            let response = await request
                .onHTTPResponse(on: queue) { _, decide in decide(cancels ? .cancel : .allow) }
                .serializingData(emptyResponseCodes: [200]).response
            #expect(response.response?.statusCode == 200)
            if cancels {
                #expect(response.error?.isExplicitlyCancelledError == true, "\(String(describing: response.error))")
                #expect(request.isCancelled)
            } else {
                #expect(response.error == nil, "\(String(describing: response.error))")
                #expect(request.state == .finished)
            }
        }
    }
}
