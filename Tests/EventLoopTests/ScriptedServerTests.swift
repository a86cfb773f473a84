// The test server itself: request framing, script order, failures, half-close, prompt stop.
@testable import EventLoop
import LariatTestSupport
import Testing

extension EventLoopTests {
    @Suite struct RequestFramerTests {
        // (scenario, raw bytes, expected frame of the whole input)
        static let fixtures: [(String, String, RequestFramer.Frame)] = [
            ("GET without body", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", .complete(27)),
            ("Content-Length body", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", .complete(43)),
            ("header name case and spacing", "POST / HTTP/1.1\r\ncontent-LENGTH:\t 2 \r\n\r\nhi", .complete(42)),
            ("chunked with extension and trailer",
             "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nT: v\r\n\r\n", .complete(72)),
            ("chunked, two chunks", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n", .complete(71)),
            ("pipelined: first request only", "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n", .complete(19)),
            ("bad Content-Length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .malformed("Content-Length: -1")),
            ("bad chunk size", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformed("chunk size zz")),
            ("chunk without CRLF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc", .malformed("chunk data not followed by CRLF")),
        ]

        @Test(arguments: fixtures)
        func framesWholeInputAndEveryPrefixIsIncomplete(scenario: String, text: String, expected: RequestFramer.Frame) {
            let bytes = Array(text.utf8)
            #expect(RequestFramer.frame(bytes) == expected, "\(scenario)")
            guard case .complete(let length) = expected else { return }
            for cut in 0..<length {
                #expect(RequestFramer.frame(Array(bytes.prefix(cut))) == .incomplete, "\(scenario), cut at \(cut)")
            }
            // Trailing bytes never change where the first request ends.
            #expect(RequestFramer.frame(bytes + Array("GARBAGE".utf8)) == expected)
        }
    }

    @Suite struct ScriptedServerTests {
        @Test func expectRequestRecordsRawRequestsIncludingChunkedBodies() async throws {
            let first = "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            let second = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n"
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 204 No Content\r\n\r\n"),
                .expectRequest, .send("HTTP/1.1 204 No Content\r\n\r\n"),
                .waitForClientClose,
            ])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            // Both requests in one write, split mid-chunk: framing must not depend on read boundaries.
            let bytes = Array((first + second).utf8)
            _ = await writev([Array(bytes.prefix(55)), Array(bytes.dropFirst(55))], to: socket)
            #expect(await eventually(on: loop) { recorder.value.received.count == 54 })
            await close(socket)
            #expect(server.waitForConnections(1, finished: true))
            #expect(server.requests == [Array(first.utf8), Array(second.utf8)])
            #expect(server.requests(onConnection: 0).count == 2)
            #expect(server.failures.first == nil)
        }

        @Test func scriptsRunInConnectionOrderAndExtraConnectionsAreFailures() async throws {
            let server = try ScriptedServer(scripts: .inOrder([[.send("one"), .close], [.send("two"), .close]]))
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            for expected in ["one", "two"] {
                let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
                #expect(await eventually(on: loop) { recorder.value.endOfStream })
                #expect(await onLoop(loop) { recorder.value.received } == Array(expected.utf8))
                await close(socket)
            }
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            #expect(server.waitForConnections(3, finished: true))
            await close(socket)
            #expect(server.failures == ["connection #2: unexpected connection: no script left"])
        }

        @Test func mismatchesAndTimeoutsAreRecorded() async throws {
            let server = try ScriptedServer(scripts: .inOrder([[.expect("right")], [.expectRequest]]),
                                            stepTimeout: .milliseconds(50))
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let wrong = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            _ = await writev([Array("wrong".utf8)], to: wrong)
            #expect(await within(.seconds(5)) { !server.failures.isEmpty })  // the script ends at the mismatch...
            #expect(server.failures.first?.hasPrefix("connection #0: step #0 expectBytes(5 bytes): expected \"right\", got \"wrong\"") == true)
            await close(wrong)  // ...then the connection waits for our close
            #expect(server.waitForConnections(1, finished: true))
            let silent = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            #expect(await within(.seconds(5)) { server.failures.count == 2 })
            #expect(server.failures.last?.contains("timed out waiting for a complete request") == true)
            await close(silent)
        }

        @Test func shutdownWriteSendsFinButKeepsReading() async throws {
            let server = try ScriptedServer(script: [.send("last words"), .shutdownWrite, .expect("reply"), .waitForClientClose])
            defer { server.stop() }
            let loop = EventLoopGroup.shared.next()
            let (socket, recorder) = try await connectRecording(host: "127.0.0.1", port: server.port, on: loop)
            #expect(await eventually(on: loop) { recorder.value.endOfStream })
            _ = await writev([Array("reply".utf8)], to: socket)
            await close(socket)
            #expect(server.waitForConnections(1, finished: true))
            #expect(server.failures.first == nil)
            #expect(server.receivedBytes(onConnection: 0) == Array("reply".utf8))
            #expect(server.clientClosed(connection: 0))
        }

        @Test func stopIsPromptAndClosesEveryDescriptor() async throws {
            let baseline = openFileDescriptorCount()
            let server = try ScriptedServer(script: [.sleep(.seconds(30))], forEveryConnection: true)
            let loop = EventLoopGroup.shared.next()
            let socket = try await connect(host: "127.0.0.1", port: server.port, on: loop).get()
            #expect(server.waitForConnections(1))
            let start = ContinuousClock.now
            server.stop()
            #expect(ContinuousClock.now - start < .milliseconds(500))
            await close(socket)
            // The listener, the accepted socket and ours: none is left on the port. (The whole
            // process's count moves with the suites running beside this one.)
            #expect(openSocketDescriptors(touchingPort: server.port).isEmpty)
            #expect(await DescriptorLeakTests.settles(at: baseline, cycles: 2 * DescriptorLeakTests.concurrentSlack))
        }
    }
}

/// Polls `condition` (any thread) until it holds or `timeout` passes.
func within(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
