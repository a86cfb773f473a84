// A download destination named by the server (issue 25, item 2): `suggestedDownloadDestination`
// takes the file name from Content-Disposition, so it must never replace an existing file, even
// with `.removePreviousFile` (which it ignores), nor write through a symbolic link there.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
@testable import Client

extension ClientIntegrationTests {
    @Suite("Download destinations a server names")
    struct DownloadDestinationSafetyTests {
        let session = Session()

        /// Where `suggestedDownloadDestination(for: .documentDirectory)` puts files: the user's
        /// documents directory, made here when missing. (It used to fall back to the temporary
        /// directory when missing: on a fresh machine a row with `.createIntermediateDirectories`
        /// then made it while another row's file was in the temporary directory, so the download
        /// succeeded beside a file it was never near, and the rows without it failed for the
        /// missing directory instead of for the existing file.)
        static let base: URL = {
            let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
            try? FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
            return documents
        }()

        func download(naming name: String, options: DownloadRequest.Options) async throws -> DownloadResponse<URL, AFError> {
            let body = Array("from the server".utf8)
            let server = try ScriptedServer(script: [
                .expectRequest,
                .send(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nContent-Disposition: attachment; filename=\"\(name)\"\r\n\r\n".utf8) + body),
                .close,
            ])
            defer { server.stop() }
            let destination = DownloadRequest.suggestedDownloadDestination(for: .documentDirectory, options: options)
            return await session.download(loopbackURL(server, "/file"), to: destination).serializingDownloadedFileURL().response
        }

        @Test("an existing file of the server's name is kept, even with .removePreviousFile", arguments: [
            DownloadRequest.Options.removePreviousFile, [.removePreviousFile, .createIntermediateDirectories], [],
        ])
        func existingFileKept(options: DownloadRequest.Options) async throws {
            let name = "lariat-victim-\(UUID().uuidString).txt"
            let existing = Self.base.appendingPathComponent(name)
            try Data("mine".utf8).write(to: existing)
            defer { try? FileManager.default.removeItem(at: existing) }
            let response = try await download(naming: name, options: options)
            if let file = response.fileURL, file != existing { try? FileManager.default.removeItem(at: file) }
            #expect(try Data(contentsOf: existing) == Data("mine".utf8), "the server replaced an existing file")
            guard case .failure(let error) = response.result, error.isDownloadedFileMoveError else {
                Issue.record("expected downloadedFileMoveFailed, got \(response.result)")
                return
            }
        }

        @Test("a symbolic link of the server's name is not written through", arguments: [
            DownloadRequest.Options.removePreviousFile, [],
        ])
        func linkNotFollowed(options: DownloadRequest.Options) async throws {
            let name = "lariat-link-\(UUID().uuidString).txt"
            let link = Self.base.appendingPathComponent(name)
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("lariat-link-target-\(UUID().uuidString)")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            defer {
                try? FileManager.default.removeItem(at: link)
                try? FileManager.default.removeItem(at: target)
            }
            let response = try await download(naming: name, options: options)
            #expect(!FileManager.default.fileExists(atPath: target.path), "written through the link")
            let stillLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path
            #expect(stillLink, "the link was replaced: \(response.result)")
        }
    }
}
