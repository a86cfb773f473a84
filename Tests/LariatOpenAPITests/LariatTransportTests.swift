// The generated OpenAPI client (Generated/, from openapi.yaml) on LariatTransport, against
// httpbin on loopback and ScriptedServer: JSON, a binary request body, a typed 4xx body, a
// download, a cancelled call, errors that keep Lariat's error, and the body-size limit.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import HTTPTypes
import OpenAPIRuntime
import LariatTestSupport
import LariatOpenAPI
import Synchronization
@testable import Client

/// The httpbin base URL from the environment (scripts/httpbin.sh), or nil: those tests skip.
let openAPIHTTPBin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// Retries a request once, whatever failed.
private final class RetryOnce: RequestInterceptor {
    private let retried = Mutex(false)
    func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        completion(retried.withLock { done in defer { done = true }; return done } ? .doNotRetry : .retry)
    }
}

@Suite("LariatTransport")
struct LariatTransportTests {
    /// The generated client for `base` on a fresh session (the generated type shadows the
    /// module name `Client` here).
    private func client(_ base: String, session: Session = Session(),
                        configuration: LariatTransport.Configuration = .init()) throws -> Client {
        Client(serverURL: try #require(URL(string: base)), transport: LariatTransport(session: session, configuration: configuration))
    }

    @Test("GET /get: JSON decoded into the generated type, query parameter sent",
          .enabled(if: openAPIHTTPBin != nil, "needs LARIAT_HTTPBIN"))
    func json() async throws {
        let echo = try await client(openAPIHTTPBin!).getEcho(query: .init(name: "lariat café")).ok.body.json
        #expect(echo.args?.additionalProperties["name"] == "lariat café")
        // httpbin echoes the URL it decoded.
        #expect(echo.url?.hasSuffix("/get?name=lariat%20café") == true, "\(echo.url ?? "")")
    }

    @Test("POST /anything: a binary body goes up intact, chunked when its length is unknown, else Content-Length framed",
          .enabled(if: openAPIHTTPBin != nil, "needs LARIAT_HTTPBIN"))
    func binaryBody() async throws {
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7 % 95 + 32) }
        // A body of unknown length, in three chunks.
        let body = HTTPBody(AsyncStream { continuation in
            for chunk in stride(from: 0, to: bytes.count, by: 1000) { continuation.yield(ArraySlice(bytes[chunk..<chunk + 1000])) }
            continuation.finish()
        }, length: .unknown)
        let echo = try await client(openAPIHTTPBin!).postEcho(body: .binary(body)).ok.body.json
        #expect(echo.data == String(decoding: bytes, as: UTF8.self))
        // Streamed as it comes: chunked, since nobody said how long it is.
        #expect(echo.headers?.additionalProperties["Transfer-Encoding"] == "chunked")
        // A known length is sent as Content-Length.
        let known = try await client(openAPIHTTPBin!).postEcho(body: .binary(HTTPBody(bytes))).ok.body.json
        #expect(known.data == String(decoding: bytes, as: UTF8.self))
        #expect(known.headers?.additionalProperties["Content-Length"] == "3000")
    }

    @Test("a request body over the configured limit fails with requestBodyTooLarge (before anything is sent when its length is known)")
    func bodyLimit() async throws {
        let server = try ScriptedServer(script: [.waitForClientClose])
        defer { server.stop() }
        let client = try client("http://127.0.0.1:\(server.port)", configuration: .init(maximumRequestBodySize: 10))
        for length in [HTTPBody.Length.known(11), .unknown] {
            do {
                _ = try await client.postEcho(body: .binary(HTTPBody(Array(repeating: UInt8(1), count: 11)[...], length: length)))
                Issue.record("no error")
            } catch let error as ClientError {
                #expect(error.underlyingError as? LariatTransportError == .requestBodyTooLarge(limit: 10))
            }
        }
        #expect(server.requests.isEmpty)
    }

    @Test("a 4xx with a JSON body is a typed response, not an error")
    func typedClientError() async throws {
        let problem = #"{"title":"nope"}"#
        let server = try ScriptedServer(script: [
            .expectRequest,
            .send("HTTP/1.1 422 Unprocessable Content\r\nContent-Type: application/json\r\nContent-Length: \(problem.utf8.count)\r\n\r\n\(problem)"),
        ])
        defer { server.stop() }
        let output = try await client("http://127.0.0.1:\(server.port)").getStatus(path: .init(code: 422))
        guard case .clientError(let status, let payload) = output else {
            Issue.record("expected clientError, got \(output)")
            return
        }
        #expect(status == 422)
        #expect(try payload.body.json.title == "nope")
        let request = String(decoding: try #require(server.requests.first), as: UTF8.self)
        #expect(request.hasPrefix("GET /status/422 HTTP/1.1\r\n"), "\(request)")
        #expect(request.lowercased().contains("\r\naccept: application/json\r\n"), "\(request)")
    }

    @Test("GET /bytes/n: the binary body streamed into HTTPBody, with its known length",
          .enabled(if: openAPIHTTPBin != nil, "needs LARIAT_HTTPBIN"))
    func download() async throws {
        let body = try await client(openAPIHTTPBin!).getBytes(path: .init(n: 50_000)).ok.body.binary
        #expect(body.length == .known(50_000))
        let bytes = try await [UInt8](collecting: body, upTo: 100_000)
        #expect(bytes.count == 50_000)
    }

    // A server that never answers (not httpbin's /delay: under the full suite's load the
    // cooperative pool is starved for seconds, so only "it ended, and the connection was closed,
    // long before any answer" is a sound check, not a tight time bound).
    @Test("cancelling mid-upload: the streamed request body stops being produced and the connection closes")
    func cancelledUpload() async throws {
        let server = try ScriptedServer(script: [.receive(atLeast: 1 << 20), .waitForClientClose], stepTimeout: .seconds(60))
        defer { server.stop() }
        let client = try client("http://127.0.0.1:\(server.port)")
        let produced = ProducedBytes()
        let body = HTTPBody(CountingBody(total: 1 << 30, produced: produced), length: .unknown, iterationBehavior: .single)
        let task = Task { try await client.postEcho(body: .binary(body)) }
        for _ in 0..<3000 where produced.count < 2 << 20 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(produced.count >= 2 << 20, "the upload is under way")
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the cancelled upload succeeded")
            return
        }
        let underlying = (error as? ClientError)?.underlyingError ?? error
        #expect(underlying is CancellationError, "\(error)")
        #expect(server.waitForConnections(1, finished: true, timeout: .seconds(30)), "the client closed the connection")
        let after = produced.count
        try await Task.sleep(for: .milliseconds(200))
        #expect(produced.count <= after + (64 << 10), "the body stopped being produced")
        // The server stopped reading after 1 MiB: back-pressure kept the rest unproduced.
        #expect(after < 16 << 20, "produced \(after) bytes")
    }

    @Test("cancelling the task cancels the request: GET /delay/60 ends with CancellationError and the connection closes")
    func cancelled() async throws {
        let server = try ScriptedServer(script: [.expectRequest, .waitForClientClose], stepTimeout: .seconds(60))
        defer { server.stop() }
        let client = try client("http://127.0.0.1:\(server.port)")
        let start = ContinuousClock.now
        let task = Task { try await client.getDelay(path: .init(n: 60)) }
        for _ in 0..<2000 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.requests.count == 1, "the request reached the server")
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(45))
        guard case .failure(let error) = result else {
            Issue.record("the cancelled call succeeded")
            return
        }
        let underlying = (error as? ClientError)?.underlyingError ?? error
        #expect(underlying is CancellationError, "\(error)")
        #expect(server.waitForConnections(1, finished: true, timeout: .seconds(30)), "the client closed the connection")
        #expect(server.clientClosed(connection: 0))
        #expect(server.failures.isEmpty, "\(server.failures)")
    }

    @Test("a body iterated from a cancelled task ends with CancellationError, never a short success")
    func bodyIterationCancelled() async throws {
        // Headers and a first part at once, the rest never: the body cannot end on its own.
        let server = try ScriptedServer(script: [
            .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"),
            .send([UInt8](repeating: 7, count: 1000)), .sleep(.seconds(10)),
        ])
        defer { server.stop() }
        let body = try await client("http://127.0.0.1:\(server.port)").getBytes(path: .init(n: 100_000)).ok.body.binary
        let task = Task {
            var count = 0
            for try await chunk in body { count += chunk.count }
            return count
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("iteration succeeded: \(result)")
            return
        }
        #expect(error is CancellationError, "\(error)")
    }

    @Test("a refused connection: ClientError keeps Lariat's AFError and its URLError")
    func errorMapping() async throws {
        do {
            _ = try await client("http://127.0.0.1:1").getStatus(path: .init(code: 200))
            Issue.record("no error")
        } catch let error as ClientError {
            let afError = try #require(error.underlyingError as? AFError, "\(error.underlyingError)")
            #expect((afError.underlyingError as? URLError)?.code == .cannotConnectToHost, "\(afError)")
            #expect(error.operationID == "getStatus")
        }
    }

    @Test("a connection lost mid-body fails the iteration, never a truncated success")
    func truncatedBody() async throws {
        let server = try ScriptedServer(script: [
            .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n"),
            .send([UInt8](repeating: 1, count: 2000)), .close,
        ])
        defer { server.stop() }
        let body = try await client("http://127.0.0.1:\(server.port)").getBytes(path: .init(n: 5000)).ok.body.binary
        await #expect(throws: (any Error).self) { _ = try await [UInt8](collecting: body, upTo: 10_000) }
    }

    @Test("a retry after the head was returned fails the body: the bytes handed out cannot be taken back")
    func retryAfterHead() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 4000\r\n\r\n"
        let server = try ScriptedServer(scripts: .inOrder([
            [.expectRequest, .send(head), .send([UInt8](repeating: 1, count: 1000)), .reset],
            [.expectRequest, .send(head), .send([UInt8](repeating: 2, count: 4000))],
        ]))
        defer { server.stop() }
        let session = Session(interceptor: RetryOnce())
        let body = try await client("http://127.0.0.1:\(server.port)", session: session).getBytes(path: .init(n: 4000)).ok.body.binary
        await #expect(throws: LariatTransportError.retriedAfterResponse) { _ = try await [UInt8](collecting: body, upTo: 10_000) }
    }
}

/// Bytes a ``CountingBody`` made so far.
private final class ProducedBytes: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }
    func add(_ n: Int) { value.add(n, ordering: .relaxed) }
}

/// `total` bytes made 64 KiB at a time as they are iterated, counting what was made.
private struct CountingBody: AsyncSequence, Sendable {
    let total: Int
    let produced: ProducedBytes

    struct AsyncIterator: AsyncIteratorProtocol {
        var left: Int
        let produced: ProducedBytes
        mutating func next() async -> ArraySlice<UInt8>? {
            guard left > 0 else { return nil }
            let n = Swift.min(left, 64 << 10)
            left -= n
            produced.add(n)
            return ArraySlice(repeating: 0x75, count: n)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: total, produced: produced) }
}
