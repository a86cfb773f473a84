// fetch's messages and limits next to curl 7.88 (issue 25, item 9): -H @file with CRLF lines,
// a corrupt --compressed body (curl's 61 and message), a decompression bomb (63 and a sentence,
// not "(1) dataLengthExceedsMaximum"), and responses with many header fields (curl and Chrome
// accept them; 129 or more fields were exit 8).
import FoundationEssentials
import Testing
@testable import fetch
#if FullFoundation
import Foundation
import LariatTestSupport
@testable import Client
#endif

@Suite("fetch messages and limits")
struct FetchMessagesTests {
    @Test("-H @file: lines ended by CRLF, LF or CR are headers without their CR (CRLF was kept: exit 1)")
    func headerFileLineEnds() throws {
        let files = ["crlf": "X-One: 1\r\nX-Two: 2\r\n\r\nX-Three: 3\r\n", "cr": "X-One: 1\rX-Two: 2\r"]
        var builder = RequestBuilder()
        builder.body = BodyBuilder(read: { files[$0].map { Data($0.utf8) } })
        for (file, expected) in [("crlf", ["X-One", "X-Two", "X-Three"]), ("cr", ["X-One", "X-Two"])] {
            guard case .run(let options) = try ArgumentWalker.parse(["-H", "@\(file)", "http://h/"], readConfig: { _ in nil }) else { return }
            let headers = try builder.request(options.urls[0], options: options).headers.dropFirst(2)
            #expect(headers.map(\.name) == expected, "\(file)")
            #expect(headers.allSatisfy { !$0.value.contains("\r") && !$0.value.contains("\n") }, "\(file)")
        }
    }
}

#if FullFoundation
/// `fetch` next to the running test bundle, if it was built.
private let messagesFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let messagesCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

extension FetchMessagesTests {
    /// Runs `tool` once against `answer`; the status, stdout and stderr (curl's name as fetch's).
    static func run(_ tool: String, _ arguments: [String], answer: [UInt8]) throws -> (status: Int32, output: String, errors: String) {
        let server = try ScriptedServer(script: [.expectRequest, .send(answer), .close], stepTimeout: .seconds(20))
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments + ["http://127.0.0.1:\(server.port)/x"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self),
                String(decoding: errorData, as: UTF8.self).replacingOccurrences(of: "curl: ", with: "fetch: "))
    }

    static func gzipResponse(_ body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    @Test("--compressed with a corrupt gzip body: exit 61 and curl's message (was (1) cannotDecodeRawData)",
          .enabled(if: messagesFetch != nil && messagesCurl != nil, "needs curl and the fetch binary"))
    func corruptBody() throws {
        let text = [UInt8](Array(repeating: Array("hello world".utf8), count: 1000).joined())
        var body = try text.withUnsafeBytes { try ZlibCompression.compress($0, format: .gzip) }
        for index in 12..<40 { body[index] ^= 0x5A }
        let arguments = ["-sS", "--compressed", "-o", "/dev/null"]
        let curl = try Self.run(try #require(messagesCurl), arguments, answer: Self.gzipResponse(body))
        let fetch = try Self.run(try #require(messagesFetch), arguments, answer: Self.gzipResponse(body))
        #expect(curl.status == 61)
        #expect(fetch.status == curl.status)
        #expect(fetch.errors == curl.errors)
    }

    @Test("--compressed with a decompression bomb: exit 63 and a sentence (was (1) dataLengthExceedsMaximum)",
          .enabled(if: messagesFetch != nil, "needs the fetch binary"))
    func bomb() throws {
        // 64 MiB of zeros in about 64 KiB: past Client's expansion ratio (100) after 1 MiB.
        let bomb = try [UInt8](repeating: 0, count: 64 << 20).withUnsafeBytes { try ZlibCompression.compress($0, format: .gzip) }
        let fetch = try Self.run(try #require(messagesFetch), ["-sS", "--compressed", "-o", "/dev/null"], answer: Self.gzipResponse(bomb))
        #expect(fetch.status == 63)
        #expect(fetch.errors.hasPrefix("fetch: (63) Maximum file size exceeded: the gzip body decodes to "), "\(fetch.errors)")
        #expect(fetch.errors.contains("decompression bomb"))
    }

    @Test("many header fields: the same status and field count as curl (129 or more were exit 8)",
          .enabled(if: messagesFetch != nil && messagesCurl != nil, "needs curl and the fetch binary"),
          arguments: [120, 129, 300, 2_000])
    func manyFields(count: Int) throws {
        var head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
        for index in 0..<count { head += "Set-Cookie: c\(index)=v\(index)\r\n" }
        let answer = Array((head + "\r\nok").utf8)
        let arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{num_headers}"]
        let curl = try Self.run(try #require(messagesCurl), arguments, answer: answer)
        let fetch = try Self.run(try #require(messagesFetch), arguments, answer: answer)
        #expect(curl.output == "200 \(count + 1)")
        #expect(fetch.status == curl.status)
        #expect(fetch.output == curl.output, "\(fetch.errors)")
    }
}
#endif
