// What an upload does when it is made, before anything is sent: with `.eager` request setup
// the URLRequest is built, the session's and the request's adapters run and the task is
// created for every kind of upload body. A body that cannot be read (a file that does not
// exist) fails when the body is read for sending, as URLSession's upload task does, not before
// the adapters and the task.
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

/// Sets the method of every request it adapts, and counts its adaptations.
private final class MethodSettingAdapter: RequestInterceptor {
    let method: HTTPMethod
    private let count = Atomic<Int>(0)
    var adaptations: Int { count.load(ordering: .relaxed) }
    init(_ method: HTTPMethod) { self.method = method }
    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        count.add(1, ordering: .relaxed)
        var request = urlRequest
        request.method = method
        completion(.success(request))
    }
}

/// Signals each task created.
private final class TaskCreationMonitor: EventMonitor {
    let queue = DispatchQueue(label: "org.lariat.test.taskCreation")
    let created = DispatchSemaphore(value: 0)
    func request(_ request: Request, didCreateTask task: URLSessionTask) { created.signal() }
}

extension ClientIntegrationTests {
    @Suite("Upload creation")
    struct UploadCreationTests {
        /// Makes an upload on an eager session whose adapter sets GET, and returns it once its
        /// task was created (`nil` when no task came within 5 s), with the adapter.
        private func eagerUpload(_ make: (Session) -> UploadRequest) -> (UploadRequest, URLSessionTask?, MethodSettingAdapter, Session) {
            let adapter = MethodSettingAdapter(.get)
            let monitor = TaskCreationMonitor()
            let session = Session(startRequestsImmediately: false, requestSetup: .eager, interceptor: adapter, eventMonitors: [monitor])
            let request = make(session)
            let created = monitor.created.wait(timeout: .now() + 5) == .success
            return (request, created ? request.task : nil, adapter, session)
        }

        @Test("an eager upload of a file that does not exist runs the adapters and creates its task")
        func eagerFileUploadCreatesTask() throws {
            let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.txt")
            let (request, task, adapter, session) = eagerUpload { $0.upload(missing, to: "http://127.0.0.1:9/upload") }
            let created = try #require(task, "no task was created: \(String(describing: request.error))")
            #expect(created.originalRequest?.method == .get)
            #expect(adapter.adaptations == 1)
            #expect(request.state == .initialized)
            withExtendedLifetime(session) {}
        }

        @Test("an eager upload of an InputStream runs the adapters and creates its task")
        func eagerStreamUploadCreatesTask() throws {
            let (request, task, adapter, session) = eagerUpload { $0.upload(InputStream(data: Data("data".utf8)), to: "http://127.0.0.1:9/upload") }
            let created = try #require(task, "no task was created: \(String(describing: request.error))")
            #expect(created.originalRequest?.method == .get)
            #expect(adapter.adaptations == 1)
            #expect(request.state == .initialized)
            withExtendedLifetime(session) {}
        }

        @Test("uploading a file that does not exist fails with createUploadableFailed once the request runs, with a task and metrics")
        func missingFileFailsWhenSent() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.txt")
            let response = await withCheckedContinuation { continuation in
                retained(Session()).upload(missing, to: "http://127.0.0.1:\(server.port)/upload").response(queue: .global()) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(response.error != nil)
            #expect(response.error?.isCreateUploadableError == true, "\(String(describing: response.error))")
            #expect(response.metrics != nil)
            #expect(response.request?.method == .post)
            #expect(server.requests.isEmpty, "no request is sent without its body")
        }
    }
}
