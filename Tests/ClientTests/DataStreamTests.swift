// DataStreamRequest against raw bytes on loopback (ScriptedServer): a stalled consumer keeps the
// buffer bounded while the server offers 64 MiB and then gets every byte exactly once; a cancel
// from inside a handler; a malformed chunk mid-stream; onHTTPResponse dispositions; the async API.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Glibc
import Synchronization
import Testing
import LariatTestSupport
@testable import Client
@testable import Transport

/// Body byte `i` of the pattern the stream tests send (251 is prime, so chunk boundaries never
/// line up with the pattern's period).
func patternByte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index % 251) }

/// `count` bytes of the pattern, built from whole periods (a per-byte map of 64 MiB takes
/// seconds in a debug build).
func patternBytes(_ count: Int) -> [UInt8] {
    let period = (0..<251).map(patternByte)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 251)
    while bytes.count < count { bytes.append(contentsOf: period) }
    bytes.removeLast(bytes.count - count)
    return bytes
}

/// Checks streamed chunks against the pattern: every byte, in order, exactly once (memcmp per
/// chunk, so the check does not slow the consumer down much).
final class PatternChecker: Sendable {
    private static let pattern = patternBytes(64 << 20)
    private let reference: [UInt8]
    private let state = Mutex<(count: Int, mismatch: Int?)>((0, nil))

    /// A checker against `reference` (the mod-251 pattern by default).
    init(reference: [UInt8] = PatternChecker.pattern) { self.reference = reference }

    /// Checks the next chunk.
    func check(_ data: Data) {
        state.withLock { state in
            let start = state.count
            state.count += data.count
            guard state.mismatch == nil else { return }
            guard state.count <= reference.count else { state.mismatch = start; return }
            let equal = data.withUnsafeBytes { chunk in
                reference.withUnsafeBytes { all in
                    memcmp(chunk.baseAddress!, all.baseAddress! + start, chunk.count) == 0
                }
            }
            if !equal { state.mismatch = start }
        }
    }
    /// Bytes checked so far.
    var count: Int { state.withLock { $0.count } }
    /// The offset of the first chunk that did not match, if any.
    var mismatch: Int? { state.withLock { $0.mismatch } }
}

extension ClientIntegrationTests {
    @Suite("DataStreamRequest")
    struct DataStreamTests {
        static let large = 64 << 20
        static let largeBody: [UInt8] = patternBytes(large)
        static let largeResponse: [ScriptedServer.Step] = [
            .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(large)\r\n\r\n"), .send(largeBody),
        ]

        /// A consumer that stalls for 1.5 s on its first chunk while the server offers 64 MiB:
        /// the bytes handed over and not processed stay under the high-water mark plus one
        /// receive buffer, the idle timeout (0.5 s) does not fire while we are the ones not
        /// reading, and once it resumes the consumer gets every byte exactly once, in order.
        @Test func stalledConsumerKeepsTheBufferBounded() async throws {
            let server = try ScriptedServer(script: Self.largeResponse, stepTimeout: .seconds(30))
            defer { server.stop() }
            let configuration = URLSessionConfiguration.default
            configuration.timeoutIntervalForRequest = 0.5
            let session = Session(configuration: configuration)
            let checker = PatternChecker()
            let peak = Atomic<Int>(0)
            let stalled = Atomic<Bool>(false)
            let queue = DispatchQueue(label: "stream-consumer")
            let request = session.streamRequest("http://127.0.0.1:\(server.port)/large")
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            request.responseStream(on: queue) { stream in
                switch stream.event {
                case .stream(.success(let data)):
                    if !stalled.exchange(true, ordering: .relaxed) {
                        // Sample what is buffered while we do not consume.
                        for _ in 0..<30 {
                            blockingSleep(milliseconds: 50)
                            let buffered = request.stream.withLock { $0.flow.buffered }
                            peak.store(max(peak.load(ordering: .relaxed), buffered), ordering: .relaxed)
                        }
                    }
                    checker.check(data)
                case .complete(let completion):
                    done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error == nil, "\(String(describing: completion.error)) after \(checker.count) bytes")
            #expect(checker.count == Self.large)
            #expect(checker.mismatch == nil, "first wrong byte at \(checker.mismatch ?? -1)")
            let bound = DataStreamRequest.maxBufferedBytes + HTTP1Connection.maxReceiveBuffer
            let measured = peak.load(ordering: .relaxed)
            print("stalled consumer: peak \(measured) bytes buffered of \(Self.large) offered (bound \(bound))")
            #expect(measured > 0 && measured <= bound, "peak buffered \(measured), bound \(bound)")
        }

        /// Reading pauses exactly on the body's last bytes (the stalled consumer holds every chunk
        /// until the buffer passes the high-water mark with the final byte), and the server then
        /// sends nothing more: resuming must still parse the body's end, which needs a parser call
        /// with no new input. (It used to wait for a socket event that never came, and failed
        /// with the 0.5 s idle timeout.)
        @Test func pauseOnTheLastBytesStillEnds() async throws {
            let size = DataStreamRequest.maxBufferedBytes + 1
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n"), .send(Array(Self.largeBody[0..<size])),
                .sleep(.seconds(3)),
            ])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.default
            configuration.timeoutIntervalForRequest = 0.5
            let checker = PatternChecker()
            let stalled = Atomic<Bool>(false)
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session(configuration: configuration)).streamRequest("http://127.0.0.1:\(server.port)/edge")
                .responseStream(on: DispatchQueue(label: "c")) { stream in
                    switch stream.event {
                    case .stream(.success(let data)):
                        if !stalled.exchange(true, ordering: .relaxed) { blockingSleep(milliseconds: 300) }
                        checker.check(data)
                    case .complete(let completion):
                        done.deliver(completion)
                    }
                }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error == nil, "\(String(describing: completion.error))")
            #expect(checker.count == size && checker.mismatch == nil)
        }

        /// `stream.cancel()` from inside the handler: no further chunk, then `.complete` with
        /// `explicitlyCancelled`.
        @Test func cancelFromInsideTheHandler() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n"),
                .sleep(.milliseconds(100)), .send("6\r\nsecond\r\n"), .sleep(.milliseconds(500)), .send("0\r\n\r\n"),
            ])
            defer { server.stop() }
            let chunks = Mutex<[String]>([])
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/chunks").responseStream(on: DispatchQueue(label: "c")) { stream in
                switch stream.event {
                case .stream(.success(let data)):
                    chunks.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
                    stream.cancel()
                case .complete(let completion):
                    done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(chunks.withLock { $0 } == ["first"])
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
        }

        /// A malformed chunk size after good chunks: the good bytes are delivered, then the
        /// completion carries a typed error (bad server response), never a truncated success.
        @Test func malformedChunkMidStream() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"),
                .sleep(.milliseconds(100)), .send("zz\r\nbad\r\n"), .close,
            ])
            defer { server.stop() }
            let received = Mutex<String>("")
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/bad").responseStreamString(on: DispatchQueue(label: "c")) { stream in
                switch stream.event {
                case .stream(.success(let text)): received.withLock { $0 += text }
                case .complete(let completion): done.deliver(completion)
                }
            }
            let completion = await done.response(cancelling: nil)
            #expect(received.withLock { $0 } == "hello")
            let urlError = completion.error?.underlyingError as? URLError
            #expect(urlError?.code == .badServerResponse, "\(String(describing: completion.error))")
            #expect((urlError?.underlyingError as? TransportError)?.kind == .malformedResponse)
        }

        /// A chunk that fails to decode, with `automaticallyCancelOnStreamError`, cancels the
        /// request even when the whole body had arrived before the chunk's handler ran (the
        /// handler's queue was busy): the completion comes after the chunks on that queue and
        /// says explicitly cancelled, as Alamofire's (its suite's
        /// testThatDataStreamIsAutomaticallyCanceledOnStreamErrorWhenEnabled, which raced).
        @Test func streamErrorCancelsAfterTheLastByte() async throws {
            struct Value: Decodable, Sendable { let a: Int }
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("not json"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let queue = DispatchQueue(label: "c")
            queue.async { usleep(300_000) }  // busy while the body arrives and the exchange ends
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x", automaticallyCancelOnStreamError: true)
                .responseStreamDecodable(of: Value.self, on: queue) { stream in
                    if case .complete(let completion) = stream.event { done.deliver(completion) }
                }
            let completion = await done.response(cancelling: nil)
            #expect(completion.response?.statusCode == 200)
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
        }

        /// `onHTTPResponse` answering `.cancel`: no chunk, the request is cancelled.
        @Test func dispositionCancel() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("body"), .sleep(.milliseconds(300))])
            defer { server.stop() }
            let chunks = Atomic<Int>(0)
            let status = Atomic<Int>(0)
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let queue = DispatchQueue(label: "c")
            retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x")
                .onHTTPResponse(on: queue) { response, decide in
                    status.store(response.statusCode, ordering: .relaxed)
                    decide(.cancel)
                }
                .responseStream(on: queue) { stream in
                    if case .complete(let completion) = stream.event { done.deliver(completion) } else { chunks.add(1, ordering: .relaxed) }
                }
            let completion = await done.response(cancelling: nil)
            #expect(status.load(ordering: .relaxed) == 200)
            #expect(chunks.load(ordering: .relaxed) == 0)
            #expect(completion.error?.isExplicitlyCancelledError == true, "\(String(describing: completion.error))")
        }

        /// `DataRequest.onHTTPResponse` answering `.allow` after a delay: the body is read after
        /// the answer and the response is complete.
        @Test func dataRequestDispositionAllow() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("whole body")])
            defer { server.stop() }
            let answered = Atomic<Bool>(false)
            let value = try await retained(Session()).request("http://127.0.0.1:\(server.port)/x")
                .onHTTPResponse(on: DispatchQueue(label: "c")) { _, decide in
                    blockingSleep(milliseconds: 100)
                    answered.store(true, ordering: .relaxed)
                    decide(.allow)
                }
                .serializingString().value
            #expect(value == "whole body")
            let wasAnswered = answered.load(ordering: .relaxed)
            #expect(wasAnswered)
        }

        /// The peer sends everything and closes both ways while reading is paused for an
        /// `onHTTPResponse` answer: over a Unix socket that is EPOLLHUP, and the socket leaves
        /// epoll. The bytes the kernel holds are still the response (fetch --unix-socket failed
        /// with "connection lost: hang-up" before).
        @Test func hangUpWhilePausedStillDeliversTheBody() async throws {
            let path = "/tmp/lariat-stream-\(UInt32.random(in: 0...UInt32.max)).sock"
            let server = try UnixSocketServer(name: path)
            defer { server.stop() }
            let encoded = path.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
            let response = await retained(Session()).request("http+unix://\(encoded)/x")
                .onHTTPResponse(on: DispatchQueue(label: "c")) { _, decide in
                    blockingSleep(milliseconds: 200)  // the server has closed by now
                    decide(.allow)
                }
                .serializingString().response
            #expect(response.value == "unix", "\(response.result)")
        }

        /// Validation fails the completion, not the chunks.
        @Test func validationFailsTheCompletion() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("nope", status: "500 Internal Server Error")])
            defer { server.stop() }
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x").validate().responseStream(on: DispatchQueue(label: "c")) { stream in
                if case .complete(let completion) = stream.event { done.deliver(completion) }
            }
            let completion = await done.response(cancelling: nil)
            #expect(completion.error?.responseCode == 500, "\(String(describing: completion.error))")
        }

        /// The async API: every byte of 8 MiB exactly once; a consumer that pauses keeps the
        /// buffer bounded (chunks count until the task takes them).
        @Test func asyncStreamingData() async throws {
            let size = 8 << 20
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n"), .send(Array(Self.largeBody[0..<size])),
            ], stepTimeout: .seconds(30))
            defer { server.stop() }
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/async")
            let checker = PatternChecker()
            var peak = 0
            var completed = false
            var first = true
            for await stream in request.streamTask().streamingData() {
                switch stream.event {
                case .stream(.success(let data)):
                    if first {
                        first = false
                        try await Task.sleep(for: .milliseconds(800))
                        peak = request.stream.withLock { $0.flow.buffered }
                    }
                    checker.check(data)
                case .complete(let completion):
                    #expect(completion.error == nil)
                    completed = true
                }
            }
            #expect(completed)
            #expect(checker.count == size && checker.mismatch == nil)
            #expect(peak > 0 && peak <= DataStreamRequest.maxBufferedBytes + HTTP1Connection.maxReceiveBuffer, "peak \(peak)")
        }

        /// `streamingDecodables`: one JSON value per chunk.
        @Test func asyncDecodables() async throws {
            struct Tick: Decodable, Sendable { let n: Int }
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{\"n\": 1}\n\r\n"),
                .sleep(.milliseconds(50)), .send("9\r\n{\"n\": 2}\n\r\n0\r\n\r\n"),
            ])
            defer { server.stop() }
            var values: [Int] = []
            for await stream in retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/j").streamTask().streamingDecodables(Tick.self) {
                if let tick = stream.value { values.append(tick.n) }
            }
            #expect(values == [1, 2])
        }
    }
}

/// Blocks the calling thread (a consumer that stalls).
func blockingSleep(milliseconds: Int) {
    let deadline = ContinuousClock.now + .milliseconds(milliseconds)
    while ContinuousClock.now < deadline { usleep(1000) }
}

extension ClientIntegrationTests.DataStreamTests {
    /// A finished stream request is released (its handlers captured it: a cycle kept it, and
    /// through it its Session and that Session's connections, alive).
    @Test func finishedRequestIsReleased() async throws {
        let server = try ScriptedServer(script: [.expectRequest, cannedResponse("x")])
        defer { server.stop() }
        weak var weakRequest: DataStreamRequest?
        do {
            let done = ResponseWaiter<DataStreamRequest.Completion>()
            let request = retained(Session()).streamRequest("http://127.0.0.1:\(server.port)/x")
            weakRequest = request
            request.responseStream(on: DispatchQueue(label: "c")) { stream in
                if let completion = stream.completion { done.deliver(completion) }
            }
            _ = await done.response(cancelling: nil)
        }
        for _ in 0..<100 where weakRequest != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(weakRequest == nil)
    }
}
