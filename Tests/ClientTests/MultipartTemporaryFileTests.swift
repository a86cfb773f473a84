// Multipart bodies above the memory threshold go through a temporary file: it must live in a
// directory this process made for itself (mkdtemp, 0700), be created 0600 without following
// symlinks, and be gone, with its directory, once the request ends.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
import LariatTestSupport
@testable import Client

@Suite struct MultipartTemporaryFileTests {
    /// `st_mode & 0o7777` and the file type bits of `path`, without following a symlink.
    static func mode(_ path: String) -> (permissions: UInt32, isDirectory: Bool, isRegular: Bool)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode) & 0o7777, UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR),
                UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG))
    }

    static func form() -> MultipartFormData {
        let form = MultipartFormData(boundary: "lariat.tmp.boundary")
        form.append(Data("secret token".utf8), withName: "token")
        return form
    }

    @Test func freshPrivateDirectoryAndOwnerOnlyFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let first = try MultipartFormData.makeTemporaryFileURL(in: scratch.url)
        let second = try MultipartFormData.makeTemporaryFileURL(in: scratch.url)
        let directory = first.deletingLastPathComponent().path
        #expect(first.deletingLastPathComponent() != second.deletingLastPathComponent(), "each body gets its own directory")
        #expect(first.deletingLastPathComponent().lastPathComponent.hasPrefix("org.lariat.multipart."))
        let directoryMode = try #require(MultipartTemporaryFileTests.mode(directory))
        #expect(directoryMode.isDirectory && directoryMode.permissions == 0o700, "\(String(directoryMode.permissions, radix: 8))")

        // A permissive umask must not widen the file: the mode is asked for, not inherited.
        let previous = umask(0)
        defer { umask(previous) }
        try MultipartTemporaryFileTests.form().writeEncodedData(to: first)
        let fileMode = try #require(MultipartTemporaryFileTests.mode(first.path))
        #expect(fileMode.isRegular && fileMode.permissions == 0o600, "\(String(fileMode.permissions, radix: 8))")

        MultipartFormData.removeTemporaryFile(first, fileManager: .default)
        MultipartFormData.removeTemporaryFile(second, fileManager: .default)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "left behind")
    }

    @Test func aPlantedSymlinkIsNotFollowed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.url.appendingPathComponent("victim").path
        let link = scratch.url.appendingPathComponent("body.multipart").path
        #expect(symlink(target, link) == 0)
        #expect(throws: AFError.self) { try MultipartTemporaryFileTests.form().writeEncodedData(to: URL(fileURLWithPath: link)) }
        #expect(!FileManager.default.fileExists(atPath: target), "wrote through the symlink")
    }

    @Test func removalLeavesOthersDirectoriesAlone() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Array("x".utf8), named: "user.bin")
        MultipartFormData.removeTemporaryFile(file, fileManager: .default)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(FileManager.default.fileExists(atPath: scratch.url.path), "removed a directory that is not ours")
    }

    /// Through `Session`: the shared `$TMPDIR/org.lariat.multipart` is neither used nor created,
    /// and the body's private directory is gone when the request ends.
    @Test func uploadThroughSessionLeavesNothingBehind() async throws {
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("org.lariat.multipart").path
        let sharedExisted = FileManager.default.fileExists(atPath: shared)
        let server = try ScriptedServer(script: [.expectRequest, cannedResponse("ok")])
        defer { server.stop() }
        let form = MultipartTemporaryFileTests.form()
        let request = retained(Session()).upload(multipartFormData: form, to: loopbackURL(server, "/form"), usingThreshold: 0)
        let response = await request.serializingString().response
        #expect(response.value == "ok", "\(response.result)")
        guard case .file(let file, true)? = request.uploadable else {
            Issue.record("the form did not go through a temporary file: \(String(describing: request.uploadable))")
            return
        }
        let directory = file.deletingLastPathComponent()
        #expect(directory.lastPathComponent.hasPrefix("org.lariat.multipart."), "\(directory.path)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "the body file outlived the request")
        #expect(!FileManager.default.fileExists(atPath: directory.path), "its directory outlived the request")
        #expect(FileManager.default.fileExists(atPath: shared) == sharedExisted, "the fixed shared directory was created")
        #expect(splitRequest(server.requests(onConnection: 0)[0]).body.count == Int(form.encodedLength))
    }
}
