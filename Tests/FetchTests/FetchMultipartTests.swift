// fetch -F/--form-string on Client's MultipartFormData (issues 23 and 25.5): curl's boundary
// shape every time, names/file names/types that cannot forge part headers, --form-string taken
// literally, and a body above the memory threshold streamed from a private temporary file that is
// removed afterwards.
import FoundationEssentials
import Testing
@testable import fetch
#if canImport(Glibc)
import Glibc
#endif
#if FullFoundation
import Foundation
import LariatTestSupport
#endif

@Suite("fetch multipart bodies")
struct FetchMultipartTests {
    static let files: [String: String] = ["bin": "x\ny"]

    static func builder(threshold: UInt64? = nil) -> RequestBuilder {
        var builder = RequestBuilder()
        builder.body = BodyBuilder(read: { files[$0].map { Data($0.utf8) } })
        builder.boundary = "BOUNDARY"
        if let threshold { builder.formMemoryThreshold = threshold }
        return builder
    }

    static func plan(_ arguments: [String], threshold: UInt64? = nil) throws -> PlannedRequest {
        guard case .run(let options) = try ArgumentWalker.parse(arguments + ["http://h/"], readConfig: { _ in nil }) else {
            throw FetchUsageError(description: "not a run")
        }
        return try builder(threshold: threshold).request(options.urls[0], options: options)
    }

    static func body(_ arguments: [String]) throws -> String {
        String(decoding: try plan(arguments).body ?? Data(), as: UTF8.self)
    }

    @Test("curl's boundary: 24 dashes and 16 hex digits, zero-padded, in 5000 draws (1 in 16 was a digit short)")
    func boundaryShape() {
        for _ in 0..<5000 {
            let boundary = RequestBuilder().boundary
            #expect(boundary.count == 40, "\(boundary)")
            #expect(boundary.hasPrefix(String(repeating: "-", count: 24)))
            #expect(boundary.dropFirst(24).allSatisfy { $0.isHexDigit && !$0.isUppercase })
            if boundary.count != 40 { return }
        }
    }

    @Test("names, file names and types cannot add part headers: \" CR LF escaped as curl writes them", arguments: [
        (["-F", "a\"; filename=\"evil=v"], "Content-Disposition: form-data; name=\"a%22; filename\"\r\n\r\n\"evil=v\r\n"),
        (["-F", "a\r\nX-Inj: 1=v"], "Content-Disposition: form-data; name=\"a%0D%0AX-Inj: 1\"\r\n\r\nv\r\n"),
        (["-F", "a\nb=v"], "Content-Disposition: form-data; name=\"a%0Ab\"\r\n\r\nv\r\n"),
        (["-F", "f=@bin;filename=ev\"il\r\nX-Inj: 1.txt"],
         "Content-Disposition: form-data; name=\"f\"; filename=\"ev%22il%0D%0AX-Inj: 1.txt\"\r\nContent-Type: application/octet-stream\r\n\r\nx\ny\r\n"),
        // curl 7.88.1 writes a type's CR LF raw (a forged header); fetch escapes them.
        (["-F", "t=v;type=text/x\r\nX-Inj: 1"], "Content-Disposition: form-data; name=\"t\"\r\nContent-Type: text/x%0D%0AX-Inj: 1\r\n\r\nv\r\n"),
        (["--form-string", "s=@bin;type=text/x"], "Content-Disposition: form-data; name=\"s\"\r\n\r\n@bin;type=text/x\r\n"),
    ] as [([String], String)])
    func escaping(arguments: [String], part: String) throws {
        let text = try Self.body(arguments)
        #expect(text == "--BOUNDARY\r\n" + part + "--BOUNDARY--\r\n")
        #expect(!text.contains("\r\nX-Inj"))
    }

    @Test("--form-escape: backslashes for \\ and \" as curl 7.88; CR and LF still percent-encoded, never raw", arguments: [
        (["--form-escape", "-F", "a\\b\"c=v"], "Content-Disposition: form-data; name=\"a\\\\b\\\"c\"\r\n\r\nv\r\n"),
        (["--form-escape", "-F", "f=@bin;filename=x\\y\"z"],
         "Content-Disposition: form-data; name=\"f\"; filename=\"x\\\\y\\\"z\"\r\nContent-Type: application/octet-stream\r\n\r\nx\ny\r\n"),
        // curl 7.88.1 sends these raw with --form-escape (a forged header); fetch does not.
        (["--form-escape", "-F", "a\r\nX-Inj: 1=v"], "Content-Disposition: form-data; name=\"a%0D%0AX-Inj: 1\"\r\n\r\nv\r\n"),
        (["--form-escape", "-F", "f=@bin;filename=e\ril"],
         "Content-Disposition: form-data; name=\"f\"; filename=\"e%0Dil\"\r\nContent-Type: application/octet-stream\r\n\r\nx\ny\r\n"),
    ] as [([String], String)])
    func formEscape(arguments: [String], part: String) throws {
        let text = try Self.body(arguments)
        #expect(text == "--BOUNDARY\r\n" + part + "--BOUNDARY--\r\n")
        #expect(!text.contains("\r\nX-Inj"))
    }

    @Test("above the memory threshold: a private temporary file holding the same bytes, removed after")
    func streamedFromDisk() throws {
        let arguments = ["-F", "a=b", "-F", "f=@bin;type=text/x", "-F", "c=<bin"]
        let inMemory = try Self.plan(arguments)
        let onDisk = try Self.plan(arguments, threshold: 10)
        #expect(onDisk.body == nil)
        let file = try #require(onDisk.bodyFile)
        #expect(FileManager.default.contents(atPath: file) == inMemory.body)
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        var info = stat()
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        onDisk.removeBodyFile()
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(onDisk.headers.last == HeaderField(name: "Content-Type", value: "multipart/form-data; boundary=BOUNDARY"))
    }
}

#if FullFoundation
/// `fetch` next to the running test bundle, if it was built.
private let multipartFetch: String? = fetchExecutablePath

extension FetchMultipartTests {
    @Test("an 11 MB file part through the fetch binary: sent whole from a temporary file, which is gone afterwards",
          .enabled(if: multipartFetch != nil, "the fetch binary is not built next to the tests"))
    func bigFileThroughFetch() throws {
        let scratch = NSTemporaryDirectory() + "multipart-\(UUID().uuidString)"
        let temporary = scratch + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let content = Data((0..<11_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try content.write(to: URL(fileURLWithPath: scratch + "/big.bin"))
        let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close],
                                        stepTimeout: .seconds(30))
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(multipartFetch))
        process.arguments = ["-sS", "-F", "f=@\(scratch)/big.bin", "-F", "a=b", "http://127.0.0.1:\(server.port)/up"]
        // The inherited environment plus TMPDIR: replacing it dropped ASAN_OPTIONS in the
        // sanitizer step, so the ASan-built fetch ran LeakSanitizer (off there: Swift runtime
        // caches) and exited 1 on the pool's connection alive at exit.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let request = try #require(server.requests(onConnection: 0).first)
        let head = String(decoding: request.prefix(512), as: UTF8.self)
        let boundary = try #require(head.firstRange(of: "boundary=").map { String(head[$0.upperBound...].prefix(40)) })
        let prefix = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        let suffix = Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--\(boundary)--\r\n".utf8)
        let body = Data(request[(try #require(request.firstRange(of: Array("\r\n\r\n".utf8)))).upperBound...])
        #expect(body.count == prefix.count + content.count + suffix.count)
        #expect(body == prefix + content + suffix)
        #expect(head.contains("Content-Length: \(body.count)\r\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "the temporary file or its directory stayed")
    }
}
#endif
