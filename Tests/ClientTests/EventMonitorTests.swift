// Event monitors against a scripted loopback server: every event arrives once, in Alamofire's
// order (see the header of `EventMonitor.swift`), on the monitor's own queue, for a data
// request, a download, an upload, a validation failure, a retry and a cancel; the composite,
// closure and notification monitors.
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

/// Records the name of every event it receives, and whether it ran on its own queue.
final class RecordingMonitor: EventMonitor {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()
    private let log = Mutex<[String]>([])
    private let offQueue = Atomic<Int>(0)

    init(label: String = "org.lariat.test.recordingMonitor") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
    }

    /// The events so far, with runs of the same per-chunk event collapsed into one.
    var events: [String] {
        queue.sync {}  // every event posted before this call has run
        return log.withLock { entries in
            entries.enumerated().filter { index, name in
                !(index > 0 && name == entries[index - 1] && name == "dataTaskDidReceiveData")
            }.map(\.element)
        }
    }
    /// Events that ran on some other queue.
    var eventsOffQueue: Int { queue.sync {}; return offQueue.load(ordering: .relaxed) }

    private func record(_ name: String) {
        if DispatchQueue.getSpecific(key: key) != 1 { offQueue.add(1, ordering: .relaxed) }
        log.withLock { $0.append(name) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { record("taskDidComplete") }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) { record("dataTaskDidReceiveResponse") }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) { record("dataTaskDidReceiveData") }
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) { record("didFinishDownloadingTo") }
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { record("didCreateInitialURLRequest") }
    func request(_ request: Request, didFailToCreateURLRequestWithError error: AFError) { record("didFailToCreateURLRequest") }
    func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) { record("didAdapt") }
    func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: AFError) { record("didFailToAdapt") }
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { record("didCreateURLRequest") }
    func request(_ request: Request, didCreateTask task: URLSessionTask) { record("didCreateTask") }
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) {
        record(error == nil ? "didCompleteTask" : "didCompleteTask(error)")
    }
    func requestIsRetrying(_ request: Request) { record("requestIsRetrying") }
    func requestDidFinish(_ request: Request) { record("requestDidFinish") }
    func requestDidResume(_ request: Request) { record("requestDidResume") }
    func request(_ request: Request, didResumeTask task: URLSessionTask) { record("didResumeTask") }
    func requestDidSuspend(_ request: Request) { record("requestDidSuspend") }
    func request(_ request: Request, didSuspendTask task: URLSessionTask) { record("didSuspendTask") }
    func requestDidCancel(_ request: Request) { record("requestDidCancel") }
    func request(_ request: Request, didCancelTask task: URLSessionTask) { record("didCancelTask") }
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
                 withResult result: Request.ValidationResult) {
        if case .success = result { record("didValidate") } else { record("didValidate(failure)") }
    }
    func request(_ request: DataRequest, didParseResponse response: DataResponse<Data?, AFError>) { record("didParseResponse(raw)") }
    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) { record("didParseResponse") }
    func request(_ request: UploadRequest, didCreateUploadable uploadable: UploadRequest.Uploadable) { record("didCreateUploadable") }
    func request(_ request: DownloadRequest, didFinishDownloadingUsing task: URLSessionTask, with result: Result<URL, AFError>) {
        record("didFinishDownloadingUsing")
    }
    func request(_ request: DownloadRequest, didCreateDestinationURL url: URL) { record("didCreateDestinationURL") }
    func request(_ request: DownloadRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, fileURL: URL?,
                 withResult result: Request.ValidationResult) { record("didValidate") }
    func request(_ request: DownloadRequest, didParseResponse response: DownloadResponse<URL?, AFError>) { record("didParseResponse(raw)") }
    func request<Value: Sendable>(_ request: DownloadRequest, didParseResponse response: DownloadResponse<Value, AFError>) {
        record("didParseResponse")
    }
}

/// Retries once, at once.
private struct RetryOnce: RequestRetrier {
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(request.retryCount == 0 ? .retry : .doNotRetry)
    }
}

/// The start of every attempt up to its task running.
private let attemptStart = ["didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask", "didResumeTask"]

extension ClientIntegrationTests {
    @Suite("Event monitors")
    struct EventMonitorTests {
        private func server(_ steps: [ScriptedServer.Step], everyConnection: Bool = false) throws -> ScriptedServer {
            try ScriptedServer(script: steps, forEveryConnection: everyConnection)
        }

        @Test("a data request's events arrive once, in order, on the monitor's queue")
        func dataRequest() async throws {
            let server = try server([.expectRequest, cannedResponse("hello")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(eventMonitors: [monitor])
            let response = await session.request("http://127.0.0.1:\(server.port)/").validate().serializingString().response
            #expect(response.value == "hello")
            #expect(monitor.events == ["requestDidResume"] + attemptStart + [
                "dataTaskDidReceiveResponse", "dataTaskDidReceiveData", "taskDidComplete", "didValidate", "didCompleteTask",
                "requestDidFinish", "didParseResponse",
            ])
            #expect(monitor.eventsOffQueue == 0)
        }

        @Test("a validation failure is reported by didValidate; the task itself completed without error")
        func validationFailure() async throws {
            let server = try server([.expectRequest, cannedResponse("no", status: "404 Not Found")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(eventMonitors: [monitor])
            let response = await session.request("http://127.0.0.1:\(server.port)/").validate().serializingData().response
            #expect(response.error?.isResponseValidationError == true)
            #expect(monitor.events == ["requestDidResume"] + attemptStart + [
                "dataTaskDidReceiveResponse", "dataTaskDidReceiveData", "taskDidComplete", "didValidate(failure)", "didCompleteTask",
                "requestDidFinish", "didParseResponse",
            ])
        }

        @Test("a retried request reports requestIsRetrying, then the whole next attempt")
        func retry() async throws {
            let server = try server([.expectRequest, cannedResponse("no", status: "500 Internal Server Error"),
                                     .expectRequest, cannedResponse("yes")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(interceptor: Interceptor(retriers: [RetryOnce()]), eventMonitors: [monitor])
            let response = await session.request("http://127.0.0.1:\(server.port)/").validate().serializingString().response
            #expect(response.value == "yes")
            // An Interceptor is an adapter too (it passes the request through), so each attempt
            // reports an adaptation, as in Alamofire.
            let attempt = ["didCreateInitialURLRequest", "didAdapt", "didCreateURLRequest", "didCreateTask", "didResumeTask",
                           "dataTaskDidReceiveResponse", "dataTaskDidReceiveData", "taskDidComplete"]
            #expect(monitor.events == ["requestDidResume"] + attempt + ["didValidate(failure)", "didCompleteTask", "requestIsRetrying"]
                + attempt + ["didValidate", "didCompleteTask", "requestDidFinish", "didParseResponse"])
        }

        @Test("a download reports the file's completion and its move to the destination")
        func download() async throws {
            let server = try server([.expectRequest, cannedResponse("file body")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(eventMonitors: [monitor])
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-monitor-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: target) }
            let response = await session.download("http://127.0.0.1:\(server.port)/", to: { _, _ in (target, []) })
                .serializingDownloadedFileURL().response
            #expect(response.value == target)
            #expect(monitor.events == ["requestDidResume"] + attemptStart + [
                "taskDidComplete", "didFinishDownloadingTo", "didCreateDestinationURL", "didFinishDownloadingUsing",
                "didCompleteTask", "requestDidFinish", "didParseResponse",
            ])
        }

        @Test("an upload reports its uploadable after the URLRequest, before the task")
        func upload() async throws {
            let server = try server([.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(eventMonitors: [monitor])
            let response = await session.upload(Data("body".utf8), to: "http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(response.error == nil)
            #expect(monitor.events == ["requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateUploadable",
                                       "didCreateTask", "didResumeTask", "dataTaskDidReceiveResponse", "dataTaskDidReceiveData",
                                       "taskDidComplete", "didCompleteTask", "requestDidFinish", "didParseResponse"])
        }

        @Test("cancelling before resume reports the cancel and the finish, no task")
        func cancelBeforeResume() async throws {
            let monitor = RecordingMonitor()
            let session = Session(startRequestsImmediately: false, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:1/")
            request.cancel()
            let response = await withCheckedContinuation { continuation in
                request.response(queue: .global()) { continuation.resume(returning: $0) }
            }
            #expect(response.error?.isExplicitlyCancelledError == true)
            #expect(monitor.events == ["requestDidCancel", "requestDidFinish", "didParseResponse(raw)"])
            #expect(request.task == nil)
        }

        @Test("cancelling a running request reports the request's and the task's cancel, then completion")
        func cancelRunning() async throws {
            let server = try server([.expectRequest, .sleep(.seconds(2)), cannedResponse("late")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let resumed = DispatchSemaphore(value: 0)
            request.onURLSessionTaskCreation(on: .global()) { _ in resumed.signal() }
            let pending = Task { await request.serializingData().response }
            _ = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: resumed.wait(timeout: .now() + 5)) }
            }
            _ = server.waitForConnections(1)
            request.cancel()
            let response = await pending.value
            #expect(response.error?.isExplicitlyCancelledError == true)
            #expect(monitor.events == ["requestDidResume"] + attemptStart + [
                "requestDidCancel", "didCancelTask", "taskDidComplete", "didCompleteTask(error)", "requestDidFinish", "didParseResponse",
            ])
            #expect(request.task?.state == .completed)
        }

        @Test("suspend and resume before start report both; the task is created resumed")
        func suspendThenResume() async throws {
            let server = try server([.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = Session(startRequestsImmediately: false, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/")
            request.suspend()
            request.resume()
            let response = await request.serializingData().response
            #expect(response.error == nil)
            #expect(Array(monitor.events.prefix(6)) == ["requestDidSuspend", "requestDidResume"] + attemptStart)
        }

        @Test("a composite sends each event once to every monitor; a request's own monitor hears the request's events, not the task's")
        func compositeAndRequestMonitor() async throws {
            let server = try server([.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let first = RecordingMonitor(label: "first"), second = RecordingMonitor(label: "second"), own = RecordingMonitor(label: "own")
            let session = Session(eventMonitors: [first, second])
            let response = await session.request("http://127.0.0.1:\(server.port)/").eventMonitor(own).serializingData().response
            #expect(response.error == nil)
            #expect(first.events == second.events)
            // URLSession's task events (`urlSession(…)`) reach the session's monitors only, as in
            // Alamofire, where they come through the session's delegate.
            let taskEvents: Set = ["dataTaskDidReceiveResponse", "dataTaskDidReceiveData", "taskDidComplete"]
            #expect(first.events.contains("taskDidComplete"))
            #expect(own.events == first.events.filter { !taskEvents.contains($0) })
            #expect(first.events.filter { $0 == "requestDidFinish" }.count == 1)
            #expect(session.eventMonitor.monitors.count == 2)
        }

        @Test("ClosureEventMonitor calls the closures set, on its queue")
        func closureMonitor() async throws {
            let server = try server([.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let queue = DispatchQueue(label: "closures")
            let monitor = ClosureEventMonitor(queue: queue)
            let seen = Mutex<[String]>([])
            monitor.requestDidResume = { _ in seen.withLock { $0.append("resume") } }
            monitor.requestDidCreateTask = { _, task in seen.withLock { $0.append("task \(task is URLSessionDataTask)") } }
            monitor.requestDidFinish = { _ in seen.withLock { $0.append("finish") } }
            let session = Session(eventMonitors: [monitor])
            _ = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            queue.sync {}
            #expect(seen.withLock { $0 } == ["resume", "task true", "finish"])
        }

        @Test("the default monitors post Alamofire's notifications with the request, in order")
        func notifications() async throws {
            let server = try server([.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let session = Session()
            #expect(session.eventMonitor.monitors.count == 1 && session.eventMonitor.monitors[0] is AlamofireNotifications)
            let request = session.request("http://127.0.0.1:\(server.port)/", shouldAutomaticallyResume: false)
            let names = [Request.didResumeNotification, Request.didResumeTaskNotification,
                         Request.didCompleteTaskNotification, Request.didFinishNotification]
            let seen = Mutex<[Notification.Name]>([])
            let observers = names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                    if note.request === request { seen.withLock { $0.append(note.name) } }
                }
            }
            defer { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
            request.resume()
            _ = await request.serializingData().response
            // Posted at once where each event happened, before the response was handed out.
            #expect(seen.withLock { $0 } == names)
        }
    }
}
