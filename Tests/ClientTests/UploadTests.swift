// Uploads (session.upload of Data, a file streamed from disk, multipart form data) against
// ScriptedServer, which records the exact bytes it received, and against httpbin, which echoes
// what it parsed. The file helpers at the top are shared with DownloadTests.swift.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client
@testable import Transport

// MARK: Helpers shared by the transfer suites

/// `count` bytes from SplitMix64 seeded with `seed`: the same bytes on every run, no patterns
/// a framing bug could hide behind.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(seed: seed)
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        let raw = UnsafeMutableRawBufferPointer(buffer)
        var offset = 0
        while offset < count {
            withUnsafeBytes(of: generator.next().littleEndian) { word in
                let n = min(8, count - offset)
                raw.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: n)
                offset += n
            }
        }
        initialized = count
    }
}

/// Where two byte sequences first differ, or nil when they are equal (a failed `==` on
/// megabytes would print every byte of both).
func byteMismatch<A: Collection<UInt8>, B: Collection<UInt8>>(_ actual: A, _ expected: B) -> String? {
    // Data's == is a memcmp; walking megabytes element by element is slow in a debug build.
    if Data(actual) == Data(expected) { return nil }
    var index = 0
    for (a, e) in zip(actual, expected) {
        if a != e { return "first difference at byte \(index): \(a) != \(e)" }
        index += 1
    }
    return "\(actual.count) bytes, expected \(expected.count)"
}

/// A raw request split at its blank line: the head as text (each line with its CRLF, without the
/// blank line) and the body.
func splitRequest(_ raw: [UInt8]) -> (head: String, body: ArraySlice<UInt8>) {
    let blank: [UInt8] = [13, 10, 13, 10]
    var index = 0
    while index + 4 <= raw.count {
        if raw[index..<(index + 4)].elementsEqual(blank) {
            return (String(decoding: raw[..<(index + 2)], as: UTF8.self), raw[(index + 4)...])
        }
        index += 1
    }
    return (String(decoding: raw, as: UTF8.self), [])
}

/// A fresh directory under the temporary directory, removed by ``remove()``.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-transfer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `name` in the directory.
    func write(_ bytes: [UInt8], named name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// `http://127.0.0.1:PORT/path` of a scripted server.
func loopbackURL(_ server: ScriptedServer, _ path: String = "/") -> String {
    "http://127.0.0.1:\(server.port)\(path)"
}

/// The httpbin base URL from the environment, or nil when the httpbin suites must be skipped.
private let httpbinBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// What httpbin echoes of an upload.
private struct UploadEcho: Decodable, Sendable {
    var data: String
    var form: [String: String]
    var files: [String: String]
    var headers: [String: String]
}

/// Which `upload(…, with: URLRequest)` form a test uses.
enum UploadWithRequest: String, CaseIterable, Sendable {
    case data, file, multipartViaFile
}

/// A file that cannot be uploaded.
enum UnreadableUpload: String, CaseIterable, Sendable {
    case missing, directory, notAFileURL

    func url(in scratch: ScratchDirectory) -> URL {
        switch self {
        case .missing: return scratch.url.appendingPathComponent("no-such-file.bin")
        case .directory: return scratch.url
        case .notAFileURL: return URL(string: "http://127.0.0.1/file.bin")!
        }
    }
}

extension ClientIntegrationTests {
    @Suite("Uploads")
    struct UploadTests {
        let session = Session()

        @Test("file upload: exact Content-Length and bytes on the wire, then the connection serves the next request",
              arguments: [
                  0, 1,
                  // around the 256 KiB read-ahead chunk of OutgoingBody
                  262_143, 262_144, 262_145,
                  // several chunks, not a multiple of any buffer size
                  3 * 1_048_576 + 7,
              ])
        func fileUpload(size: Int) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let bytes = pseudoRandomBytes(count: size, seed: UInt64(size) &+ 1)
            let file = try scratch.write(bytes, named: "upload.bin")
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("stored"), .expectRequest, cannedResponse("again")])
            defer { server.stop() }

            let first = await session.upload(file, to: loopbackURL(server, "/upload")).serializingString().response
            #expect(first.value == "stored", "\(first.result)")
            let second = await session.request(loopbackURL(server, "/next")).serializingString().response
            #expect(second.value == "again", "\(second.result)")
            #expect(second.metrics?.transactionMetrics.first?.isReusedConnection == true)

            #expect(server.connectionCount == 1)
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 2)
            let (head, body) = splitRequest(requests[0])
            #expect(head.hasPrefix("POST /upload HTTP/1.1\r\n"))
            #expect(head.contains("\r\nContent-Length: \(size)\r\n"), "\(head)")
            #expect(!head.lowercased().contains("transfer-encoding"))
            #expect(byteMismatch(body, bytes) == nil)
            #expect(splitRequest(requests[1]).head.hasPrefix("GET /next HTTP/1.1\r\n"))
            // Nothing beyond the two framed requests (no extra body bytes).
            #expect(server.receivedBytes(onConnection: 0).count == requests[0].count + requests[1].count)
            #expect(first.metrics?.transactionMetrics.first?.countOfRequestBodyBytesSent == Int64(size))
            #expect(server.failures.isEmpty)
        }

        @Test("PUT upload on a reused connection that dies mid-body is retried once on a new one, the body sent again from its start",
              arguments: [false, true])
        func retriedFromStart(fromFile: Bool) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let bytes = pseudoRandomBytes(count: 2 * 1_048_576 + 3, seed: fromFile ? 90 : 91)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, cannedResponse("first"), .receive(atLeast: 100_000), .reset],
                [.expectRequest, cannedResponse("retried")],
            ]))
            defer { server.stop() }
            let first = await session.request(loopbackURL(server, "/warm")).serializingString().response
            #expect(first.value == "first")
            let upload = fromFile
                ? session.upload(try scratch.write(bytes, named: "body.bin"), to: loopbackURL(server, "/put"), method: .put)
                : session.upload(Data(bytes), to: loopbackURL(server, "/put"), method: .put)
            let response = await upload.serializingString().response
            #expect(response.value == "retried", "\(response.result)")
            #expect(server.connectionCount == 2)
            let retried = server.requests(onConnection: 1)
            try #require(retried.count == 1)
            let (head, body) = splitRequest(retried[0])
            #expect(head.contains("\r\nContent-Length: \(bytes.count)\r\n"))
            #expect(byteMismatch(body, bytes) == nil)
        }

        @Test("Data upload with PUT: exact bytes on the wire")
        func dataUpload() async throws {
            let bytes = pseudoRandomBytes(count: 100_000, seed: 42)
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let response = await session.upload(Data(bytes), to: loopbackURL(server, "/put"), method: .put,
                                                headers: [.contentType("application/octet-stream")])
                .serializingString().response
            #expect(response.value == "ok")
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 1)
            let (head, body) = splitRequest(requests[0])
            #expect(head.hasPrefix("PUT /put HTTP/1.1\r\n"))
            #expect(head.contains("\r\nContent-Length: 100000\r\n"))
            #expect(head.contains("\r\nContent-Type: application/octet-stream\r\n"))
            #expect(byteMismatch(body, bytes) == nil)
        }

        @Test("multipart: the body on the wire is exactly the encoded form, in memory or via a temporary file",
              arguments: [UInt64(0), MultipartFormData.encodingMemoryThreshold])
        func multipartBytes(threshold: UInt64) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let attachment = try scratch.write(pseudoRandomBytes(count: 300_000, seed: 9), named: "attachment.bin")
            let form = MultipartFormData(boundary: "lariat.test.boundary")
            form.append(Data("lariat".utf8), withName: "name")
            form.append(attachment, withName: "attachment", fileName: "attachment.bin", mimeType: "application/octet-stream")
            let expected = try form.encode()
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }

            let request = session.upload(multipartFormData: form, to: loopbackURL(server, "/form"), usingThreshold: threshold)
            let response = await request.serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 1)
            let (head, body) = splitRequest(requests[0])
            #expect(head.contains("\r\nContent-Type: multipart/form-data; boundary=lariat.test.boundary\r\n"), "\(head)")
            #expect(head.contains("\r\nContent-Length: \(form.encodedLength)\r\n"))
            #expect(byteMismatch(body, expected) == nil)
            switch request.uploadable {
            case .file(let url, let shouldRemove)?:
                #expect(threshold == 0)
                #expect(shouldRemove)
                #expect(!FileManager.default.fileExists(atPath: url.path), "the multipart temporary file outlived the request")
            case .data(let data)?:
                #expect(threshold > 0)
                #expect(data == expected)
            case .stream?:
                Issue.record("a multipart form never uploads from a stream")
            case nil:
                Issue.record("no uploadable recorded")
            }
        }

        @Test("upload(_:with:) sends the URLRequest's method, target and headers with the body", arguments: UploadWithRequest.allCases)
        func withURLRequest(form: UploadWithRequest) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let bytes = pseudoRandomBytes(count: 70_000, seed: 60)
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
            defer { server.stop() }
            let urlRequest = try URLRequest(url: loopbackURL(server, "/items/7?v=2"), method: .put, headers: ["X-Lariat-Upload": "yes"])
            let multipart = MultipartFormData(boundary: "with.request.boundary")
            multipart.append(Data(bytes), withName: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
            let expected: [UInt8]
            let request: UploadRequest
            switch form {
            case .data:
                expected = bytes
                request = session.upload(Data(bytes), with: urlRequest)
            case .file:
                expected = bytes
                request = session.upload(try scratch.write(bytes, named: "body.bin"), with: urlRequest)
            case .multipartViaFile:
                expected = Array(try multipart.encode())
                request = session.upload(multipartFormData: multipart, with: urlRequest, usingThreshold: 0)
            }
            let response = await request.serializingString().response
            #expect(response.value == "ok", "\(response.result)")
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 1)
            let (head, body) = splitRequest(requests[0])
            #expect(head.hasPrefix("PUT /items/7?v=2 HTTP/1.1\r\n"), "\(head)")
            #expect(head.contains("\r\nX-Lariat-Upload: yes\r\n"))
            #expect(head.contains("\r\nContent-Length: \(expected.count)\r\n"))
            if form == .multipartViaFile {
                #expect(head.contains("\r\nContent-Type: multipart/form-data; boundary=with.request.boundary\r\n"))
            }
            #expect(byteMismatch(body, expected) == nil)
        }

        @Test("multipart cancelled as soon as it was resumed: explicitlyCancelled, no temporary file left")
        func multipartCancelledEarly() async throws {
            // The answer is late, so a cancel delayed by a busy machine still finds the request
            // running (a cancel before the exchange exists is the case this test is after).
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(1)), cannedResponse("ok")], stepTimeout: .seconds(1))
            defer { server.stop() }
            let request = session.upload(multipartFormData: { form in
                form.append(Data(pseudoRandomBytes(count: 10_000, seed: 3)), withName: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
            }, to: loopbackURL(server, "/form"), usingThreshold: 0)
            request.resume()
            request.cancel()
            let response = await request.serializingData().response
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            if case .file(let url, _)? = request.uploadable {
                #expect(!FileManager.default.fileExists(atPath: url.path), "the multipart temporary file outlived the cancelled request")
            }
        }

        @Test("the task awaiting serializingData(automaticallyCancelling: true) is cancelled during a stalled multipart upload -> explicitlyCancelled, temporary file removed")
        func awaitingTaskCancelled() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .sleep(.seconds(3)), .close])
            defer { server.stop() }
            let request = session.upload(multipartFormData: { form in
                form.append(Data("lariat".utf8), withName: "name")
            }, to: loopbackURL(server, "/form"), usingThreshold: 0)
            let waiter = Task { await request.serializingData(automaticallyCancelling: true).response }
            let deadline = ContinuousClock.now + .seconds(3)
            while server.requests.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try #require(server.requests.count == 1)
            let start = ContinuousClock.now
            waiter.cancel()
            let response = await waiter.value
            #expect(milliseconds(since: start) < 1_000)
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            guard case .file(let url, true)? = request.uploadable else {
                Issue.record("expected a temporary multipart file, got \(String(describing: request.uploadable))")
                return
            }
            #expect(!FileManager.default.fileExists(atPath: url.path), "the multipart temporary file outlived the cancelled request")
        }

        @Test("a file that cannot be read -> createUploadableFailed, nothing sent", arguments: UnreadableUpload.allCases)
        func unreadableFile(kind: UnreadableUpload) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")], stepTimeout: .seconds(1))
            defer { server.stop() }
            let response = await session.upload(kind.url(in: scratch), to: loopbackURL(server, "/upload")).serializingData().response
            guard case .failure(let error) = response.result, error.isCreateUploadableError else {
                Issue.record("expected createUploadableFailed, got \(response.result)")
                return
            }
            #expect(error.underlyingError != nil)
            #expect(server.connectionCount == 0)
            #expect(server.requests.isEmpty)
        }

        @Test("the server goes away in the middle of an 8 MiB upload -> networkConnectionLost",
              arguments: [
                  // reset as soon as the first bytes arrive (a reset before the client's connect
                  // completed would be a connect failure, not this scenario)
                  [ScriptedServer.Step.receive(atLeast: 1), .reset],
                  // reset after the head and part of the body
                  [.receive(atLeast: 256 * 1024), .reset],
                  // graceful close (FIN) after part of the body, without a response
                  [.receive(atLeast: 256 * 1024), .close],
              ])
        func serverGoneMidUpload(script: [ScriptedServer.Step]) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = try scratch.write(pseudoRandomBytes(count: 8 * 1_048_576, seed: 5), named: "big.bin")
            let server = try ScriptedServer(script: script)
            defer { server.stop() }
            let response = await session.upload(file, to: loopbackURL(server, "/upload"), requestModifier: { $0.timeoutInterval = 5 })
                .serializingData().response
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .networkConnectionLost, "\(response.result)")
            #expect(transportError(error)?.kind == .connectionLost)
            #expect(server.connectionCount == 1)
        }

        @Test("8 MiB file to a server that reads slowly arrives intact")
        func slowReader() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size = 8 * 1_048_576
            let bytes = pseudoRandomBytes(count: size, seed: 8)
            let file = try scratch.write(bytes, named: "big.bin")
            // Pauses between reads of 1 MiB: the client's socket buffer fills, its writes would
            // block, and it must wait for write readiness and resume where it stopped.
            var script: [ScriptedServer.Step] = [.sleep(.milliseconds(150))]
            for mebibyte in 1...7 {
                script += [.receive(atLeast: mebibyte * 1_048_576), .sleep(.milliseconds(60))]
            }
            script += [.expectRequest, cannedResponse("stored")]
            let server = try ScriptedServer(script: script)
            defer { server.stop() }

            let response = await session.upload(file, to: loopbackURL(server, "/upload")).serializingString().response
            #expect(response.value == "stored", "\(response.result)")
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 1)
            let (head, body) = splitRequest(requests[0])
            #expect(head.contains("\r\nContent-Length: \(size)\r\n"))
            #expect(byteMismatch(body, bytes) == nil)
            #expect(server.failures.isEmpty)
        }

        @Test("an upload that keeps moving outlasts timeoutInterval: written bytes count as progress")
        func progressResetsTimeout() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size = 16 * 1_048_576
            let bytes = pseudoRandomBytes(count: size, seed: 16)
            let file = try scratch.write(bytes, named: "big.bin")
            // Six pauses of 150 ms while the first 6 MiB are read (0.9 s in all, longer than the
            // 0.5 s timeout; each far shorter), then full speed. Kernel buffers hold a few MiB at
            // most, so the client is still writing when the pauses end.
            var script: [ScriptedServer.Step] = []
            for mebibyte in 1...6 {
                script += [.sleep(.milliseconds(150)), .receive(atLeast: mebibyte * 1_048_576)]
            }
            script += [.expectRequest, cannedResponse("stored")]
            let server = try ScriptedServer(script: script)
            defer { server.stop() }

            let response = await session.upload(file, to: loopbackURL(server, "/upload"), requestModifier: { $0.timeoutInterval = 0.5 })
                .serializingString().response
            #expect(response.value == "stored", "\(response.result)")
            let requests = server.requests(onConnection: 0)
            try #require(requests.count == 1)
            #expect(byteMismatch(splitRequest(requests[0]).body, bytes) == nil)
        }

        @Test("an upload the server stops reading -> timedOut after timeoutInterval")
        func stalledUpload() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = try scratch.write(pseudoRandomBytes(count: 16 * 1_048_576, seed: 17), named: "big.bin")
            let server = try ScriptedServer(script: [.receive(atLeast: 64 * 1024), .sleep(.seconds(5)), .close])
            defer { server.stop() }
            let start = ContinuousClock.now
            let response = await session.upload(file, to: loopbackURL(server, "/upload"), requestModifier: { $0.timeoutInterval = 0.4 })
                .serializingData().response
            let error = sessionTaskURLError(response.result)
            #expect(error?.code == .timedOut, "\(response.result)")
            #expect(transportError(error)?.kind == .timedOut)
            #expect(milliseconds(since: start) < 2_500)
        }
    }

    @Suite("Uploads to httpbin", .enabled(if: httpbinBase != nil, "LARIAT_HTTPBIN is not set: start httpbin with scripts/httpbin.sh start and export LARIAT_HTTPBIN"))
    struct HTTPBinUploadTests {
        let session = Session()

        private func url(_ path: String) -> String { (httpbinBase ?? "http://127.0.0.1:1") + path }

        @Test("Data upload: body echoed as data", arguments: [HTTPMethod.post, .put, .patch])
        func dataEcho(method: HTTPMethod) async throws {
            let text = "lariat upload via \(method.rawValue)\nsecond line"
            let echo = try await session.upload(Data(text.utf8), to: url("/\(method.rawValue.lowercased())"), method: method,
                                                headers: [.contentType("text/plain")])
                .serializingDecodable(UploadEcho.self).value
            #expect(echo.data == text)
            #expect(echo.headers["Content-Length"] == "\(text.utf8.count)")
        }

        @Test("file upload: file contents echoed as data")
        func fileEcho() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let text = String(repeating: "0123456789abcdef", count: 40_000)  // 640 000 bytes, three read-ahead chunks
            let file = try scratch.write(Array(text.utf8), named: "text.txt")
            let echo = try await session.upload(file, to: url("/post"), headers: [.contentType("text/plain")])
                .serializingDecodable(UploadEcho.self).value
            #expect(echo.data.count == text.utf8.count)
            #expect(echo.data == text)
        }

        @Test("multipart form: fields and files echoed, boundary in the Content-Type, temporary file removed",
              arguments: [(threshold: UInt64(0), viaFile: true), (threshold: MultipartFormData.encodingMemoryThreshold, viaFile: false)])
        func multipartEcho(threshold: UInt64, viaFile: Bool) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let notes = "first line\nsecond line, ünïcödé\n"
            let attachmentText = String(repeating: "attachment line\n", count: 2_000)
            let attachment = try scratch.write(Array(attachmentText.utf8), named: "attachment.txt")
            let form = MultipartFormData()
            form.append(Data("lariat".utf8), withName: "name")
            form.append(Data("swift 6".utf8), withName: "lang")
            form.append(Data(notes.utf8), withName: "notes", fileName: "notes.txt", mimeType: "text/plain")
            form.append(attachment, withName: "attachment")

            let request = session.upload(multipartFormData: form, to: url("/post"), usingThreshold: threshold)
            let echo = try await request.serializingDecodable(UploadEcho.self).value
            #expect(echo.form == ["name": "lariat", "lang": "swift 6"])
            #expect(echo.files == ["notes": notes, "attachment": attachmentText])
            #expect(echo.headers["Content-Type"] == "multipart/form-data; boundary=\(form.boundary)")
            #expect(echo.headers["Content-Length"] == "\(form.encodedLength)")

            switch request.uploadable {
            case .file(let file, let shouldRemove)?:
                #expect(viaFile)
                #expect(shouldRemove)
                // A private mkdtemp directory per body, removed with it (MultipartTemporaryFileTests).
                #expect(file.deletingLastPathComponent().lastPathComponent.hasPrefix("org.lariat.multipart."))
                #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
                #expect(!FileManager.default.fileExists(atPath: file.path), "the multipart temporary file outlived the request")
            case .data(let data)?:
                #expect(!viaFile)
                #expect(UInt64(data.count) == form.encodedLength)
            case .stream?:
                Issue.record("a multipart form never uploads from a stream")
            case nil:
                Issue.record("no uploadable recorded")
            }
        }
    }
}
