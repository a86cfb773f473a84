// RetryPolicy and ConnectionLostRetryPolicy: Alamofire's defaults asserted by value, the backoff
// table, then behaviour against ScriptedServer (the server counts the attempts) and httpbin.
// Backoff scales are a millisecond so the suites stay fast.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

@Suite("RetryPolicy defaults")
struct RetryPolicyDefaultTests {
    @Test("Alamofire's defaults, by value")
    func defaults() {
        #expect(RetryPolicy.defaultRetryLimit == 2)
        #expect(RetryPolicy.defaultExponentialBackoffBase == 2)
        #expect(RetryPolicy.defaultExponentialBackoffScale == 0.5)
        #expect(RetryPolicy.defaultRetryableHTTPMethods == [.delete, .get, .head, .options, .put, .trace])
        #expect(RetryPolicy.defaultRetryableHTTPStatusCodes == [408, 500, 502, 503, 504])
        #expect(RetryPolicy.defaultRetryableURLErrorCodes == [
            .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
            .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
            .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
            .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
            .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
        ])
        let policy = RetryPolicy.retryPolicy
        #expect(policy.retryLimit == 2 && policy.exponentialBackoffBase == 2 && policy.exponentialBackoffScale == 0.5)
        #expect(policy.retryableHTTPMethods == RetryPolicy.defaultRetryableHTTPMethods)
        #expect(policy.retryableHTTPStatusCodes == RetryPolicy.defaultRetryableHTTPStatusCodes)
        #expect(policy.retryableURLErrorCodes == RetryPolicy.defaultRetryableURLErrorCodes)
    }

    @Test("ConnectionLostRetryPolicy retries only networkConnectionLost, no status code")
    func connectionLostDefaults() {
        let policy: ConnectionLostRetryPolicy = .connectionLostRetryPolicy
        #expect(policy.retryLimit == 2 && policy.exponentialBackoffBase == 2 && policy.exponentialBackoffScale == 0.5)
        #expect(policy.retryableHTTPMethods == RetryPolicy.defaultRetryableHTTPMethods)
        #expect(policy.retryableHTTPStatusCodes.isEmpty)
        #expect(policy.retryableURLErrorCodes == [.networkConnectionLost])
        let custom = ConnectionLostRetryPolicy.connectionLostRetryPolicy(retryLimit: 5, retryableHTTPMethods: [.post])
        #expect(custom.retryLimit == 5 && custom.retryableHTTPMethods == [.post])
    }

    /// (base, scale, retry index) → delay in seconds.
    static let backoff: [(UInt, Double, Int, Double)] = [
        (2, 0.5, 0, 0.5), (2, 0.5, 1, 1), (2, 0.5, 2, 2), (3, 1, 0, 1), (3, 1, 2, 9), (2, 0.001, 3, 0.008),
    ]

    @Test("backoff: scale × base^retryCount", arguments: backoff.indices)
    func backoffTable(row: Int) {
        let (base, scale, retry, expected) = Self.backoff[row]
        #expect(abs(RetryPolicy.delay(base: base, scale: scale, retry: retry) - expected) < 1e-12)
    }
}

extension ClientIntegrationTests {
    @Suite("RetryPolicy")
    struct RetryPolicyTests {
        /// Fast backoff: 1 ms, 2 ms, 4 ms…
        let fast = RetryPolicy(exponentialBackoffScale: 0.001)

        private func url(_ server: ScriptedServer, _ path: String = "/") -> String {
            "http://127.0.0.1:\(server.port)\(path)"
        }

        /// A response that ends its connection, so each attempt is a new connection.
        private func closing(_ status: String, _ body: String = "x") -> [ScriptedServer.Step] {
            [.expectRequest, cannedResponse(body, status: status, extra: "Connection: close\r\n"), .close]
        }

        @Test("a 500 is retried up to the limit: 1 + 2 requests, retryCount 2, the last error stands")
        func retriesToLimit() async throws {
            let server = try ScriptedServer(script: closing("500 Internal Server Error"), forEveryConnection: true)
            defer { server.stop() }
            let request = retained(Session(interceptor: fast)).request(url(server))
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 500, "\(response.result)")
            #expect(request.retryCount == 2)
            #expect(server.requests.count == 3)
        }

        @Test("a 503 then a 200: one retry, success")
        func retryThenSuccess() async throws {
            let server = try ScriptedServer(scripts: .inOrder([closing("503 Service Unavailable"), [.expectRequest, cannedResponse()]]))
            defer { server.stop() }
            let request = retained(Session()).request(url(server), interceptor: fast)
            let response = await request.validate().serializingData().response
            #expect(response.value == Data("ok".utf8))
            #expect(response.response?.statusCode == 200)
            #expect(request.retryCount == 1)
            #expect(server.requests.count == 2)
        }

        @Test("POST is not retried by RetryPolicy's default methods")
        func postNotRetried() async throws {
            let server = try ScriptedServer(script: closing("500 Internal Server Error"), forEveryConnection: true)
            defer { server.stop() }
            let request = retained(Session()).request(url(server), method: .post, interceptor: fast)
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 500)
            #expect(request.retryCount == 0)
            #expect(server.requests.count == 1)
        }

        @Test("a status outside the set (404) is not retried; without validation a 500 is no error")
        func notRetryable() async throws {
            let server = try ScriptedServer(script: closing("404 Not Found"), forEveryConnection: true)
            defer { server.stop() }
            let request = retained(Session()).request(url(server), interceptor: fast)
            _ = await request.validate().serializingData().response
            #expect(request.retryCount == 0)
            let unvalidated = try ScriptedServer(script: closing("500 Internal Server Error"), forEveryConnection: true)
            defer { unvalidated.stop() }
            let plain = retained(Session()).request(url(unvalidated), interceptor: fast)
            let response = await plain.serializingData().response
            #expect(response.response?.statusCode == 500 && response.error == nil)
            #expect(plain.retryCount == 0 && unvalidated.requests.count == 1)
        }

        @Test("a refused connection (cannotConnectToHost) is retried")
        func refusedRetried() async {
            let request = retained(Session()).request("http://127.0.0.1:\(refusedPort())/", interceptor: fast)
            let response = await request.serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .cannotConnectToHost)
            #expect(request.retryCount == 2)
        }

        @Test("ConnectionLostRetryPolicy retries a connection reset in the middle of the response")
        func connectionLostRetried() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123"), .reset],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let request = retained(Session()).request(url(server), interceptor: .connectionLostRetryPolicy(exponentialBackoffScale: 0.001))
            let response = await request.serializingData().response
            #expect(response.value == Data("ok".utf8), "\(response.result)")
            #expect(request.retryCount == 1)
            #expect(server.requests.count == 2)
        }

        @Test("without a policy the mid-response drop is networkConnectionLost, sent once (no silent retry)")
        func connectionLostWithoutPolicy() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123"), .reset],
                [.expectRequest, cannedResponse()],
            ]))
            defer { server.stop() }
            let request = retained(Session()).request(url(server))
            let response = await request.serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .networkConnectionLost)
            #expect(request.retryCount == 0)
            #expect(server.requests.count == 1)
        }

        @Test("the transport's silent retry of a stale keep-alive connection is not a user retry")
        func silentRetryNotCounted() async throws {
            // Connection 0 answers once, then closes after reading the second request without a
            // byte of response: a reused connection, an idempotent GET, nothing received.
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse(), .expectRequest, .close],
                [.expectRequest, cannedResponse("again")],
            ]))
            defer { server.stop() }
            let session = Session(interceptor: fast)
            _ = await session.request(url(server)).serializingData().response
            try await Task.sleep(for: .milliseconds(50))  // the connection back in the pool, idle
            let request = session.request(url(server))
            let response = await request.serializingData().response
            #expect(response.value == Data("again".utf8), "\(response.result)")
            #expect(request.retryCount == 0)
            #expect(server.requests.count == 3, "the second request went out twice: once on the stale connection")
        }

        @Test("ConnectionLostRetryPolicy does not retry a 503")
        func connectionLostIgnoresStatus() async throws {
            let server = try ScriptedServer(script: closing("503 Service Unavailable"), forEveryConnection: true)
            defer { server.stop() }
            let request = retained(Session()).request(url(server), interceptor: .connectionLostRetryPolicy(exponentialBackoffScale: 0.001))
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 503)
            #expect(request.retryCount == 0 && server.requests.count == 1)
        }

        @Test("retries share the first attempt's resource deadline; none starts past it")
        func resourceDeadlineCoversRetries() async throws {
            let server = try ScriptedServer(script: closing("503 Service Unavailable"), forEveryConnection: true)
            defer { server.stop() }
            let configuration = URLSessionConfiguration.af.default
            configuration.timeoutIntervalForResource = 0.5
            // Attempts would start at 0, 0.3, 0.9 and 2.1 s: the second fits in the 0.5 s
            // deadline; the third would start past it, so it is not scheduled and the 503 stands
            // (it used to be scheduled and fail with timedOut at once, RetryDeadlineTests).
            let policy = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 2, exponentialBackoffScale: 0.3)
            let start = ContinuousClock.now
            let request = retained(Session(configuration: configuration, interceptor: policy)).request(url(server))
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 503, "\(response.result)")
            #expect(milliseconds(since: start) < 900)
            #expect(request.retryCount == 1)
            #expect(server.requests.count == 2)
        }

        @Test("httpbin /status/503 is retried twice", .enabled(if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"] != nil))
        func httpbin503() async throws {
            let base = try #require(ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"])
            let request = retained(Session()).request(base + "/status/503", interceptor: fast)
            let response = await request.validate().serializingData().response
            #expect(response.error?.responseCode == 503)
            #expect(request.retryCount == 2)
        }
    }
}
