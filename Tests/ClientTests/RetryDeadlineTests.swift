// Retries and the request's total deadline (`timeoutIntervalForResource`), and retried
// downloads. Lariat's total deadline spans a request's attempts (a retry passes its first
// start), so an attempt that would start at or after it could only fail with `timedOut` at once:
// such a retry is not started, and the failure that asked for it stands.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Retries and the total deadline")
    struct RetryDeadlineTests {
        @Test("RetryPolicy does not start an attempt after timeoutIntervalForResource has passed")
        func noRetryPastResourceDeadline() async throws {
            // The server takes the request and never answers: the 0.3 s total deadline ends it.
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(2))], forEveryConnection: true)
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForResource = 0.3
            let session = Session(configuration: configuration, interceptor: RetryPolicy(exponentialBackoffScale: 0.001))
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let response = await request.serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .timedOut, "\(response.result)")
            #expect(request.retryCount == 0)
            #expect(server.requests.count == 1)
        }

        @Test("a retry whose delay ends before the deadline still runs")
        func retryWithinResourceDeadline() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("x", status: "503 Service Unavailable", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForResource = 5
            let session = Session(configuration: configuration, interceptor: RetryPolicy(exponentialBackoffScale: 0.001))
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let response = await request.validate().serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(request.retryCount == 1)
        }

        @Test("a retry whose delay would end past the deadline is not scheduled")
        func delayPastResourceDeadline() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, cannedResponse("x", status: "503 Service Unavailable", extra: "Connection: close\r\n"), .close,
            ], forEveryConnection: true)
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForResource = 1
            // A 2 s first retry delay: past the 1 s deadline.
            let session = Session(configuration: configuration, interceptor: RetryPolicy(exponentialBackoffScale: 2))
            let started = ContinuousClock.now
            let request = session.request("http://127.0.0.1:\(server.port)/")
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 503)
            #expect(request.retryCount == 0 && server.requests.count == 1)
            #expect(milliseconds(since: started) < 1000)  // finished at once, not after the delay
        }
    }
}

extension ClientIntegrationTests {
    @Suite("Retried downloads")
    struct RetriedDownloadTests {
        @Test("a retried download without .removePreviousFile replaces the failed attempt's file")
        func retriedDownloadMovesAgain() async throws {
            // The 503 attempt's file is moved to the destination before validation fails; the
            // retry's move then found it there and failed (downloadedFileMoveFailed).
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("first", status: "503 Service Unavailable", extra: "Connection: close\r\n"), .close],
                [.expectRequest, cannedResponse("second")],
            ]))
            defer { server.stop() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-retry-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let target = directory.appendingPathComponent("file")
            let request = retained(Session(configuration: .ephemeral)).download(
                "http://127.0.0.1:\(server.port)/", interceptor: RetryPolicy(exponentialBackoffScale: 0.001),
                to: { _, _ in (target, []) })
            let response = await request.validate().serializingDownloadedFileURL().response
            #expect(response.value == target, "\(response.result)")
            #expect(request.retryCount == 1)
            #expect(FileManager.default.contents(atPath: target.path) == Data("second".utf8))
        }
    }
}
