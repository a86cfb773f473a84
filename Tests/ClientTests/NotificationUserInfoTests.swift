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

        /// The dictionaries are recycled (`NotificationUserInfo.spares`): a notification an
        /// observer keeps must still carry its own request after that request finished and
        /// later requests reused the storage.
        /// A notification kept past its post. `@unchecked Sendable`: Foundation's `Notification`
        /// is not `Sendable`; this one is only read, after the observer stored it.
        struct KeptNotification: @unchecked Sendable { let note: Notification }

        @Test("a kept notification still carries its request after later requests reuse the user info")
        func keptNotificationUnchanged() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("a"), .expectRequest, cannedResponse("b"),
                                                     .expectRequest, cannedResponse("c")])
            defer { server.stop() }
            let session = retained(Session())
            let first = session.request("http://127.0.0.1:\(server.port)/kept", shouldAutomaticallyResume: false)
            let identifier = ObjectIdentifier(first)
            let kept = Mutex<[KeptNotification]>([])
            let observer = NotificationCenter.default.addObserver(forName: Request.didFinishNotification, object: nil, queue: nil) { note in
                guard let posted = note.request, ObjectIdentifier(posted) == identifier else { return }
                kept.withLock { $0.append(KeptNotification(note: note)) }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            first.resume()
            _ = await first.serializingData().response
            for path in ["/later1", "/later2"] {
                _ = await session.request("http://127.0.0.1:\(server.port)\(path)").serializingData().response
            }
            let notes = kept.withLock { $0.map(\.note) }
            #expect(notes.count == 1)
            #expect(notes.first?.userInfo?.count == 1)
            #expect(notes.first?.request.map(ObjectIdentifier.init) == identifier)
        }

        @Test("a recycled user info holds only the new request")
        func recycledUserInfo() {
            let session = retained(Session())
            let old = session.request("http://127.0.0.1:9/old", shouldAutomaticallyResume: false)
            let new = session.request("http://127.0.0.1:9/new", shouldAutomaticallyResume: false)
            NotificationUserInfo.recycle(NotificationUserInfo.make(for: old))
            let userInfo = NotificationUserInfo.make(for: new)
            #expect(userInfo.count == 1)
            #expect((userInfo[Notification.requestKey] as? Request).map(ObjectIdentifier.init) == ObjectIdentifier(new))
            #expect(NotificationUserInfo.spareCount <= NotificationUserInfo.maximumSpares)
        }
    }
}

