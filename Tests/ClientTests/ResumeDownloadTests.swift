// Resumable downloads against ScriptedServer: a body cut at a known offset then resumed
// (byte-exact file), a resource that changed in between (start over), a 206 that does not fit
// (typed error), cancel(producingResumeData:) and resume, and a partial file replaced by a link.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

/// A 200 head for `total` bytes that can be resumed (strong ETag `etag`, byte ranges).
private func resumableHead(total: Int, etag: String = "\"v1\"") -> [UInt8] {
    Array("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\nAccept-Ranges: bytes\r\nETag: \(etag)\r\n\r\n".utf8)
}

/// A 206 head for `body[from...]` with the Content-Range `range` (the right one by default).
private func partialHead(_ body: [UInt8], from: Int, range: String? = nil, etag: String = "\"v1\"") -> [UInt8] {
    let value = range ?? "bytes \(from)-\(body.count - 1)/\(body.count)"
    return Array("HTTP/1.1 206 Partial Content\r\nContent-Length: \(body.count - from)\r\nContent-Range: \(value)\r\nETag: \(etag)\r\n\r\n".utf8)
}

/// The request text the server received on connection `index`.
private func requestText(_ server: ScriptedServer, _ index: Int) -> String {
    String(decoding: server.requests(onConnection: index).first ?? [], as: UTF8.self)
}

extension ClientIntegrationTests {
    @Suite("Resumable downloads")
    struct ResumeDownloadTests {
        let session = Session()

        /// Downloads from a server that cuts the body after `cut` bytes; returns the resume data.
        private func interruptedDownload(_ server: ScriptedServer, body: [UInt8]) async throws -> Data {
            let response = await session.download(loopbackURL(server, "/big")).serializingDownloadedFileURL().response
            #expect(sessionTaskURLError(response.result)?.code == .networkConnectionLost, "\(response.result)")
            let data = try #require(response.resumeData, "no resume data for an interrupted resumable download")
            #expect(response.error?.downloadResumeData == data)
            return data
        }

        @Test("a resumed download's progress spans the whole file: the resumed bytes count, it ends at 1.0")
        func resumedProgressSpansWholeFile() async throws {
            let body = pseudoRandomBytes(count: 100_000, seed: 121)
            let cut = 40_000
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: body.count) + body[..<cut]), .sleep(.milliseconds(50)), .close],
                [.expectRequest, .send(partialHead(body, from: cut) + body[cut...])],
            ]))
            defer { server.stop() }
            let data = try await interruptedDownload(server, body: body)
            let seen = Mutex<[(completed: Int64, total: Int64)]>([])
            let request = session.download(resumingWith: data)
                .downloadProgress(queue: DispatchQueue(label: "progress")) { progress in
                    seen.withLock { $0.append((progress.completedUnitCount, progress.totalUnitCount)) }
                }
            let resumed = await request.serializingDownloadedFileURL().response
            let file = try #require(resumed.value, "\(resumed.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(request.downloadProgress.totalUnitCount == Int64(body.count))
            #expect(request.downloadProgress.completedUnitCount == Int64(body.count))
            #expect(request.downloadProgress.fractionCompleted == 1.0)
            let values = seen.withLock { $0 }
            #expect(values.allSatisfy { $0.completed >= Int64(cut) && $0.total == Int64(body.count) }, "\(values)")
        }

        @Test("a body cut at a known offset, then resumed: Range and If-Range sent, the file byte-exact")
        func cutThenResumed() async throws {
            let body = pseudoRandomBytes(count: 100_000, seed: 120)
            let cut = 40_000
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: body.count) + body[..<cut]), .sleep(.milliseconds(50)), .close],
                [.expectRequest, .send(partialHead(body, from: cut) + body[cut...])],
            ]))
            defer { server.stop() }
            let data = try await interruptedDownload(server, body: body)
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            let file = try #require(resumed.value, "\(resumed.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(byteMismatch(try Data(contentsOf: file), body) == nil)
            let sent = requestText(server, 1)
            #expect(sent.contains("Range: bytes=\(cut)-\r\n"), "\(sent)")
            #expect(sent.contains("If-Range: \"v1\"\r\n"), "\(sent)")
            // The file holds decoded bytes: the range must be of the identity representation.
            #expect(sent.contains("Accept-Encoding: identity\r\n"), "\(sent)")
            #expect(resumed.response?.statusCode == 206)
            // Alamofire's task hook describes the same resumed request.
            let task = session.download(resumingWith: data, shouldAutomaticallyResume: false).task(forResumeData: data, using: session.session)
            #expect(task is URLSessionDownloadTask && task.currentRequest?.headers["Range"] == "bytes=\(cut)-")
        }

        @Test("download(resumingWith:) and upload(_:with:) with shouldAutomaticallyResume: false wait for resume()")
        func resumingWithoutAutomaticStart() async throws {
            let request = session.download(resumingWith: Data("not resume data".utf8), shouldAutomaticallyResume: false)
            request.response(queue: .global()) { _ in }
            #expect(request.shouldAutomaticallyResume == false)
            #expect(request.state == .initialized)
            request.cancel()
            let upload = session.upload(InputStream(data: Data("x".utf8)), with: URLRequest(url: URL(string: "http://127.0.0.1:1/")!),
                                        shouldAutomaticallyResume: false)
            upload.response(queue: .global()) { _ in }
            #expect(upload.shouldAutomaticallyResume == false && upload.state == .initialized)
            upload.cancel()
        }

        @Test("the resource changed in between: the server sends 200 and the file starts over")
        func changedResourceRestarts() async throws {
            let old = pseudoRandomBytes(count: 50_000, seed: 121)
            let new = pseudoRandomBytes(count: 30_000, seed: 122)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: old.count) + old[..<20_000]), .sleep(.milliseconds(50)), .close],
                [.expectRequest, .send(resumableHead(total: new.count, etag: "\"v2\"") + new)],
            ]))
            defer { server.stop() }
            let data = try await interruptedDownload(server, body: old)
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            let file = try #require(resumed.value, "\(resumed.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(byteMismatch(try Data(contentsOf: file), new) == nil)
        }

        @Test("a 206 whose Content-Range does not start at the offset is refused with a typed error")
        func wrongContentRange() async throws {
            let body = pseudoRandomBytes(count: 10_000, seed: 123)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: body.count) + body[..<4_000]), .sleep(.milliseconds(50)), .close],
                [.expectRequest, .send(partialHead(body, from: 4_000, range: "bytes 0-5999/10000") + body[4_000...])],
            ]))
            defer { server.stop() }
            let data = try await interruptedDownload(server, body: body)
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            let error = sessionTaskURLError(resumed.result)
            #expect(error?.code == .badServerResponse, "\(resumed.result)")
            #expect(error?.underlyingError as? ResumeDataError == ResumeDataError(.contentRangeMismatch))
            #expect(resumed.fileURL == nil)
        }

        @Test("cancel(byProducingResumeData:) mid-body, then resume: the file byte-exact")
        func cancelThenResume() async throws {
            let body = pseudoRandomBytes(count: 20_000, seed: 124)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: body.count) + body[..<5_000]), .sleep(.seconds(3)), .close],
                [.expectRequest, .send(partialHead(body, from: 5_000) + body[5_000...])],
            ]))
            defer { server.stop() }
            let request = session.download(loopbackURL(server, "/slow"))
            let task = request.serializingDownloadedFileURL()
            // Wait for the 5000 bytes to land.
            let deadline = ContinuousClock.now + .seconds(3)
            while request.sink.bytesWritten < 5_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let produced: Data? = await withCheckedContinuation { continuation in
                request.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
            }
            let response = await task.response
            #expect(response.error?.isExplicitlyCancelledError == true)
            let data = try #require(produced)
            #expect(response.resumeData == data)
            #expect(request.resumeData == data)
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            let file = try #require(resumed.value, "\(resumed.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(byteMismatch(try Data(contentsOf: file), body) == nil)
            #expect(requestText(server, 1).contains("Range: bytes=5000-\r\n"))
        }

        @Test("a partial file replaced by a symbolic link is refused; the link's target is untouched")
        func partialFileReplacedByLink() async throws {
            let body = pseudoRandomBytes(count: 10_000, seed: 125)
            let server = try ScriptedServer(scripts: .inOrder([
                [.expectRequest, .send(resumableHead(total: body.count) + body[..<3_000]), .sleep(.milliseconds(50)), .close],
            ]))
            defer { server.stop() }
            let data = try await interruptedDownload(server, body: body)
            let blob = try DownloadResumeData.decode(data)
            let partial = FileManager.default.temporaryDirectory.appendingPathComponent(blob.file)
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-resume-target-\(UUID().uuidString)")
            try Data("precious".utf8).write(to: target)
            defer { try? FileManager.default.removeItem(at: target) }
            try FileManager.default.removeItem(at: partial)
            try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: target)
            defer { try? FileManager.default.removeItem(at: partial) }
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            guard case .failure(.createURLRequestFailed(let underlying)) = resumed.result else {
                Issue.record("expected createURLRequestFailed, got \(resumed.result)")
                return
            }
            #expect(underlying as? ResumeDataError == ResumeDataError(.partialFileMissing))
            #expect(try Data(contentsOf: target) == Data("precious".utf8))
            #expect(server.connectionCount == 1, "a refused blob must not reach the network")
        }

        @Test("httpbin /range/n: cancelled mid-body with resume data, resumed with a 206, byte-exact",
              .enabled(if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].map { !$0.isEmpty } ?? false, "needs LARIAT_HTTPBIN"))
        func httpbinRange() async throws {
            let base = try #require(ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"])
            let first = await session.download("\(base)/range/51200").serializingData().response
            first.fileURL.map { try? FileManager.default.removeItem(at: $0) }
            let full = try #require(first.value)
            // The same bytes dripped over 2 s, 1 KiB at a time: cancelled once some arrived.
            let request = session.download("\(base)/range/51200?duration=2&chunk_size=1024")
            let task = request.serializingDownloadedFileURL()
            let deadline = ContinuousClock.now + .seconds(5)
            while request.sink.bytesWritten < 4_096, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let produced: Data? = await withCheckedContinuation { continuation in
                request.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
            }
            _ = await task.response
            let data = try #require(produced, "httpbin's /range sends ETag and Accept-Ranges: resume data expected")
            #expect(try DownloadResumeData.decode(data).offset > 0)
            let resumed = await session.download(resumingWith: data).serializingDownloadedFileURL().response
            let file = try #require(resumed.value, "\(resumed.result)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(resumed.response?.statusCode == 206)
            #expect(try Data(contentsOf: file) == full)
        }

        @Test("resume data that is not Lariat's fails before any I/O")
        func garbageResumeData() async throws {
            let request = session.download(resumingWith: Data("garbage".utf8))
            guard case .resumeData(let blob) = request.downloadable, blob == Data("garbage".utf8) else {
                Issue.record("downloadable is not the resume data")
                return
            }
            let response = await request.serializingDownloadedFileURL().response
            guard case .failure(.createURLRequestFailed(let underlying)) = response.result else {
                Issue.record("expected createURLRequestFailed, got \(response.result)")
                return
            }
            #expect(underlying as? ResumeDataError == ResumeDataError(.malformed))
        }
    }
}
