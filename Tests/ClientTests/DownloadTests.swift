// Downloads (session.download: body written to Lariat_<UUID>.download in the temporary directory,
// then moved per Destination) against ScriptedServer with known bodies, and against httpbin.
//
// The temporary directory is shared with every other process on the machine, so a test never
// counts Lariat_*.download files: it finds the one its request wrote by content (a body of
// pseudo-random bytes no one else writes) and checks that exact file.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Testing
import Wire
import LariatTestSupport
@testable import Client

/// The httpbin base URL from the environment, or nil when the httpbin suite must be skipped.
private let httpbinBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// Response bytes for a body: a head with `framing` (and `extra` fields), then the body encoded
/// that way. `.chunked` splits it into chunks of `chunkSizes`, repeated, ending with a trailer.
private enum Framing: Sendable { case contentLength, chunked([Int]), close }

private func responseBytes(_ body: [UInt8], framing: Framing, status: String = "200 OK", extra: String = "") -> [UInt8] {
    switch framing {
    case .contentLength:
        return Array("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\n\(extra)\r\n".utf8) + body
    case .close:
        return Array("HTTP/1.1 \(status)\r\nConnection: close\r\n\(extra)\r\n".utf8) + body
    case .chunked(let sizes):
        var bytes = Array("HTTP/1.1 \(status)\r\nTransfer-Encoding: chunked\r\n\(extra)\r\n".utf8)
        var offset = 0
        var turn = 0
        while offset < body.count {
            let size = min(sizes[turn % sizes.count], body.count - offset)
            bytes += Array("\(String(size, radix: 16))\r\n".utf8) + body[offset..<(offset + size)] + [13, 10]
            offset += size
            turn += 1
        }
        return bytes + Array("0\r\nX-Trailer: done\r\n\r\n".utf8)
    }
}

/// A body the download tests serve, named for the scenario.
enum DownloadBody: String, CaseIterable, Sendable {
    case empty, small, oneMiB, closeDelimited, chunkedOddSizes, chunkedLarge

    var body: [UInt8] {
        switch self {
        case .empty: return []
        case .small: return Array("hello, file".utf8)
        case .oneMiB: return pseudoRandomBytes(count: 1_048_576, seed: 101)
        case .closeDelimited: return pseudoRandomBytes(count: 200_003, seed: 102)
        case .chunkedOddSizes: return pseudoRandomBytes(count: 70_001, seed: 103)
        case .chunkedLarge: return pseudoRandomBytes(count: 2 * 1_048_576 + 5, seed: 104)
        }
    }

    fileprivate var framing: Framing {
        switch self {
        case .empty, .small, .oneMiB: return .contentLength
        case .closeDelimited: return .close
        case .chunkedOddSizes: return .chunked([1, 2, 4095, 4096, 4097, 16_384, 3])
        case .chunkedLarge: return .chunked([65_536])
        }
    }

    /// The server's steps: answer the request with the body, closing when the framing needs it.
    var script: [ScriptedServer.Step] {
        let reply = ScriptedServer.Step.send(responseBytes(body, framing: framing))
        if case .close = framing { return [.expectRequest, reply, .close] }
        return [.expectRequest, reply]
    }
}

/// How a download's body fails to complete.
enum DownloadCut: String, CaseIterable, Sendable {
    case contentLengthThenClose, chunkedThenClose
    /// Silence longer than the request's 1 s timeout.
    case stall
}

/// How a running download is cancelled.
enum DownloadCancel: String, CaseIterable, Sendable {
    case request, downloadTask, producingResumeData, byProducingResumeData
    /// The Swift task awaiting `serializingDownloadedFileURL(automaticallyCancelling: true)` is cancelled.
    case awaitingTaskCancelled
}

/// A validation added to a download, with the response it meets.
enum DownloadValidation: String, CaseIterable, Sendable {
    case notFound, serverError, wrongContentType, wrongContentTypeEmptyBody, acceptMismatch, acceptMatch

    var response: [UInt8] {
        switch self {
        case .notFound: return responseBytes(Array("no such thing".utf8), framing: .contentLength, status: "404 Not Found", extra: "Content-Type: text/plain\r\n")
        case .serverError: return responseBytes(Array("boom".utf8), framing: .contentLength, status: "500 Internal Server Error")
        case .wrongContentType: return responseBytes(Array("<p>hi</p>".utf8), framing: .contentLength, extra: "Content-Type: text/html\r\n")
        case .wrongContentTypeEmptyBody: return responseBytes([], framing: .contentLength, extra: "Content-Type: text/html\r\n")
        case .acceptMismatch: return responseBytes(Array("plain".utf8), framing: .chunked([2]), extra: "Content-Type: text/plain\r\n")
        case .acceptMatch: return responseBytes(Array("{}".utf8), framing: .chunked([1]), extra: "Content-Type: application/json; charset=utf-8\r\n")
        }
    }

    func apply(to request: DownloadRequest) -> DownloadRequest {
        switch self {
        case .notFound, .acceptMismatch, .acceptMatch: return request.validate()
        case .serverError: return request.validate(statusCode: 200..<300)
        case .wrongContentType, .wrongContentTypeEmptyBody: return request.validate(contentType: ["application/json"])
        }
    }

    var headers: HTTPHeaders? {
        switch self {
        case .acceptMismatch, .acceptMatch: return [.accept("application/json")]
        default: return nil
        }
    }

    /// `nil` when the download must succeed.
    var expectedFailure: AFError.ResponseValidationFailureReason? {
        switch self {
        case .notFound: return .unacceptableStatusCode(code: 404)
        case .serverError: return .unacceptableStatusCode(code: 500)
        case .wrongContentType: return .unacceptableContentType(acceptableContentTypes: ["application/json"], responseContentType: "text/html")
        case .acceptMismatch: return .unacceptableContentType(acceptableContentTypes: ["application/json"], responseContentType: "text/plain")
        case .wrongContentTypeEmptyBody, .acceptMatch: return nil
        }
    }
}

/// A value served as JSON and decoded from the downloaded file.
private struct Manifest: Codable, Sendable, Equatable {
    var name: String
    var version: Int
    var files: [String]
}

/// The Lariat_*.download files in the temporary directory whose contents are exactly `bytes`.
private func temporaryDownloads(containing bytes: [UInt8]) -> [URL] {
    let directory = FileManager.default.temporaryDirectory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasPrefix("Lariat_") && $0.hasSuffix(".download") }.compactMap { name in
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url), data.count == bytes.count, byteMismatch(data, bytes) == nil else { return nil }
        return url
    }
}

/// Waits (up to 3 s) until the request's temporary file holds exactly `bytes`; returns it.
private func awaitTemporaryDownload(containing bytes: [UInt8]) async throws -> URL? {
    let deadline = ContinuousClock.now + .seconds(3)
    while ContinuousClock.now < deadline {
        if let url = temporaryDownloads(containing: bytes).first { return url }
        try await Task.sleep(for: .milliseconds(5))
    }
    return nil
}

extension ClientIntegrationTests {
    @Suite("Downloads")
    struct DownloadTests {
        let session = Session()

        @Test("download without a destination: the temporary file holds exactly the body", arguments: DownloadBody.allCases)
        func bodyToTemporaryFile(body: DownloadBody) async throws {
            let expected = body.body
            let server = try ScriptedServer(script: body.script)
            defer { server.stop() }
            let request = session.download(loopbackURL(server, "/file"))
            let response = await request.serializingDownloadedFileURL().response
            let file = try #require(response.value, "\(response.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(response.fileURL == file)
            #expect(request.fileURL == file)
            #expect(file.lastPathComponent.hasPrefix("Lariat_") && file.lastPathComponent.hasSuffix(".download"))
            #expect(file.deletingLastPathComponent().standardizedFileURL.path == FileManager.default.temporaryDirectory.standardizedFileURL.path)
            #expect(FileManager.default.fileExists(atPath: file.path))
            // The temporary directory is shared: the file is the user's alone.
            let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            #expect(byteMismatch(try Data(contentsOf: file), expected) == nil)
            #expect(response.metrics?.transactionMetrics.first?.countOfResponseBodyBytesReceived == Int64(expected.count))
            #expect(server.failures.isEmpty)
        }

        @Test("20 MiB download: every byte lands in the file")
        func largeDownload() async throws {
            let expected = pseudoRandomBytes(count: 20 * 1_048_576, seed: 20)
            let server = try ScriptedServer(script: [.expectRequest, .send(responseBytes(expected, framing: .contentLength))])
            defer { server.stop() }
            let response = await session.download(loopbackURL(server, "/large")).serializingDownloadedFileURL().response
            let file = try #require(response.value, "\(response.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            let contents = try Data(contentsOf: file)
            #expect(contents.count == expected.count)
            #expect(byteMismatch(contents, expected) == nil)
        }

        @Test("six downloads at once, each from its own server: each file holds its own body")
        func concurrentDownloads() async throws {
            let bodies = (0..<6).map { pseudoRandomBytes(count: 300_000 + $0 * 1_001, seed: 70 + UInt64($0)) }
            let servers = try bodies.map { body in
                try ScriptedServer(script: [.expectRequest, .send(responseBytes(body, framing: .chunked([32_768, 7])))])
            }
            defer { servers.forEach { $0.stop() } }
            let files = await withTaskGroup(of: (Int, URL?).self) { group in
                for (index, server) in servers.enumerated() {
                    group.addTask { [session] in
                        (index, await session.download(loopbackURL(server, "/\(index)")).serializingDownloadedFileURL().response.value)
                    }
                }
                var files: [Int: URL] = [:]
                for await (index, file) in group { files[index] = file }
                return files
            }
            defer { files.values.forEach { try? FileManager.default.removeItem(at: $0) } }
            #expect(files.count == bodies.count)
            #expect(Set(files.values).count == files.count)
            for (index, body) in bodies.enumerated() {
                guard let file = files[index] else { continue }
                #expect(byteMismatch(try Data(contentsOf: file), body) == nil, "download \(index)")
            }
        }

        @Test("two downloads and a request in a row share one keep-alive connection")
        func keepAlive() async throws {
            let first = pseudoRandomBytes(count: 100_000, seed: 80)
            let second = pseudoRandomBytes(count: 100_001, seed: 81)
            let server = try ScriptedServer(script: [
                .expectRequest, .send(responseBytes(first, framing: .contentLength)),
                .expectRequest, .send(responseBytes(second, framing: .chunked([4_096]))),
                .expectRequest, cannedResponse("after"),
            ])
            defer { server.stop() }
            let one = await session.download(loopbackURL(server, "/1")).serializingData().response
            let two = await session.download(loopbackURL(server, "/2"), method: .post).serializingData().response
            let three = await session.request(loopbackURL(server, "/3")).serializingString().response
            for file in [one.fileURL, two.fileURL].compactMap({ $0 }) { try? FileManager.default.removeItem(at: file) }
            #expect(one.value.map { byteMismatch($0, first) } == .some(nil))
            #expect(two.value.map { byteMismatch($0, second) } == .some(nil))
            #expect(three.value == "after")
            #expect(two.metrics?.transactionMetrics.first?.isReusedConnection == true)
            #expect(three.metrics?.transactionMetrics.first?.isReusedConnection == true)
            #expect(server.connectionCount == 1)
            #expect(splitRequest(server.requests(onConnection: 0)[1]).head.hasPrefix("POST /2 HTTP/1.1\r\n"))
        }

        @Test("HEAD download: an empty file, and the response head")
        func headDownload() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 12345\r\nContent-Type: application/zip\r\n\r\n")])
            defer { server.stop() }
            let response = await session.download(loopbackURL(server, "/archive.zip"), method: .head).serializingDownloadedFileURL().response
            let file = try #require(response.value, "\(response.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Data(contentsOf: file).isEmpty)
            #expect(response.response?.headers["Content-Length"] == "12345")
        }

        @Test("several handlers on one download, each on its queue: response, responseURL, responseData, responseString")
        func severalHandlers() async throws {
            let text = "übertragung ✓ lariat"
            let server = try ScriptedServer(script: [.expectRequest, .send(responseBytes(Array(text.utf8), framing: .contentLength, extra: "Content-Type: text/plain; charset=utf-8\r\n"))])
            defer { server.stop() }
            let queue = DispatchQueue(label: "download-tests.handlers")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let request = session.download(loopbackURL(server, "/text"))
            async let raw: (URL??, Bool) = withCheckedContinuation { continuation in
                request.response(queue: queue) { continuation.resume(returning: ($0.value, DispatchQueue.getSpecific(key: key) == true)) }
            }
            async let url: (URL?, Bool) = withCheckedContinuation { continuation in
                request.responseURL(queue: queue) { continuation.resume(returning: ($0.value, DispatchQueue.getSpecific(key: key) == true)) }
            }
            async let data: (Data?, Bool) = withCheckedContinuation { continuation in
                request.responseData(queue: queue) { continuation.resume(returning: ($0.value, DispatchQueue.getSpecific(key: key) == true)) }
            }
            async let string: (String?, Bool) = withCheckedContinuation { continuation in
                request.responseString(queue: queue) { continuation.resume(returning: ($0.value, DispatchQueue.getSpecific(key: key) == true)) }
            }
            let results = await (raw, url, data, string)
            let file = try #require(results.1.0)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(results.0.0 == .some(file))
            #expect(results.2.0 == Data(text.utf8))
            #expect(results.3.0 == text)
            #expect([results.0.1, results.1.1, results.2.1, results.3.1] == [true, true, true, true])
        }

        @Test("destination in directories that do not exist yet: moved with createIntermediateDirectories, else downloadedFileMoveFailed",
              arguments: [DownloadRequest.Options.createIntermediateDirectories, []])
        func nestedDestination(options: DownloadRequest.Options) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let expected = pseudoRandomBytes(count: 4_096, seed: 31)
            let target = scratch.url.appendingPathComponent("a/b/c/report.bin")
            let server = try ScriptedServer(script: [.expectRequest, .send(responseBytes(expected, framing: .contentLength))])
            defer { server.stop() }
            let seen = SeenByDestination()
            let response = await session.download(loopbackURL(server, "/report"), to: { temporaryURL, response in
                seen.record(temporaryExisted: FileManager.default.fileExists(atPath: temporaryURL.path), status: response.statusCode)
                return (target, options)
            }).serializingDownloadedFileURL().response
            #expect(seen.value?.temporaryExisted == true)
            #expect(seen.value?.status == 200)

            if options.contains(.createIntermediateDirectories) {
                #expect(response.value == target, "\(response.result)")
                #expect(byteMismatch(try Data(contentsOf: target), expected) == nil)
            } else {
                guard case .failure(let error) = response.result, error.isDownloadedFileMoveError else {
                    Issue.record("expected downloadedFileMoveFailed, got \(response.result)")
                    return
                }
                #expect(error.destinationURL == target)
                let source = try #require(error.sourceURL)
                #expect(!FileManager.default.fileExists(atPath: source.path), "the temporary file outlived the failed move")
                #expect(!FileManager.default.fileExists(atPath: target.path))
                #expect(response.fileURL == nil)
            }
        }

        @Test("suggestedDownloadDestination: named from Content-Disposition (never outside the directory), in the directory if it exists, else the temporary directory",
              arguments: [
                  // (Content-Disposition before the file name, after it)
                  ("attachment; filename=\"", "\""),
                  // directory parts are dropped, so the server cannot choose where the file goes
                  ("attachment; filename=\"../../", "\""),
                  ("attachment; filename*=UTF-8''", ""),
              ])
        func suggestedDestination(before: String, after: String) async throws {
            let name = "lariat-suggested-\(UUID().uuidString).txt"
            let field = before + name + after
            let server = try ScriptedServer(script: [
                .expectRequest,
                .send(responseBytes(Array("suggested".utf8), framing: .contentLength, extra: "Content-Disposition: \(field)\r\n")),
            ])
            defer { server.stop() }
            // ~/Documents usually does not exist on a Linux machine.
            let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
            let base = documents.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil } ?? FileManager.default.temporaryDirectory
            let response = await session.download(loopbackURL(server, "/get"), to: DownloadRequest.suggestedDownloadDestination(for: .documentDirectory))
                .serializingString().response
            if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
            #expect(response.value == "suggested", "\(response.result)")
            #expect(response.fileURL?.standardizedFileURL.path == base.appendingPathComponent(name).standardizedFileURL.path)
        }

        @Test("a file already at the destination: replaced with removePreviousFile, else downloadedFileMoveFailed and left alone",
              arguments: [DownloadRequest.Options.removePreviousFile, []])
        func existingDestination(options: DownloadRequest.Options) async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let previous = Array("the previous file".utf8)
            let target = try scratch.write(previous, named: "data.bin")
            let expected = pseudoRandomBytes(count: 50_000, seed: 32)
            let server = try ScriptedServer(script: [.expectRequest, .send(responseBytes(expected, framing: .chunked([8_192])))])
            defer { server.stop() }
            let response = await session.download(loopbackURL(server, "/data"), to: { _, _ in (target, options) })
                .serializingDownloadedFileURL().response

            if options.contains(.removePreviousFile) {
                #expect(response.value == target, "\(response.result)")
                #expect(byteMismatch(try Data(contentsOf: target), expected) == nil)
            } else {
                guard case .failure(let error) = response.result, error.isDownloadedFileMoveError else {
                    Issue.record("expected downloadedFileMoveFailed, got \(response.result)")
                    return
                }
                #expect(error.destinationURL == target)
                #expect(byteMismatch(try Data(contentsOf: target), previous) == nil, "the existing file was changed")
                let source = try #require(error.sourceURL)
                #expect(!FileManager.default.fileExists(atPath: source.path), "the temporary file outlived the failed move")
            }
        }

        @Test("a body that never completes -> a typed error, and the request's temporary file removed", arguments: DownloadCut.allCases)
        func truncatedBody(cut: DownloadCut) async throws {
            let partial = pseudoRandomBytes(count: 300, seed: 40 + UInt64(cut.rawValue.count))
            // Announces 1000 bytes, sends 300, pauses so the test can find the file its request
            // is writing, then closes (or stays silent past the timeout).
            let head = cut == .chunkedThenClose
                ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
            let pause: Duration = cut == .stall ? .seconds(3) : .milliseconds(500)
            let server = try ScriptedServer(script: [.expectRequest, .send(Array(head.utf8) + partial), .sleep(pause), .close])
            defer { server.stop() }
            let task = session.download(loopbackURL(server, "/cut"), requestModifier: { $0.timeoutInterval = 1 }).serializingDownloadedFileURL()
            let temporary = try await awaitTemporaryDownload(containing: partial)
            let response = await task.response
            let error = sessionTaskURLError(response.result)
            switch cut {
            case .contentLengthThenClose, .chunkedThenClose:
                #expect(error?.code == .networkConnectionLost, "\(response.result)")
                #expect((transportError(error)?.underlying as? WireError)?.rule == .truncatedBody)
            case .stall:
                #expect(error?.code == .timedOut, "\(response.result)")
            }
            #expect(response.response?.statusCode == 200)
            #expect(response.fileURL == nil)
            let file = try #require(temporary, "the request's temporary file was never seen")
            #expect(!FileManager.default.fileExists(atPath: file.path), "the temporary file of a failed download was left behind")
        }

        @Test("cancel during a stalled download -> explicitlyCancelled at once, its temporary file removed", arguments: DownloadCancel.allCases)
        func cancelStalled(how: DownloadCancel) async throws {
            let partial = pseudoRandomBytes(count: 1_000, seed: 50 + UInt64(how.rawValue.count))
            let server = try ScriptedServer(script: [
                .expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".utf8) + partial), .sleep(.seconds(3)), .close,
            ])
            defer { server.stop() }
            let request = session.download(loopbackURL(server, "/slow"))
            let task = request.serializingDownloadedFileURL(automaticallyCancelling: how == .awaitingTaskCancelled)
            let waiter = Task { await task.response }
            let temporary = try #require(try await awaitTemporaryDownload(containing: partial), "the request's temporary file was never seen")
            let start = ContinuousClock.now
            let resumeData = ResumeDataSeen()
            switch how {
            case .request: request.cancel()
            case .downloadTask: task.cancel()
            case .producingResumeData: request.cancel(producingResumeData: true)
            case .byProducingResumeData: request.cancel(byProducingResumeData: { resumeData.record($0) })
            case .awaitingTaskCancelled: waiter.cancel()
            }
            let response = await waiter.value
            #expect(milliseconds(since: start) < 1_000)
            #expect(response.error?.isExplicitlyCancelledError == true, "\(response.result)")
            #expect(response.fileURL == nil)
            #expect(response.resumeData == nil)
            #expect(!FileManager.default.fileExists(atPath: temporary.path), "the temporary file of a cancelled download was left behind")
            if how == .byProducingResumeData {
                let deadline = ContinuousClock.now + .seconds(1)
                while !resumeData.called, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                #expect(resumeData.called)
                #expect(resumeData.data == nil)
            }
        }

        @Test("validation of a download", arguments: DownloadValidation.allCases)
        func validation(_ validation: DownloadValidation) async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send(validation.response)])
            defer { server.stop() }
            let request = validation.apply(to: session.download(loopbackURL(server, "/v"), headers: validation.headers))
            let response = await request.serializingDownloadedFileURL().response
            if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
            guard let reason = validation.expectedFailure else {
                #expect(response.value != nil, "\(response.result)")
                return
            }
            guard case .failure(.responseValidationFailed(let actual)) = response.result else {
                Issue.record("expected responseValidationFailed(\(reason)), got \(response.result)")
                return
            }
            switch (actual, reason) {
            case let (.unacceptableStatusCode(code), .unacceptableStatusCode(expected)):
                #expect(code == expected)
            case let (.unacceptableContentType(acceptable, type), .unacceptableContentType(expectedAcceptable, expectedType)):
                #expect(acceptable == expectedAcceptable)
                #expect(type == expectedType)
            default:
                Issue.record("expected \(reason), got \(actual)")
            }
        }

        @Test("JSON file decoded: responseDecodable and serializingDecodable")
        func decodable() async throws {
            let manifest = Manifest(name: "lariat", version: 3, files: ["a.swift", "b.swift"])
            let json = try JSONEncoder().encode(manifest)
            let reply = ScriptedServer.Step.send(responseBytes(Array(json), framing: .contentLength, extra: "Content-Type: application/json\r\n"))
            let server = try ScriptedServer(script: [.expectRequest, reply, .expectRequest, reply])
            defer { server.stop() }

            let viaHandler = await withCheckedContinuation { continuation in
                session.download(loopbackURL(server, "/manifest.json")).validate().responseDecodable(of: Manifest.self) { response in
                    continuation.resume(returning: response)
                }
            }
            #expect(viaHandler.value == manifest, "\(viaHandler.result)")
            let viaTask = await session.download(loopbackURL(server, "/manifest.json")).serializingDecodable(Manifest.self).response
            #expect(viaTask.value == manifest, "\(viaTask.result)")
            for file in [viaHandler.fileURL, viaTask.fileURL].compactMap({ $0 }) {
                #expect(byteMismatch(try Data(contentsOf: file), json) == nil)
                try? FileManager.default.removeItem(at: file)
            }
        }

        @Test("a downloaded file that is not the JSON asked for -> responseSerializationFailed(decodingFailed)")
        func notDecodable() async throws {
            let server = try ScriptedServer(script: [.expectRequest, .send(responseBytes(Array("{\"name\":".utf8), framing: .contentLength))])
            defer { server.stop() }
            let response = await session.download(loopbackURL(server, "/broken.json")).serializingDecodable(Manifest.self).response
            if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
            guard case .failure(.responseSerializationFailed(reason: .decodingFailed)) = response.result else {
                Issue.record("expected decodingFailed, got \(response.result)")
                return
            }
        }
    }

    @Suite("Downloads from httpbin", .enabled(if: httpbinBase != nil, "LARIAT_HTTPBIN is not set: start httpbin with scripts/httpbin.sh start and export LARIAT_HTTPBIN"))
    struct HTTPBinDownloadTests {
        let session = Session()

        private func url(_ path: String) -> String { (httpbinBase ?? "http://127.0.0.1:1") + path }

        @Test("/bytes/N?seed=… downloaded to a file equals the same bytes fetched into memory", arguments: [0, 1, 65_536, 102_400])
        func seededBytes(count: Int) async throws {
            let path = "/bytes/\(count)?seed=\(count + 11)"
            let inMemory = try await session.request(url(path)).serializingData(emptyResponseCodes: [200]).value
            #expect(inMemory.count == count)
            let response = await session.download(url(path)).validate().serializingData(emptyResponseCodes: [200]).response
            #expect(response.value == inMemory, "\(response.result)")
            if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
        }

        @Test("/status/404 with validate() -> unacceptableStatusCode(404)")
        func notFound() async throws {
            let response = await session.download(url("/status/404")).validate().serializingDownloadedFileURL().response
            if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
            #expect(response.response?.statusCode == 404)
            guard case .failure(.responseValidationFailed(reason: .unacceptableStatusCode(let code))) = response.result else {
                Issue.record("expected unacceptableStatusCode, got \(response.result)")
                return
            }
            #expect(code == 404)
        }
    }
}

/// What a destination closure saw: whether the temporary file existed, and the status code.
private final class SeenByDestination: Sendable {
    private let storage = Mutex<(temporaryExisted: Bool, status: Int)?>(nil)
    func record(temporaryExisted: Bool, status: Int) { storage.withLock { $0 = (temporaryExisted, status) } }
    var value: (temporaryExisted: Bool, status: Int)? { storage.withLock { $0 } }
}

/// What `cancel(byProducingResumeData:)` handed its handler.
private final class ResumeDataSeen: Sendable {
    private let storage = Mutex<(called: Bool, data: Data?)>((false, nil))
    func record(_ data: Data?) { storage.withLock { $0 = (true, data) } }
    var called: Bool { storage.withLock { $0.called } }
    var data: Data? { storage.withLock { $0.data } }
}
