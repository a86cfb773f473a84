// `suspend()` on a request already on the wire: the connection stops reading, and the request
// does not finish until it is resumed, even when its whole response arrived meanwhile (as
// `URLSessionTask.suspend()`); cancel still ends it.
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
    @Suite("Suspend on the wire")
    struct SuspendOnWireTests {
        /// A server that answers 200 ms after the request arrived.
        private func lateServer() throws -> ScriptedServer {
            try ScriptedServer(script: [.expectRequest, .sleep(.milliseconds(200)), cannedResponse("late body")])
        }

        @Test("a request suspended while on the wire finishes only after resume, with the whole body")
        func suspendedRequestWaitsForResume() async throws {
            let server = try lateServer()
            defer { server.stop() }
            let monitor = LifetimeMonitor()
            let session = Session(eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let finished = Atomic<Bool>(false)
            let done = Task {
                let response = await request.serializingString().response
                finished.store(true, ordering: .relaxed)
                return response
            }
            #expect(server.waitForConnections(1))
            request.suspend()
            #expect(request.state == .suspended)
            // The response is sent 200 ms after the request arrived; the request must hold.
            try await Task.sleep(for: .milliseconds(800))
            let finishedWhileSuspended = finished.load(ordering: .relaxed)
            #expect(!finishedWhileSuspended)
            #expect(request.state == .suspended)
            request.resume()
            let response = await done.value
            #expect(response.value == "late body")
            #expect(request.state == .finished)
            #expect(monitor.count("suspendTask") == 1 && monitor.count("suspend") == 1)
        }

        @Test("a request suspended on the wire can be cancelled")
        func suspendedRequestCancels() async throws {
            let server = try lateServer()
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/")
            let done = Task { await request.serializingString().response }
            #expect(server.waitForConnections(1))
            request.suspend()
            try await Task.sleep(for: .milliseconds(400))
            request.cancel()
            let response = await done.value
            #expect(response.error?.isExplicitlyCancelledError == true)
            #expect(request.state == .cancelled)
        }
    }
}
