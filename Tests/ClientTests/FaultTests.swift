// Transport faults against ScriptedServer (raw bytes on loopback): each scenario asserts the exact
// AFError / URLError code a caller sees, and the typed error kept underneath it.
//
// The integration suites (faults, httpbin, descriptors) are nested in one `.serialized` parent so
// they never run at the same time: the descriptor suite counts every open fd of the process.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import Wire
import LariatTestSupport
@testable import Client
@testable import Transport

/// Parent of the suites that open sockets; `.serialized` keeps them from overlapping.
@Suite("Client integration", .serialized)
struct ClientIntegrationTests {}

// MARK: Helpers shared by the integration suites

/// The `URLError` inside `AFError.sessionTaskFailed`, or nil for any other outcome.
func sessionTaskURLError<Value>(_ result: Result<Value, AFError>) -> URLError? {
    guard case .failure(let error) = result, case .sessionTaskFailed(let underlying) = error else { return nil }
    return underlying as? URLError
}

/// The `TransportError` carried by a `URLError` produced by Lariat.
func transportError(_ error: URLError?) -> TransportError? {
    error?.underlyingError as? TransportError
}

extension ClientIntegrationTests {
    @Suite("Faults")
    struct FaultTests {
        let session = Session()

        private func url(_ server: ScriptedServer, _ path: String = "/") -> String {
            "http://127.0.0.1:\(server.port)\(path)"
        }

        /// GET with a per-request timeout (URLRequest.timeoutInterval).
        private func get(_ url: String, timeout: TimeInterval = 5) async -> AFDataResponse<Data> {
            await session.request(url, requestModifier: { $0.timeoutInterval = timeout }).serializingData().response
        }

        @Test("connection refused -> cannotConnectToHost")
        func refused() async {
            let response = await get("http://127.0.0.1:\(refusedPort())/")
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .cannotConnectToHost)
            #expect(transportError(error)?.kind == .connectionRefused)
        }

        @Test("unknown host -> cannotFindHost")
        func unknownHost() async {
            let response = await get("http://nonexistent.invalid/")
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .cannotFindHost)
            #expect(transportError(error)?.kind == .hostNotFound)
        }

        @Test("stall before the head, or in the middle of it -> timedOut",
              arguments: [
                  // nothing after the request
                  [ScriptedServer.Step.expectRequest, .sleep(.seconds(4)), .close],
                  // half a head, then silence
                  [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Le"), .sleep(.seconds(4)), .close],
                  // head and part of the body, then silence
                  [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123"), .sleep(.seconds(4)), .close],
              ])
        func stall(script: [ScriptedServer.Step]) async throws {
            let server = try ScriptedServer(script: script)
            defer { server.stop() }
            let start = ContinuousClock.now
            let response = await get(url(server), timeout: 0.4)
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .timedOut)
            #expect(transportError(error)?.kind == .timedOut)
            #expect(milliseconds(since: start) < 2_000)
            #expect(server.requests.count == 1)
        }

        @Test("connect that never completes (full accept queue) -> timedOut")
        func connectTimeout() async throws {
            let listener = try FullBacklogListener()
            defer { listener.close() }
            let start = ContinuousClock.now
            let response = await get("http://127.0.0.1:\(listener.port)/", timeout: 0.4)
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .timedOut)
            #expect(transportError(error)?.kind == .timedOut)
            #expect(milliseconds(since: start) < 2_000)
        }

        @Test("close in the middle of a chunked body -> networkConnectionLost, Wire truncated-body underneath")
        func closeMidChunkedBody() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"), .close,
            ])
            defer { server.stop() }
            let response = await get(url(server))
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .networkConnectionLost)
            #expect((transportError(error)?.underlying as? WireError)?.rule == .truncatedBody)
        }

        @Test("body delimited by the server's close is complete")
        func closeDelimitedBody() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\n\r\nuntil close"), .close])
            defer { server.stop() }
            let response = await get(url(server))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "until close")
        }

        @Test("close in the middle of the body -> networkConnectionLost, Wire truncated-body underneath")
        func closeMidBody() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), .close,
            ])
            defer { server.stop() }
            let response = await get(url(server))
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .networkConnectionLost)
            let transport = transportError(error)
            #expect(transport?.kind == .connectionLost)
            #expect((transport?.underlying as? WireError)?.rule == .truncatedBody)
            #expect(response.response?.statusCode == 200)
        }

        @Test("reset after the request -> networkConnectionLost")
        func reset() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .reset])
            defer { server.stop() }
            let response = await get(url(server))
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .networkConnectionLost)
            #expect(transportError(error)?.kind == .connectionLost)
            #expect(server.connectionCount == 1)
        }

        @Test("malformed response -> badServerResponse with the Wire rule underneath",
              arguments: [
                  // Content-Length and Transfer-Encoding together (request smuggling shape)
                  ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                   WireError.Rule.contentLengthWithTransferEncoding),
                  // not an HTTP status line
                  ("HTTX/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", WireError.Rule.version),
                  // status code with letters
                  ("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", WireError.Rule.statusCode),
              ])
        func malformed(bytes: String, rule: WireError.Rule) async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send(bytes), .close])
            defer { server.stop() }
            let response = await get(url(server))
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .badServerResponse)
            let transport = transportError(error)
            #expect(transport?.kind == .malformedResponse)
            #expect((transport?.underlying as? WireError)?.rule == rule)
            // The kind prefixes the description once ("malformed response: <the codec's reason>").
            let description = transport.map { "\($0)" } ?? ""
            #expect(description.components(separatedBy: "malformed response").count == 2, "\(description)")
        }

        @Test("idle keep-alive connection closed by the server -> next request uses a new connection")
        func idleConnectionClosed() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("one"), .close],
                [.expectRequest, cannedResponse("two")],
            ]))
            defer { server.stop() }
            let first = try await session.request(url(server)).serializingString().value
            #expect(first == "one")
            #expect(server.waitForConnections(1, finished: true, timeout: .seconds(2)))
            let second = await session.request(url(server)).serializingString().response
            #expect(second.value == "two")
            #expect(second.metrics?.transactionMetrics.first?.isReusedConnection == false)
            #expect(server.connectionCount == 2)
            #expect(server.failures.isEmpty)
        }

        @Test("reused connection dies before the response: GET is retried once on a new connection")
        func idempotentRetry() async throws {
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("one"), .expectRequest, .close],
                [.expectRequest, cannedResponse("retried")],
            ]))
            defer { server.stop() }
            let first = try await session.request(url(server, "/a")).serializingString().value
            #expect(first == "one")
            let second = await session.request(url(server, "/b")).serializingString().response
            #expect(second.value == "retried")
            #expect(server.connectionCount == 2)
            #expect(server.requests.count == 3)
            #expect(server.failures.isEmpty)
        }

        @Test("reused connection dies before the response: POST is not retried -> networkConnectionLost")
        func postNotRetried() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("one"), .expectRequest, .close])
            defer { server.stop() }
            let first = try await session.request(url(server, "/a")).serializingString().value
            #expect(first == "one")
            let second = await session.request(url(server, "/b"), method: .post, parameters: ["k": "v"]).serializingData().response
            let error = sessionTaskURLError(second.result)
            #expect(error?.code == .networkConnectionLost)
            #expect(transportError(error)?.kind == .connectionLost)
            #expect(server.connectionCount == 1)
            #expect(server.requests.count == 2)
        }

        @Test("CR LF in a header value fails the request before a byte is sent")
        func headerInjection() async throws {
            let server = try ScriptedServer(script: [.waitForClientClose], stepTimeout: .seconds(3))
            defer { server.stop() }
            do {
                let session = Session()
                let headers: HTTPHeaders = ["X-Evil": "a\r\nInjected: yes"]
                let response = await session.request(url(server), headers: headers).serializingData().response
                let error = sessionTaskURLError(response.result)
                #expect(error?.code == .badURL)
                let transport = transportError(error)
                #expect(transport?.kind == .invalidRequest)
                #expect((transport?.underlying as? WireError)?.rule == .requestFieldValue)
            }
            // The session is gone, so its idle connection (if one was opened) is closed.
            server.waitForConnections(server.connectionCount, finished: true, timeout: .seconds(3))
            for index in 0..<server.connectionCount {
                #expect(server.receivedBytes(onConnection: index).isEmpty)
            }
            #expect(server.failures.isEmpty)
        }

        @Test("cancel() during a stalled response -> explicitlyCancelled at once")
        func cancelStalled() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(5)), .close])
            defer { server.stop() }
            let task = session.request(url(server)).serializingData()
            let deadline = ContinuousClock.now + .seconds(3)
            while server.requests.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.requests.count == 1)
            let start = ContinuousClock.now
            task.cancel()
            let response = await task.response
            #expect(milliseconds(since: start) < 500)
            guard case .failure(let error) = response.result else {
                Issue.record("a cancelled request succeeded")
                return
            }
            #expect(error.isExplicitlyCancelledError)
        }

        @Test("a Session released with an idle keep-alive connection closes it (regression: unowned pool)")
        func sessionReleasedWithIdleConnection() async throws {
            let rounds = 20
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse(), .waitForClientClose], forEveryConnection: true)
            defer { server.stop() }
            for _ in 0..<rounds {
                let session = Session()
                let value = try await session.request(url(server)).serializingString().value
                #expect(value == "ok")
            }
            #expect(server.waitForConnections(rounds, finished: true, timeout: .seconds(3)), "every idle connection was closed")
            #expect(server.failures.isEmpty)
        }

        @Test("20 concurrent requests share at most 6 connections (the per-host limit) and all succeed")
        func perHostLimit() async throws {
            let serve: [ScriptedServer.Step] = [.expectRequest, .sleep(.milliseconds(30)), cannedResponse()]
            // Each connection serves up to 20 requests; ones the client closes early end in a
            // recorded expectRequest failure, which this test does not look at.
            let server = try ScriptedServer(script: Array(repeating: serve, count: 20).flatMap { $0 }, forEveryConnection: true)
            defer { server.stop() }
            let values = await withTaskGroup(of: String?.self) { group in
                for index in 0..<20 {
                    group.addTask { [session] in
                        await session.request("http://127.0.0.1:\(server.port)/\(index)").serializingString().response.value
                    }
                }
                var values: [String?] = []
                for await value in group { values.append(value) }
                return values
            }
            #expect(values.count == 20)
            #expect(values.allSatisfy { $0 == "ok" })
            #expect(server.connectionCount <= 6)
            #expect(server.requests.count == 20)
        }

        @Test("completion handler receives the response on the given queue")
        func completionHandler() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("{\"a\":1}", extra: "Content-Type: application/json\r\n")])
            defer { server.stop() }
            let queue = DispatchQueue(label: "fault-tests.completion")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let (status, body, onQueue) = await withCheckedContinuation { continuation in
                session.request(url(server)).validate().responseData(queue: queue) { response in
                    continuation.resume(returning: (response.response?.statusCode, response.value, DispatchQueue.getSpecific(key: key) == true))
                }
            }
            #expect(status == 200)
            #expect(body.map { String(decoding: $0, as: UTF8.self) } == "{\"a\":1}")
            #expect(onQueue)
        }
    }
}
