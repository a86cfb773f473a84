// Releasing a Session: requests do not keep their session alive (they hold its
// `RequestContext`), and when the last reference to the session goes every live request
// finishes with `AFError.sessionDeinitialized`, its exchange cancelled on the wire, and the
// monitors hear that the session became invalid, as Alamofire's session does in its deinit.
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

/// Records `urlSession(_:didBecomeInvalidWithError:)`.
private final class InvalidationMonitor: EventMonitor {
    let queue = DispatchQueue(label: "org.lariat.test.invalidationMonitor")
    private let count = Atomic<Int>(0)
    var invalidations: Int { queue.sync {}; return count.load(ordering: .relaxed) }
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        count.add(1, ordering: .relaxed)
    }
}

/// A weak reference to a session, to see whether it was freed.
private struct WeakSession {
    weak var session: Session?
}

extension ClientIntegrationTests {
    @Suite("Session release")
    struct SessionReleaseTests {
        /// `request`'s raw response, or `nil` when none came within `limit`.
        private func response(of request: DataRequest, within limit: Duration = .seconds(5)) async -> AFDataResponse<Data?>? {
            let result = Mutex<AFDataResponse<Data?>?>(nil)
            let done = DispatchSemaphore(value: 0)
            request.response(queue: .global()) { response in
                result.withLock { $0 = response }
                done.signal()
            }
            let milliseconds = Int(limit.components.seconds * 1000)
            _ = await Task.detached { done.wait(timeout: .now() + .milliseconds(milliseconds)) }.value
            return result.withLock { $0 }
        }

        /// Makes `count` eager requests on a session that only this function holds; returns them
        /// and a weak reference to the session, which is released on return.
        private func eagerRequestsOfReleasedSession(count: Int, url: String, monitor: InvalidationMonitor)
            -> ([DataRequest], WeakSession) {
            let session = Session(startRequestsImmediately: false, requestSetup: .eager, eventMonitors: [monitor])
            let requests = (0..<count).map { _ in session.request(url) }
            return (requests, WeakSession(session: session))
        }

        @Test("releasing a session finishes its unsent requests with sessionDeinitialized, and the session is freed")
        func releaseFinishesPreparedRequests() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = InvalidationMonitor()
            let (requests, weak) = eagerRequestsOfReleasedSession(count: 20, url: "http://127.0.0.1:\(server.port)/", monitor: monitor)
            #expect(weak.session == nil, "requests must not keep their session alive")
            for request in requests {
                let response = await response(of: request)
                #expect(response?.error?.isSessionDeinitializedError == true)
                #expect(request.task.map { [.canceling, .completed].contains($0.state) } == true)
            }
            #expect(monitor.invalidations == 1)
            #expect(server.connectionCount == 0, "nothing is sent for a request of a released session")
        }

        @Test("a request on the wire when its session is released is cancelled there and fails with sessionDeinitialized")
        func releaseCancelsRequestOnTheWire() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .waitForClientClose])
            defer { server.stop() }
            let monitor = InvalidationMonitor()
            var session: Session? = Session(eventMonitors: [monitor])
            let weak = WeakSession(session: session)
            let request = try #require(session?.request("http://127.0.0.1:\(server.port)/slow"))
            request.resume()
            #expect(server.waitForConnections(1))
            // Wait until the request is on the wire (its bytes reached the server).
            for _ in 0..<250 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.requests.count == 1)
            session = nil
            #expect(weak.session == nil)
            let response = await response(of: request)
            #expect(response?.error?.isSessionDeinitializedError == true)
            #expect(monitor.invalidations == 1)
            #expect(server.waitForConnections(1, finished: true))
            #expect(server.clientClosed(connection: 0))
            #expect(server.failures.isEmpty)
        }

        @Test("a request resumed after its session was released fails with sessionDeinitialized and sends nothing")
        func resumeAfterReleaseFails() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            var session: Session? = Session(startRequestsImmediately: false)
            let request = try #require(session?.request("http://127.0.0.1:\(server.port)/"))
            session = nil
            request.resume()
            let response = await response(of: request)
            #expect(response?.error?.isSessionDeinitializedError == true)
            #expect(server.connectionCount == 0)
        }

        @Test("a finished request keeps its response when its session is released afterwards")
        func finishedRequestKeepsItsResponse() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            var session: Session? = Session()
            let request = try #require(session?.request("http://127.0.0.1:\(server.port)/"))
            let first = await response(of: request)
            #expect(first?.data == Data("ok".utf8))
            session = nil
            #expect(request.error == nil)
            #expect(request.state == .finished)
        }
    }
}
