// Swift concurrency and a request's lifetime: cancelling the Task (or task group) that awaits a
// serializing call cancels the request (`automaticallyCancelling`, true by default as in
// Alamofire since 5.8), unless it was turned off; a DataStreamTask consumer that cancels sees no
// chunk after its cancel.
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
    @Suite("Async cancellation")
    struct AsyncCancellationTests {
        /// A server that answers after `delay`, so a cancel lands while the request is on the wire.
        private func slowServer(delay: Duration = .seconds(3)) throws -> ScriptedServer {
            try ScriptedServer(script: [.expectRequest, .sleep(delay), cannedResponse("late")])
        }

        @Test("cancelling the Task awaiting serializingData() cancels the request")
        func dataTaskCancelledWithItsTask() async throws {
            let server = try slowServer()
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/")
            let task = Task { await request.serializingData().result }
            _ = server.waitForConnections(1)
            task.cancel()
            let result = await task.value
            #expect(result.failure?.isExplicitlyCancelledError == true)
            #expect(request.isCancelled)
        }

        @Test("cancelling a task group awaiting serializingString() cancels the request")
        func dataTaskCancelledWithItsGroup() async throws {
            let server = try slowServer()
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/")
            let task = Task {
                await withTaskGroup(of: Result<String, AFError>.self) { group in
                    group.addTask { await request.serializingString().result }
                    return await group.next()!
                }
            }
            _ = server.waitForConnections(1)
            task.cancel()
            let result = await task.value
            #expect(result.failure?.isExplicitlyCancelledError == true)
            #expect(request.isCancelled)
        }

        @Test("automaticallyCancelling: false lets the request finish after its Task was cancelled")
        func automaticCancellationOff() async throws {
            let server = try slowServer(delay: .milliseconds(200))
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/")
            let task = Task { await request.serializingString(automaticallyCancelling: false).result }
            task.cancel()
            let result = await task.value
            #expect(result.success == "late")
            #expect(!request.isCancelled)
        }

        @Test("cancelling the Task awaiting serializingDownloadedFileURL() cancels the download")
        func downloadTaskCancelledWithItsTask() async throws {
            let server = try slowServer()
            defer { server.stop() }
            let request = retained(Session()).download("http://127.0.0.1:\(server.port)/")
            let task = Task { await request.serializingDownloadedFileURL().result }
            _ = server.waitForConnections(1)
            task.cancel()
            let result = await task.value
            #expect(result.failure?.isExplicitlyCancelledError == true)
            #expect(request.isCancelled)
        }

        /// Made and awaited inside a Swift task that is already cancelled, a data or download task
        /// cancels its request before its serializer would start it: the request never resumes.
        /// Before, the serializer started it first, so on loopback it could finish before the
        /// awaiting task's cancellation reached it (seen in Alamofire's suite on one core).
        @Test("a task made inside an already cancelled Swift task never starts its request", arguments: ["data", "download"])
        func madeInCancelledTask(kind: String) async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("early")])
            defer { server.stop() }
            let monitor = RecordingMonitor()
            let session = retained(Session(eventMonitors: [monitor]))
            let url = "http://127.0.0.1:\(server.port)/"
            let (failure, cancelled) = await Task { () -> (AFError?, Bool) in
                withUnsafeCurrentTask { $0?.cancel() }
                if kind == "data" {
                    let request = session.request(url)
                    return (await request.serializingString().result.failure, request.isCancelled)
                }
                let request = session.download(url)
                return (await request.serializingString().result.failure, request.isCancelled)
            }.value
            #expect(failure?.isExplicitlyCancelledError == true)
            #expect(cancelled)
            #expect(!monitor.events.contains("requestDidResume"), "\(monitor.events)")
        }

        @Test("made inside a cancelled Swift task with automaticallyCancelling: false, the request runs")
        func madeInCancelledTaskWithoutAutomaticCancellation() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("early")])
            defer { server.stop() }
            let session = retained(Session())
            let result = await Task { () -> Result<String, AFError> in
                withUnsafeCurrentTask { $0?.cancel() }
                return await session.request("http://127.0.0.1:\(server.port)/").serializingString(automaticallyCancelling: false).result
            }.value
            #expect(result.success == "early")
        }

        @Test("a stream consumer that cancels the task after the first chunk receives no further chunk")
        func streamCancelledAfterFirstChunk() async throws {
            // Ten chunks 20 ms apart (one socket read each); the consumer waits after the first
            // until the others are buffered, then cancels.
            var script: [ScriptedServer.Step] = [.expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
            for index in 0..<10 {
                let chunk = "chunk \(index)\n"
                script += [.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n"), .sleep(.milliseconds(20))]
            }
            script += [.sleep(.seconds(2)), .send("0\r\n\r\n")]
            let server = try ScriptedServer(script: script)
            defer { server.stop() }
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/")
            let streamTask = request.streamTask()
            var received: [Data] = []
            for await data in streamTask.streamingData().compactMap(\.value) {
                received.append(data)
                if received.count == 1 {
                    try await Task.sleep(for: .milliseconds(400))  // the other nine reach the buffer
                    streamTask.cancel()
                }
            }
            #expect(request.isCancelled)
            #expect(received.count == 1)
        }
    }
}

extension Result {
    /// The failure, if any.
    fileprivate var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
    /// The success value, if any.
    fileprivate var success: Success? { if case .success(let value) = self { value } else { nil } }
}
