// Monitor events and metrics that join two features: a followed redirect and an answered
// challenge (their event, one metrics report per attempt with one transaction per hop), a
// decoded body's size in the metrics, upload and download byte events, a cached response, a
// data stream's validation and parsed values, an InputStream upload.
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

/// Records the events the wiring added, with a detail each, on its own queue.
private final class WiringMonitor: EventMonitor {
    let queue = DispatchQueue(label: "org.lariat.test.wiringMonitor")
    private let log = Mutex<[String]>([])
    private let metricsLog = Mutex<[URLSessionTaskMetrics]>([])

    /// The events so far, runs of one byte event collapsed.
    var events: [String] {
        queue.sync {}
        return log.withLock { entries in
            entries.enumerated().filter { index, name in
                !(index > 0 && name == entries[index - 1] && (name == "didSendBodyData" || name == "didWriteData"))
            }.map(\.element)
        }
    }
    /// Every metrics object reported by `request(_:didGatherMetrics:)`.
    var gathered: [URLSessionTaskMetrics] { queue.sync {}; return metricsLog.withLock { $0 } }
    /// Every raw event, uncollapsed.
    var raw: [String] { queue.sync {}; return log.withLock { $0 } }

    private func record(_ name: String) { log.withLock { $0.append(name) } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest) {
        record("willPerformHTTPRedirection \(response.statusCode) \(request.url?.path ?? "")")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) {
        let space = challenge.protectionSpace
        record("didReceiveChallenge \(space.realm ?? "-") \(space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic ? "basic" : "other") "
            + "\(challenge.proposedCredential?.user ?? "-") \(challenge.previousFailureCount) \(challenge.failureResponse?.statusCode ?? 0)")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) { record("didFinishCollecting") }
    func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) {
        metricsLog.withLock { $0.append(metrics) }
        record("didGatherMetrics")
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { record("taskDidComplete") }
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        record("didSendBodyData")
        record("sent \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        record("didWriteData")
        record("written \(totalBytesWritten)/\(totalBytesExpectedToWrite)")
    }
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        record("didResumeAtOffset \(fileOffset) \(expectedTotalBytes)")
    }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse) {
        record("willCacheResponse \(proposedResponse.data.count)")
    }
    func request(_ request: DataStreamRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, withResult result: Request.ValidationResult) {
        if case .success = result { record("streamDidValidate") } else { record("streamDidValidate(failure)") }
    }
    func request<Value: Sendable>(_ request: DataStreamRequest, didParseStream result: Result<Value, AFError>) { record("didParseStream") }
    func request(_ request: UploadRequest, didProvideInputStream stream: InputStream) { record("didProvideInputStream") }
}

/// A 302 to `location`.
private func redirect(to location: String) -> ScriptedServer.Step {
    .send("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 5\r\n\r\nmoved")
}

extension ClientIntegrationTests {
    @Suite("Wired events")
    struct WiredEventsTests {
        @Test("a followed redirect reports willPerformHTTPRedirection, and the attempt's metrics once, one transaction per hop")
        func redirectEventAndMetrics() async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect(to: "/next"), .expectRequest, cannedResponse("landed")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            // A cookie storage of its own: with the shared one, a cookie another test set for
            // 127.0.0.1 (cookies ignore ports) went out with the request, and a response to a
            // request with a Cookie is not storable (CacheIsolationTests), so willCacheResponse
            // came and went with the suites running beside this one.
            let configuration = URLSessionConfiguration.af.default
            configuration.httpCookieStorage = HTTPCookieStorage()
            let session = Session(configuration: configuration, eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/first")
            let response = await request.serializingString().response
            #expect(response.value == "landed")
            // The landing 200 is storable, so the session's cache is offered it first (the 302,
            // with no freshness of its own, is not storable): URLSession's order.
            #expect(monitor.events == ["taskDidComplete", "willPerformHTTPRedirection 302 /next", "willCacheResponse 6",
                                       "didFinishCollecting", "didGatherMetrics", "taskDidComplete"])
            let metrics = try #require(monitor.gathered.first)
            #expect(metrics.redirectCount == 1)
            #expect(metrics.transactionMetrics.map { $0.response?.statusCode } == [302, 200])
            #expect(request.metrics?.transactionMetrics.count == 2)
        }

        @Test("a redirect a handler declines: the 3xx is the attempt's one transaction, reported once",
              arguments: [0, 300])
        func declinedRedirect(delayMilliseconds: Int) async throws {
            let server = try ScriptedServer(script: [.expectRequest, redirect(to: "/next")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            let decline = Redirector(behavior: .modify { _, _, _ in
                if delayMilliseconds > 0 { blockingSleep(milliseconds: delayMilliseconds) }  // answer after the exchange ended
                return nil
            })
            let request = retained(Session(eventMonitors: [monitor])).request("http://127.0.0.1:\(server.port)/first").redirect(using: decline)
            let response = await request.serializingString().response
            #expect(response.response?.statusCode == 302)
            #expect(monitor.gathered.count == 1 && monitor.gathered.first?.transactionMetrics.count == 1, "\(monitor.events)")
            #expect(monitor.gathered.first?.redirectCount == 0)
        }

        @Test("an answered Basic challenge reports didReceive challenge with its realm and credential")
        func challengeEvent() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest,
                .send("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"lab\"\r\nContent-Length: 0\r\n\r\n"),
                .expectRequest, cannedResponse("in"),
            ])
            defer { server.stop() }
            let monitor = WiringMonitor()
            let session = Session(eventMonitors: [monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/private").authenticate(username: "ann", password: "pw")
            let response = await request.serializingString().response
            #expect(response.value == "in")
            #expect(monitor.events.contains("didReceiveChallenge lab basic ann 0 401"), "\(monitor.events)")
            #expect(monitor.gathered.count == 1 && monitor.gathered.first?.transactionMetrics.count == 2)
        }

        @Test("a gzip body's metrics count the decoded bytes")
        func decodedBytes() async throws {
            let plain = [UInt8](repeating: 65, count: 10_000)
            let coded = try plain.withUnsafeBytes { try ZlibCompression.compress($0, format: .gzip) }
            let server = try ScriptedServer(script: [
                .expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(coded.count)\r\n\r\n".utf8) + coded),
            ])
            defer { server.stop() }
            let request = retained(Session()).request("http://127.0.0.1:\(server.port)/")
            let response = await request.serializingData().response
            #expect(response.value?.count == plain.count)
            let transaction = try #require(request.metrics?.transactionMetrics.last)
            #expect(transaction.countOfResponseBodyBytesReceived == Int64(coded.count))
            #expect(transaction.countOfResponseBodyBytesAfterDecoding == Int64(plain.count))
        }

        @Test("an upload reports didSendBodyData up to its length; a download reports didWriteData")
        func byteEvents() async throws {
            let body = Data(repeating: 7, count: 300_000)
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok"), .expectRequest, cannedResponse("file body")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            let session = Session(eventMonitors: [monitor])
            _ = await session.upload(body, to: "http://127.0.0.1:\(server.port)/up").serializingData().response
            #expect(monitor.raw.contains("sent 300000/300000"), "\(monitor.raw.filter { $0.hasPrefix("sent") })")
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-wired-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: target) }
            _ = await session.download("http://127.0.0.1:\(server.port)/down", to: { _, _ in (target, []) }).serializingDownloadedFileURL().response
            #expect(monitor.raw.contains("written 9/9"), "\(monitor.raw.filter { $0.hasPrefix("written") })")
        }

        @Test("a data stream reports each serialized chunk and its validation (a Data handler parses nothing, as Alamofire)")
        func streamEvents() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("chunk")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session(eventMonitors: [monitor])).streamRequest("http://127.0.0.1:\(server.port)/").validate()
                .responseStream(using: StringStreamSerializer(), on: DispatchQueue(label: "c")) { stream in
                    if case .complete(let completion) = stream.event { done.deliver(completion) }
                }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error == nil)
            #expect(monitor.events.contains("didParseStream") && monitor.events.contains("streamDidValidate"), "\(monitor.events)")
        }

        @Test("an InputStream upload reports didProvideInputStream")
        func inputStreamEvent() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            _ = await retained(Session(eventMonitors: [monitor])).upload(InputStream(data: Data("abc".utf8)), to: "http://127.0.0.1:\(server.port)/")
                .serializingData().response
            #expect(monitor.events.contains("didProvideInputStream"), "\(monitor.events)")
        }

        @Test("an InputStream upload of unknown length (chunked) reports its own bytes, total -1")
        func unknownLengthUpload() async throws {
            let payload = Data(repeating: 1, count: 200_000)
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let monitor = WiringMonitor()
            let request = retained(Session(eventMonitors: [monitor])).upload(InputStream(data: payload), to: "http://127.0.0.1:\(server.port)/")
            let response = await request.serializingData().response
            #expect(response.error == nil)
            let sent = monitor.raw.filter { $0.hasPrefix("sent ") }
            #expect(sent.last == "sent 200000/-1", "\(sent)")
            #expect(request.uploadProgress.totalUnitCount == -1 && request.uploadProgress.completedUnitCount == 200_000)
        }

        @Test("a data stream's body counts in downloadProgress")
        func streamProgress() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("0123456789")])
            defer { server.stop() }
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/")
            request.responseStream(on: DispatchQueue(label: "c")) { stream in
                if case .complete(let completion) = stream.event { done.deliver(completion) }
            }
            _ = await done.response(cancelling: nil)
            #expect(request.downloadProgress.completedUnitCount == 10 && request.downloadProgress.totalUnitCount == 10)
        }
    }
}
