// When a request is built and what it reports before it runs: `.eager` request setup (the
// URLRequest and the task exist before any resume), suspend/cancel repeated from many threads
// reporting each event once, metrics for a task cancelled before it ran, and an adapter that
// gives a GET a body.
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

/// Counts the lifetime events it receives, by name, in order.
final class LifetimeMonitor: EventMonitor {
    let queue = DispatchQueue(label: "org.lariat.test.lifetimeMonitor")
    private let log = Mutex<[String]>([])

    /// The events so far (every event posted before this call has run).
    var events: [String] { queue.sync {}; return log.withLock { $0 } }
    /// How many times `name` arrived.
    func count(_ name: String) -> Int { events.filter { $0 == name }.count }

    private func record(_ name: String) { log.withLock { $0.append(name) } }

    func requestDidResume(_ request: Request) { record("resume") }
    func requestDidSuspend(_ request: Request) { record("suspend") }
    func requestDidCancel(_ request: Request) { record("cancel") }
    func requestDidFinish(_ request: Request) { record("finish") }
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { record("createURLRequest") }
    func request(_ request: Request, didCreateTask task: URLSessionTask) { record("createTask") }
    func request(_ request: Request, didResumeTask task: URLSessionTask) { record("resumeTask") }
    func request(_ request: Request, didSuspendTask task: URLSessionTask) { record("suspendTask") }
    func request(_ request: Request, didCancelTask task: URLSessionTask) { record("cancelTask") }
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) { record("completeTask") }
    func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) { record("gatherMetrics") }
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        record("finishCollecting")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { record("taskDidComplete") }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {
        record("willCacheResponse")
    }
}

/// Gives every request a body, whatever its method.
private struct BodyAddingAdapter: RequestAdapter {
    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.httpBody = Data("body".utf8)
        completion(.success(request))
    }
}

extension ClientIntegrationTests {
    @Suite("Request setup and early lifetime events")
    struct RequestSetupTests {
        /// Awaits `request`'s raw response.
        private func finished(_ request: DataRequest) async -> AFDataResponse<Data?> {
            await withCheckedContinuation { continuation in
                request.response(queue: .global()) { continuation.resume(returning: $0) }
            }
        }

        @Test("eager setup builds the URLRequest and the task when the request is made, and sends nothing until resumed")
        func eagerSetupBuildsAtCreation() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = LifetimeMonitor()
            let session = Session(startRequestsImmediately: false, requestSetup: .eager, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/")
            #expect(request.task != nil)
            #expect(request.request != nil)
            #expect(request.state == .initialized)
            #expect(monitor.events == ["createURLRequest", "createTask"])
            #expect(!server.waitForConnections(1, timeout: .milliseconds(200)))
            request.resume()
            let response = await finished(request)
            #expect(response.response?.statusCode == 200)
            #expect(request.tasks.count == 1)
            #expect(Array(monitor.events.prefix(4)) == ["createURLRequest", "createTask", "resume", "resumeTask"])
        }

        @Test("lazy setup (the default) builds nothing before resume")
        func lazySetupWaits() {
            let session = Session(startRequestsImmediately: false)
            let request = session.request("http://127.0.0.1:1/")
            #expect(request.task == nil && request.request == nil)
            request.cancel()
        }

        @Test("an eagerly built request suspended from many threads reports suspend and its task's suspend once each")
        func eagerSuspendManyTimes() async throws {
            let monitor = LifetimeMonitor()
            let session = Session(startRequestsImmediately: false, requestSetup: .eager, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:1/")
            DispatchQueue.concurrentPerform(iterations: 100) { _ in request.suspend() }
            #expect(request.state == .suspended)
            #expect(monitor.events == ["createURLRequest", "createTask", "suspend", "suspendTask"])
            request.cancel()
        }

        @Test("an eagerly built request cancelled from many threads reports cancel, its task's cancel and metrics once each")
        func eagerCancelManyTimes() async throws {
            let monitor = LifetimeMonitor()
            let session = Session(startRequestsImmediately: false, requestSetup: .eager, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:1/")
            DispatchQueue.concurrentPerform(iterations: 100) { _ in request.cancel() }
            let response = await finished(request)
            #expect(response.error?.isExplicitlyCancelledError == true)
            #expect(request.state == .cancelled)
            // URLSession reports metrics for every task, one cancelled before it ran too.
            #expect(monitor.events == [
                "createURLRequest", "createTask", "cancel", "cancelTask",
                "finishCollecting", "gatherMetrics", "taskDidComplete", "completeTask", "finish",
            ])
            #expect(response.metrics?.transactionMetrics.isEmpty == true)
        }

        @Test("a task cancelled while held suspended still reports its metrics before it completes")
        func heldTaskCancelledReportsMetrics() async throws {
            let monitor = LifetimeMonitor()
            let requestQueue = DispatchQueue(label: "org.lariat.test.setup")
            let session = Session(startRequestsImmediately: false, requestQueue: requestQueue, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:1/")
            // The start runs on the request queue, held until the request is suspended: its task is built held.
            requestQueue.suspend()
            request.resume()
            request.suspend()
            requestQueue.resume()
            let created = await withCheckedContinuation { continuation in
                request.onURLSessionTaskCreation(on: .global()) { _ in continuation.resume(returning: true) }
            }
            #expect(created)
            request.cancel()
            _ = await finished(request)
            let events = monitor.events
            #expect(events.filter { $0 == "finishCollecting" }.count == 1)
            #expect(events.filter { $0 == "gatherMetrics" }.count == 1)
            let collected = events.firstIndex(of: "gatherMetrics"), completed = events.firstIndex(of: "taskDidComplete")
            #expect(collected != nil && completed != nil && collected! < completed!)
        }

        @Test("a storable response reports willCacheResponse, then the metrics, then the task's completion, as URLSession orders them",
              arguments: ["", "Cache-Control: max-age=60\r\n"])
        func cacheThenMetricsThenCompletion(headers: String) async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok", extra: headers)])
            defer { server.stop() }
            let monitor = LifetimeMonitor()
            let session = Session(configuration: .ephemeral, eventMonitors: [monitor])
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(response.value == Data("ok".utf8))
            // A response without freshness is announced too (URLSession's delegate hears it), though not kept.
            #expect(monitor.events.filter { ["willCacheResponse", "finishCollecting", "gatherMetrics", "taskDidComplete"].contains($0) }
                == ["willCacheResponse", "finishCollecting", "gatherMetrics", "taskDidComplete"])
        }

        @Test("a request's own monitor hears the request's events only; the session's hear the task's too")
        func ownMonitorHearsRequestEvents() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let sessionMonitor = LifetimeMonitor(), own = LifetimeMonitor()
            let session = Session(configuration: .ephemeral, eventMonitors: [sessionMonitor])
            _ = await session.request("http://127.0.0.1:\(server.port)/").eventMonitor(own).serializingData().response
            #expect(own.events == ["resume", "createURLRequest", "createTask", "resumeTask", "gatherMetrics", "completeTask", "finish"])
            #expect(sessionMonitor.events == ["resume", "createURLRequest", "createTask", "resumeTask", "willCacheResponse",
                                              "finishCollecting", "gatherMetrics", "taskDidComplete", "completeTask", "finish"])
        }

        @Test("an adapter that gives a GET a body fails the request as an adaptation failure, before any I/O")
        func adaptedGETWithBody() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let session = Session(interceptor: Interceptor(adapters: [BodyAddingAdapter()]))
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            guard case .requestAdaptationFailed(let underlying)? = response.error else {
                Issue.record("expected requestAdaptationFailed, got \(String(describing: response.error))")
                return
            }
            guard case .urlRequestValidationFailed(reason: .bodyDataInGETRequest)? = underlying as? AFError else {
                Issue.record("expected bodyDataInGETRequest beneath, got \(underlying)")
                return
            }
            #expect(!server.waitForConnections(1, timeout: .milliseconds(200)))
        }
    }
}
