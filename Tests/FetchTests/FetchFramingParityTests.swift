// fetch and curl 7.88 against the same scripted raw-bytes server for the options that change how
// a response is framed and decoded (--http0.9, --raw, --tr-encoding, --ignore-content-length):
// exit status, the bytes on standard output (compared as bytes: --raw writes gzip and chunk
// framing), standard error ("curl: " read as "fetch: ") and, where asked, the request's fields.
// Child processes run off the cooperative pool (OffPool.swift).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, and curl, when both exist.
private let framingTools: (fetch: String, curl: String)? = {
    let fetch = FetchOptionParityTests.fetchPath
    guard FileManager.default.isExecutableFile(atPath: fetch), FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return nil }
    return (fetch, "/usr/bin/curl")
}()

@Suite("fetch and curl: response framing options", .enabled(if: framingTools != nil, "needs curl and fetch built next to the tests"))
struct FetchFramingParityTests {
    /// One row: arguments (`{url}` is the server's `/r`), the server's whole answer (it closes
    /// after it), and whether the requests' fields are compared too.
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var answer: [UInt8]
        var compareRequests = false
        var testDescription: String { arguments.joined(separator: " ") }

        init(_ arguments: [String], _ answer: [UInt8], compareRequests: Bool = false) {
            self.arguments = arguments
            self.answer = answer
            self.compareRequests = compareRequests
        }

        init(_ arguments: [String], _ answer: String, compareRequests: Bool = false) {
            self.init(arguments, Array(answer.utf8), compareRequests: compareRequests)
        }
    }

    /// What one tool did.
    struct Outcome: Equatable {
        var status: Int32
        var output: [UInt8]
        var errors: String
        var requests: [String]
    }

    /// `gzip` of "hello gzip transfer\n" (Python's gzip.compress, mtime 0).
    static let gzipped: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0x48, 0xaf, 0xca, 0x2c,
        0x50, 0x28, 0x29, 0x4a, 0xcc, 0x2b, 0x4e, 0x4b, 0x2d, 0xe2, 0x02, 0x00, 0x5d, 0x2c, 0x68, 0xe8, 0x14, 0x00, 0x00, 0x00,
    ]

    /// `bytes` in chunks of at most `size`, then the last chunk, `trailer` and the final CRLF.
    static func chunked(_ bytes: [UInt8], size: Int, trailer: String = "") -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let piece = bytes[start..<min(bytes.count, start + size)]
            out += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
            start += size
        }
        return out + Array("0\r\n\(trailer)\r\n".utf8)
    }

    static let zeroNine = "hello there\n"
    static let chunkedTrailer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        + chunked(Array("hello chunked world\n".utf8), size: 7, trailer: "X-Sum: 1\r\n")
    static let transferGzip = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8) + chunked(gzipped, size: 10)
    static let contentGzip = Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n".utf8) + gzipped
    static let shortLength = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello and more after the length\n"
    static let badLength = "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nbody after a bad length\n"
    static let lengthAndChunked = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        + chunked(Array("chunked wins\n".utf8), size: 5)

    /// Every row failed before the options existed (fetch: exit 2, "not supported yet"), except
    /// those marked default, which pin what stays as it was.
    static let rows: [Row] = [
        // --http0.9: the stream is the body; 000 and version 0; -i writes no head; -f does not fail.
        Row(["-sS", "--http0.9", "{url}"], zeroNine),
        Row(["-sS", "--http0.9", "-i", "-w", "[%{http_code} %{http_version} %{size_header}]", "{url}"], zeroNine),
        Row(["-sS", "--http0.9", "-f", "{url}"], zeroNine),
        Row(["-sS", "--http0.9", "{url}"], "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"),
        // default: refused, exit 1.
        Row(["-sS", "{url}"], zeroNine),
        // --raw: chunk framing and trailers as received; compressed bytes even with --compressed.
        Row(["-sS", "--raw", "{url}"], chunkedTrailer),
        Row(["-sS", "--raw", "--compressed", "{url}"], contentGzip),
        Row(["-sS", "--raw", "{url}"], transferGzip),
        Row(["-sS", "--raw", "--tr-encoding", "{url}"], transferGzip),
        // default: the trailer is no body.
        Row(["-sS", "{url}"], chunkedTrailer),
        // --tr-encoding: TE: gzip with Connection: TE (merged into -H's), decoded body.
        Row(["-sS", "--tr-encoding", "{url}"], transferGzip, compareRequests: true),
        Row(["-sS", "--tr-encoding", "-H", "Connection: close", "{url}"], transferGzip, compareRequests: true),
        Row(["-sS", "--tr-encoding", "-H", "TE: trailers", "{url}"], transferGzip, compareRequests: true),
        // --ignore-content-length: read to the close; an invalid length is no error; chunked wins.
        Row(["-sS", "--ignore-content-length", "{url}"], shortLength),
        Row(["-sS", "--ignore-content-length", "{url}"], badLength),
        Row(["-sS", "--ignore-content-length", "{url}"], lengthAndChunked),
        Row(["-sS", "--ignore-content-length", "-i", "{url}"], shortLength),
        // A cut chunked body: curl's message without a length (it never read the one given).
        Row(["-sS", "--ignore-content-length", "{url}"], "HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"),
        // default: the length frames the body.
        Row(["-sS", "{url}"], shortLength),
    ]

    @Test("same exit status, output bytes and messages as curl 7.88", arguments: rows)
    func sameAsCurl(_ row: Row) async throws {
        let tools = try #require(framingTools)
        let curl = try await offPool { try Self.run(tools.curl, row) }
        let fetch = try await offPool { try Self.run(tools.fetch, row) }
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output, "curl: \(String(decoding: curl.output, as: UTF8.self).debugDescription)\nfetch: \(String(decoding: fetch.output, as: UTF8.self).debugDescription)")
        #expect(fetch.errors == curl.errors)
        if row.compareRequests { #expect(fetch.requests == curl.requests) }
    }

    /// Runs `tool` for `row` against a fresh server (blocking: call it off the pool).
    static func run(_ tool: String, _ row: Row) throws -> Outcome {
        let server = try ScriptedServer(script: [.expectRequest, .send(row.answer), .close])
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = row.arguments.map { $0.replacingOccurrences(of: "{url}", with: "http://127.0.0.1:\(server.port)/r") }
        let errorPath = NSTemporaryDirectory() + "framing-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let errors = try #require(FileHandle(forWritingAtPath: errorPath))
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        _ = server.waitForConnections(1, finished: true)
        let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let requests = server.requests.map(FetchScriptedParityTests.comparable).map { $0.joined(separator: "|") }
        return Outcome(status: process.terminationStatus, output: [UInt8](bytes),
                       errors: text.replacingOccurrences(of: "curl: ", with: "fetch: "), requests: requests)
    }
}
#endif
