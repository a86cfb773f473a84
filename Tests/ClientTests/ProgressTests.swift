// Upload and download progress against ScriptedServer: the numbers Alamofire reports on Apple
// platforms (total from Content-Length, -1 while unknown, 100% at the end), delivery on the
// handler's queue, coalescing while a delivery is pending, and the async streams.
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

/// Records (completed, total) each time a progress handler runs.
final class ProgressLog: Sendable {
    private let entries = Mutex<[(completed: Int64, total: Int64)]>([])
    /// Where the handler runs.
    let queue = DispatchQueue(label: "progress-log")

    /// The handler to install.
    var handler: Request.ProgressHandler {
        { [self] progress in
            let entry = (progress.completedUnitCount, progress.totalUnitCount)
            self.entries.withLock { $0.append(entry) }
        }
    }

    /// What was recorded, once every queued delivery ran.
    var recorded: [(completed: Int64, total: Int64)] {
        queue.sync {}
        return entries.withLock { $0 }
    }
}

extension ClientIntegrationTests {
    @Suite("Progress")
    struct ProgressTests {
        let session = Session()

        @Test("download with a Content-Length: the total from the head, counts rising to 100%")
        func knownLength() async throws {
            let body = [UInt8](repeating: 0x61, count: 300_000)
            let server = try ScriptedServer(script: [.expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n".utf8) + body)])
            defer { server.stop() }
            let log = ProgressLog()
            let request = session.request(loopbackURL(server)).downloadProgress(queue: log.queue, closure: log.handler)
            let response = await request.serializingData().response
            #expect(response.value?.count == 300_000)
            let recorded = log.recorded
            try #require(!recorded.isEmpty)
            #expect(recorded.allSatisfy { $0.total == 300_000 })
            #expect(recorded.map(\.completed) == recorded.map(\.completed).sorted())
            #expect(recorded.last?.completed == 300_000)
            #expect(request.downloadProgress.fractionCompleted == 1)
            #expect(request.downloadProgress.isFinished)
            #expect(request.uploadProgress.totalUnitCount == 0, "a GET sends no body")
        }

        @Test("chunked download: total unknown (-1) while it runs, the count received at the end")
        func chunked() async throws {
            var bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<20 { bytes += Array("2710\r\n".utf8) + [UInt8](repeating: 0x62, count: 10_000) + [13, 10] }
            bytes += Array("0\r\n\r\n".utf8)
            let server = try ScriptedServer(script: [.expectRequest, .send(Array(bytes[..<60_000])), .sleep(.milliseconds(50)),
                                                     .send(Array(bytes[60_000...]))])
            defer { server.stop() }
            let log = ProgressLog()
            let request = session.request(loopbackURL(server)).downloadProgress(queue: log.queue, closure: log.handler)
            let response = await request.serializingData().response
            #expect(response.value?.count == 200_000)
            let recorded = log.recorded
            try #require(recorded.count >= 2, "\(recorded)")
            #expect(recorded.first?.total == -1)
            #expect(recorded.dropLast().allSatisfy { $0.total == -1 })
            #expect(recorded.last.map { $0.completed == 200_000 && $0.total == 200_000 } == true, "\(recorded)")
            #expect(request.downloadProgress.fractionCompleted == 1)
        }

        @Test("multipart upload: body bytes written out of the framed length, ending at 100%")
        func multipartUpload() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("stored")])
            defer { server.stop() }
            let log = ProgressLog()
            let payload = Data(pseudoRandomBytes(count: 500_000, seed: 7))
            let request = session.upload(multipartFormData: { form in
                form.append(payload, withName: "file", fileName: "a.bin", mimeType: "application/octet-stream")
                form.append(Data("v".utf8), withName: "field")
            }, to: loopbackURL(server, "/upload")).uploadProgress(queue: log.queue, closure: log.handler)
            let response = await request.serializingString().response
            #expect(response.value == "stored", "\(response.result)")
            let sent = try #require(server.requests.first.map { splitRequest($0).body.count })
            let recorded = log.recorded
            try #require(!recorded.isEmpty)
            #expect(recorded.allSatisfy { $0.total == Int64(sent) })
            #expect(recorded.last?.completed == Int64(sent))
            #expect(request.uploadProgress.fractionCompleted == 1)
            #expect(request.metrics?.transactionMetrics.first?.countOfRequestBodyBytesSent == Int64(sent))
        }

        @Test("a blocked handler queue gets one delivery, with the final numbers, not one per read")
        func coalesced() async throws {
            let body = [UInt8](repeating: 0x63, count: 2_000_000)
            let server = try ScriptedServer(script: [.expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n".utf8) + body)])
            defer { server.stop() }
            let log = ProgressLog()
            log.queue.suspend()
            let request = session.request(loopbackURL(server)).downloadProgress(queue: log.queue, closure: log.handler)
            let response = await request.serializingData().response
            #expect(response.value?.count == 2_000_000)
            log.queue.resume()
            let recorded = log.recorded
            #expect(recorded.count == 1, "\(recorded.count) deliveries queued while the queue was blocked")
            #expect(recorded.last?.completed == 2_000_000)
        }

        @Test("async stream: values until the request finished, the last at 100%")
        func asyncStream() async throws {
            let body = [UInt8](repeating: 0x64, count: 100_000)
            let server = try ScriptedServer(script: [.expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".utf8) + body)])
            defer { server.stop() }
            let request = session.request(loopbackURL(server))
            let collected = Task {
                var fractions: [Double] = []
                for await progress in request.downloadProgress() { fractions.append(progress.fractionCompleted) }
                return fractions
            }
            // The stream attaches when iteration starts: give the task a moment before the body flows.
            try await Task.sleep(for: .milliseconds(50))
            let response = await request.serializingData().response
            #expect(response.value?.count == 100_000)
            let fractions = await collected.value
            #expect(!fractions.isEmpty)
            #expect(fractions.last == 1)
        }
    }
}
