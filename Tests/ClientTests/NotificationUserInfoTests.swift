// The user info of a request's notifications is built once and cached in the request while the
// session tracks it (`NotificationUserInfo`): every notification still carries the request, and
// the cache, which holds the request, never keeps a finished request alive.
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
    @Suite("Notification user info")
    struct NotificationUserInfoTests {
        /// How a request ends, one row per path that posts notifications and then untracks it.
        enum Ending: String, CaseIterable, CustomTestStringConvertible {
            /// Resumed, answered, serialized (resume, task resumed, task completed, finish).
            case completed
            /// Cancelled before it was ever resumed (cancel, finish).
            case cancelledUnsent
            /// Suspended, then cancelled (suspend, cancel, finish).
            case suspendedThenCancelled
            var testDescription: String { rawValue }
        }

        @Test("each notification carries the request; the finished request is released", arguments: Ending.allCases)
        func releasedAfterFinish(ending: Ending) async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let names = [Request.didResumeNotification, Request.didSuspendNotification, Request.didCancelNotification,
                         Request.didFinishNotification, Request.didResumeTaskNotification,
                         Request.didCompleteTaskNotification]
            let url = "http://127.0.0.1:\(server.port)/\(ending.rawValue)"
            // The notifications about this test's request, by name (observers see other tests'
            // requests too); the observers hold only its identifier, not the request.
            let seen = Mutex<[Notification.Name]>([])
            weak var weakRequest: DataRequest?
            do {
                let request = retained(Session()).request(url, shouldAutomaticallyResume: false)
                weakRequest = request
                let identifier = ObjectIdentifier(request)
                let observers: [Any] = names.map { name in
                    NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                        guard let posted = note.request, ObjectIdentifier(posted) == identifier else { return }
                        seen.withLock { $0.append(note.name) }
                    }
                }
                defer { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
                switch ending {
                case .completed:
                    request.resume()
                case .cancelledUnsent:
                    request.cancel()
                case .suspendedThenCancelled:
                    request.suspend()
                    request.cancel()
                }
                _ = await request.serializingData().response
            }
            for _ in 0..<100 where weakRequest != nil { try await Task.sleep(for: .milliseconds(10)) }
            #expect(weakRequest == nil, "the finished request is still alive")

            let expected: [Notification.Name] = switch ending {
            case .completed: [Request.didResumeNotification, Request.didResumeTaskNotification,
                              Request.didCompleteTaskNotification, Request.didFinishNotification]
            case .cancelledUnsent: [Request.didCancelNotification, Request.didFinishNotification]
            case .suspendedThenCancelled: [Request.didSuspendNotification, Request.didCancelNotification,
                                           Request.didFinishNotification]
            }
            #expect(seen.withLock { $0 } == expected)
        }
    }
}

