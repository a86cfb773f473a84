// file:// URLs, as URLSession loads them: the user's own URL is read from disk through the same
// receiver stages as a body (buffer, download file, progress), with no HTTP response; a
// symbolic link as the last component, a directory and a missing file fail with typed
// URLErrors; a server's redirect to file:// never reads a local file.
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

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
private struct Scratch {
    let directory: URL
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-file-url-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    func file(_ name: String, bytes: Int) throws -> (URL, Data) {
        let data = Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }
    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}

/// The URLError code inside a request's error, if any.
private func urlErrorCode(_ error: AFError?) -> URLError.Code? {
    (error?.underlyingError as? URLError)?.code
}

extension ClientIntegrationTests {
    @Suite("file:// URLs")
    struct FileURLTests {
        @Test("a data request reads the file in chunks: every byte, no HTTP response, progress to the file's size")
        func dataRequest() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let (url, data) = try scratch.file("payload.json", bytes: 200_000)  // several 64 KiB chunks
            let session = Session()
            let request = session.request(url)
            let response = await request.serializingData().response
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.data == data)
            #expect(response.response == nil, "URLSession gives a URLResponse, not an HTTPURLResponse, for a file")
            #expect(request.downloadProgress.completedUnitCount == 200_000)
            #expect(request.downloadProgress.totalUnitCount == 200_000)
            withExtendedLifetime(session) {}
        }

        @Test("a download of a file URL lands its bytes at the destination")
        func download() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let (url, data) = try scratch.file("source.bin", bytes: 70_000)
            let destination = scratch.directory.appendingPathComponent("copy.bin")
            let session = Session()
            let response = await session.download(url, to: { _, _ in (destination, []) }).serializingDownloadedFileURL().response
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.fileURL == destination)
            #expect(try Data(contentsOf: destination) == data)
            withExtendedLifetime(session) {}
        }

        @Test("a symbolic link as the last component is refused with cannotOpenFile, the target unread")
        func symbolicLinkRefused() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let (target, _) = try scratch.file("target.txt", bytes: 10)
            let link = scratch.directory.appendingPathComponent("link.txt")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let session = Session()
            let response = await session.request(link).serializingData().response
            #expect(response.data == nil || response.data?.isEmpty == true)
            #expect(urlErrorCode(response.error) == .cannotOpenFile, "\(String(describing: response.error))")
            #expect("\(String(describing: response.error))".contains("symbolic link"))
            withExtendedLifetime(session) {}
        }

        @Test("a directory and a missing file fail with fileIsDirectory and fileDoesNotExist")
        func directoryAndMissing() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let session = Session()
            let directory = await session.request(scratch.directory).serializingData().response
            #expect(urlErrorCode(directory.error) == .fileIsDirectory, "\(String(describing: directory.error))")
            let missing = await session.request(scratch.directory.appendingPathComponent("nope")).serializingData().response
            #expect(urlErrorCode(missing.error) == .fileDoesNotExist, "\(String(describing: missing.error))")
            withExtendedLifetime(session) {}
        }

        @Test("a server's redirect to file:// is refused: no local file is read")
        func redirectToFileRefused() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let (secret, secretData) = try scratch.file("secret.txt", bytes: 32)
            let server = try ScriptedServer(script: [
                .expectRequest, cannedResponse("", status: "302 Found", extra: "Location: \(secret.absoluteString)\r\n"),
            ])
            defer { server.stop() }
            let session = Session()
            let response = await session.request("http://127.0.0.1:\(server.port)/").serializingData().response
            #expect(response.data != secretData)
            #expect(response.error != nil || response.response?.statusCode == 302, "\(String(describing: response.error))")
            withExtendedLifetime(session) {}
        }

        @Test("an upload to a file URL is refused")
        func uploadRefused() async throws {
            let scratch = try Scratch()
            defer { scratch.cleanUp() }
            let (url, data) = try scratch.file("target.bin", bytes: 8)
            let session = Session()
            let response = await session.upload(Data("x".utf8), to: url).serializingData().response
            #expect(urlErrorCode(response.error) == .unsupportedURL, "\(String(describing: response.error))")
            #expect(try Data(contentsOf: url) == data)
            withExtendedLifetime(session) {}
        }
    }
}
