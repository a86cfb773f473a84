// URLSessionTaskMetrics from real exchanges against ScriptedServer: a fresh and a reused
// connection, a retried request (one metrics object per attempt, as Apple's one task per retry),
// the server's reason phrase, and the lazy building of the transaction objects.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

/// Retries the first failure, once.
private struct RetryOnce: RequestRetrier {
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(request.retryCount == 0 ? .retry : .doNotRetry)
    }
}

extension ClientIntegrationTests {
    @Suite("Metrics")
    struct MetricsTests {
        @Test("fresh then reused connection: connect dates only on the first, counts and endpoints on both")
        func freshAndReused() async throws {
            let session = Session()
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
            let server = try ScriptedServer(script: [.expectRequest, .send(head + "ok"), .expectRequest, .send(head + "ok")])
            defer { server.stop() }
            let first = await session.request(loopbackURL(server, "/a")).serializingString().response
            let second = await session.request(loopbackURL(server, "/b")).serializingString().response
            let fresh = try #require(first.metrics?.transactionMetrics.first)
            let reused = try #require(second.metrics?.transactionMetrics.first)

            #expect(!fresh.isReusedConnection && reused.isReusedConnection)
            let start = try #require(fresh.fetchStartDate)
            let connectStart = try #require(fresh.connectStartDate)
            let connectEnd = try #require(fresh.connectEndDate)
            let requestStart = try #require(fresh.requestStartDate)
            let requestEnd = try #require(fresh.requestEndDate)
            let responseStart = try #require(fresh.responseStartDate)
            let responseEnd = try #require(fresh.responseEndDate)
            #expect(start <= connectStart && connectStart <= connectEnd && connectEnd <= requestStart)
            #expect(requestStart <= requestEnd && requestEnd <= responseStart && responseStart <= responseEnd)
            #expect(fresh.domainLookupStartDate == nil, "an IP literal needs no lookup")
            #expect(fresh.secureConnectionStartDate == nil && fresh.negotiatedTLSProtocolVersion == nil)

            #expect(reused.connectStartDate == nil && reused.connectEndDate == nil && reused.domainLookupStartDate == nil)
            #expect(reused.requestStartDate != nil && reused.responseEndDate != nil)

            for transaction in [fresh, reused] {
                #expect(transaction.networkProtocolName == "http/1.1")
                #expect(transaction.resourceFetchType == .networkLoad)
                #expect(transaction.remoteAddress == "127.0.0.1" && transaction.remotePort == server.port)
                #expect(transaction.localAddress == "127.0.0.1" && (transaction.localPort ?? 0) > 0)
                #expect(transaction.countOfResponseHeaderBytesReceived == Int64(head.utf8.count))
                #expect(transaction.countOfResponseBodyBytesReceived == 2 && transaction.countOfResponseBodyBytesAfterDecoding == 2)
                #expect(transaction.countOfRequestBodyBytesSent == 0)
                #expect(!transaction.isProxyConnection && !transaction.isCellular && !transaction.isExpensive)
                #expect(!transaction.isConstrained && !transaction.isMultipath)
            }
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(fresh.countOfRequestHeaderBytesSent == Int64(requests[0].count))
            #expect(first.metrics?.redirectCount == 0)
            #expect((first.metrics?.taskInterval.duration ?? -1) >= 0)
        }

        @Test("a host name that is resolved has lookup dates inside the connect phase")
        func lookupDates() async throws {
            let session = Session()
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let response = await session.request("http://localhost:\(server.port)/").serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let transaction = try #require(response.metrics?.transactionMetrics.first)
            let lookupStart = try #require(transaction.domainLookupStartDate)
            let lookupEnd = try #require(transaction.domainLookupEndDate)
            let connectStart = try #require(transaction.connectStartDate)
            let connectEnd = try #require(transaction.connectEndDate)
            // Lookup dates are converted from monotonic instants: allow a millisecond of skew.
            #expect(connectStart.addingTimeInterval(-0.001) <= lookupStart && lookupStart <= lookupEnd)
            #expect(lookupEnd <= connectEnd.addingTimeInterval(0.001))
        }

        @Test("a retried request: one metrics object per attempt, in order")
        func retried() async throws {
            let session = Session(interceptor: Interceptor(retriers: [RetryOnce()]))
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("busy", status: "503 Service Unavailable"),
                                                     .expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let request = session.request(loopbackURL(server)).validate()
            let response = await request.serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            #expect(request.retryCount == 1)
            let all = request.allMetrics
            try #require(all.count == 2)
            #expect(all.map { $0.transactionMetrics.count } == [1, 1])
            #expect(all[0].transactionMetrics.first?.response?.statusCode == 503)
            #expect(all[1].transactionMetrics.first?.response?.statusCode == 200)
            #expect(all[1].transactionMetrics.first?.isReusedConnection == true)
            #expect(request.firstMetrics === all[0] && request.lastMetrics === all[1] && request.metrics === all[1])
            #expect(response.metrics === all[1])
        }

        @Test("the server's reason phrase reaches HTTPURLResponse", arguments: ["200 OK", "200 Fine Thanks", "404 Nope", "200 "])
        func reasonPhrase(statusLine: String) async throws {
            let session = Session()
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("x", status: statusLine)])
            defer { server.stop() }
            let response = await session.request(loopbackURL(server)).serializingString().response
            let http = try #require(response.response)
            #expect(http.reasonPhrase == String(statusLine.dropFirst(4)))
        }

        @Test("transaction objects are built once, on first read")
        func builtOnce() async throws {
            let session = Session()
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let response = await session.request(loopbackURL(server)).serializingString().response
            let metrics = try #require(response.metrics)
            let first = try #require(metrics.transactionMetrics.first)
            #expect(metrics.transactionMetrics.first === first)
            #expect(metrics.transactionMetrics.count == 1)
        }
    }
}
