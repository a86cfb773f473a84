// fetch -C/--continue-at and -r/--range next to curl 7.88 against the same scripted answer: the
// Range header each sends, the exit status, and the output file afterwards must match, for every
// answer a resumed transfer can get (206 that fits, 416, the whole file again, a server that
// ignores ranges).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let continueFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let continueCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The resource the rows serve: 26 letters.
private let alphabet = "abcdefghijklmnopqrstuvwxyz"

@Suite("fetch -C and -r next to curl", .enabled(if: continueFetch != nil && continueCurl != nil, "needs curl and the fetch binary"))
struct FetchContinueTests {
    /// One run: the output file's contents before (nil: no file), the arguments (`{url}` and
    /// `{out}` replaced), and the server's answer.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var existing: String?
        var arguments: [String]
        var answer: String

        var testDescription: String { name }
    }

    static func reply(_ status: String, _ body: String, _ extra: String = "") -> String {
        "HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    static let rows: [Row] = [
        Row(name: "-C - with a 206 that fits: appended", existing: "abcdefghij", arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("206 Partial Content", "klmnopqrstuvwxyz", "Content-Range: bytes 10-25/26\r\n")),
        Row(name: "-C - with 416: already complete, success", existing: alphabet, arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("416 Range Not Satisfiable", "nope", "Content-Range: bytes */26\r\n")),
        Row(name: "-C - -f with 416: 22, as curl", existing: alphabet, arguments: ["-f", "-C", "-", "-o", "{out}"],
            answer: reply("416 Range Not Satisfiable", "nope", "Content-Range: bytes */26\r\n")),
        Row(name: "-C - with the whole file again, same length: success, untouched", existing: alphabet, arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("200 OK", alphabet.uppercased())),
        Row(name: "-C - and a server that ignores ranges: exit 33", existing: "abcdefghij", arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("200 OK", alphabet)),
        Row(name: "-C - with a 206 from elsewhere: exit 33", existing: "abcdefghij", arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("206 Partial Content", "abcdefghijklmnop", "Content-Range: bytes 0-15/26\r\n")),
        Row(name: "-C - without a file: no Range, written whole", existing: nil, arguments: ["-C", "-", "-o", "{out}"],
            answer: reply("200 OK", alphabet)),
        Row(name: "-C 5 to a file: appended from 5", existing: "abcde", arguments: ["-C", "5", "-o", "{out}"],
            answer: reply("206 Partial Content", "fghijklmnopqrstuvwxyz", "Content-Range: bytes 5-25/26\r\n")),
        Row(name: "-r 0-9: Range sent, body written", existing: nil, arguments: ["-r", "0-9", "-o", "{out}"],
            answer: reply("206 Partial Content", "abcdefghij", "Content-Range: bytes 0-9/26\r\n")),
        Row(name: "-r 20: curl's trailing dash", existing: nil, arguments: ["-r", "20", "-o", "{out}"],
            answer: reply("206 Partial Content", "uvwxyz", "Content-Range: bytes 20-25/26\r\n")),
        Row(name: "-r ignored by the server: the whole body written", existing: "old", arguments: ["-r", "0-9", "-o", "{out}"],
            answer: reply("200 OK", alphabet)),
    ]

    /// What one tool did.
    struct Outcome: Equatable {
        var status: Int32
        var range: String?
        var file: String?
    }

    static func run(_ tool: String, _ row: Row) throws -> Outcome {
        let server = try ScriptedServer(script: [.expectRequest, .send(Array(row.answer.utf8)), .close])
        defer { server.stop() }
        let directory = NSTemporaryDirectory() + "continue-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let out = directory + "/out"
        if let existing = row.existing { try existing.write(toFile: out, atomically: true, encoding: .utf8) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-sS"] + row.arguments.map {
            $0 == "{out}" ? out : $0
        } + ["http://127.0.0.1:\(server.port)/letters"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let request = String(decoding: server.requests(onConnection: 0).first ?? [], as: UTF8.self)
        let range = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("range:") }.map(String.init)
        return Outcome(status: process.terminationStatus, range: range, file: try? String(contentsOfFile: out, encoding: .utf8))
    }

    @Test("same Range, exit status and file as curl", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run(try #require(continueCurl), row)
        let fetch = try Self.run(try #require(continueFetch), row)
        #expect(fetch == curl)
    }
}
#endif
