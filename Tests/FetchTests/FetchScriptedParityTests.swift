// fetch and curl 7.88 against the same scripted raw-bytes server, for what httpbin cannot serve
// (a response without a status line) or show (an upload's bytes on the wire): exit status,
// output and messages compared after FetchCurlParityTests' normalisation.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

@Suite("fetch and curl against a scripted server", .enabled(
    if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].map { !$0.isEmpty } ?? false
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
    "needs curl, and LARIAT_HTTPBIN for FetchCurlParityTests' runner"))
struct FetchScriptedParityTests {
    /// One row: arguments (`{url}` is the server's `/r`), the server's whole answer.
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var answer: String
        /// Standard input (a pipe: not a regular file).
        var stdin = ""
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// The same request as curl's: the request line, the set of header lines (the order of the
    /// framing fields differs by design) without User-Agent, and the body.
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"
    static let wireRows: [Row] = [
        Row(arguments: ["-sS", "--http1.0", "{url}"], answer: ok),
        Row(arguments: ["-sS", "-0", "-d", "x=1", "{url}"], answer: ok),
        Row(arguments: ["-sS", "-0", "--http1.1", "{url}"], answer: ok),
        Row(arguments: ["-sS", "--request-target", "*", "-X", "OPTIONS", "{url}"], answer: ok),
        Row(arguments: ["-sS", "--request-target", "/other?q=1", "-0", "{url}"], answer: ok),
        // Standard input of unknown length with HTTP/1.0: curl's 25, nothing sent.
        Row(arguments: ["-sS", "-0", "-T", "-", "{url}"], answer: ok, stdin: "x\n"),
    ]

    @Test("same request on the wire, same exit status and output", arguments: wireRows)
    func sameRequest(_ row: Row) throws {
        let curl = try Self.run("/usr/bin/curl", row)
        let fetch = try Self.run(FetchOptionParityTests.fetchPath, row)
        #expect(fetch.result.status == curl.result.status, "curl stderr: \(curl.result.errors)\nfetch stderr: \(fetch.result.errors)")
        #expect(fetch.result.output == curl.result.output)
        #expect(fetch.result.errors == curl.result.errors)
        #expect(fetch.requests.map(Self.comparable) == curl.requests.map(Self.comparable))
    }

    /// A request as compared: its line, its header lines sorted (User-Agent and the port left
    /// out), its body.
    static func comparable(_ request: [UInt8]) -> [String] {
        let text = String(decoding: request, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return [text] }
        var lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
        let line = lines.removeFirst()
        let fields = lines.filter { !$0.hasPrefix("User-Agent:") && !$0.hasPrefix("Host:") }.sorted()
        return [line] + fields + [String(text[end.upperBound...])]
    }

    static let rows: [Row] = [
        // HTTP/0.9 (no status line): curl 7.88 refuses it, exit 1.
        Row(arguments: ["-sS", "{url}"], answer: "hello there\n"),
        Row(arguments: ["-s", "{url}"], answer: "hello there\n"),
        Row(arguments: ["-sS", "{url}"], answer: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"),
    ]

    @Test("same exit status and output", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run("/usr/bin/curl", row).result
        let fetch = try Self.run(FetchOptionParityTests.fetchPath, row).result
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        #expect(fetch.errors == curl.errors)
    }

    /// `--crlf` with `-T`: the bytes curl 7.88 sends for a file holding `a\nb\r\nc\n` (every
    /// LF after a CR too). curl announces the file's 7 bytes as Content-Length and sends 10;
    /// fetch announces the 10 it sends (Documentation/fetch.md).
    @Test("--crlf: -T's LFs go out as CRLF")
    func crlfUpload() throws {
        let file = NSTemporaryDirectory() + "fetch-crlf-\(UUID().uuidString)"
        try Data("a\nb\r\nc\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let row = Row(arguments: ["-sS", "-H", "Expect:", "--crlf", "-T", file, "{url}"],
                      answer: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
        let (result, requests) = try Self.run(FetchOptionParityTests.fetchPath, row)
        #expect(result.status == 0, "\(result.errors)")
        let request = try #require(requests.first)
        let text = String(decoding: request, as: UTF8.self)
        #expect(text.hasSuffix("\r\n\r\na\r\nb\r\r\nc\r\n"), "\(text)")
        #expect(text.contains("Content-Length: 10\r\n"), "\(text)")
    }

    /// Runs `tool` for `row` against a fresh server; what it printed and the requests received.
    static func run(_ tool: String, _ row: Row) throws -> (result: FetchCurlParityTests.Result, requests: [[UInt8]]) {
        let server = try ScriptedServer(script: [.expectRequest, .send(row.answer), .close])
        defer { server.stop() }
        let arguments = row.arguments.map { $0.replacingOccurrences(of: "{url}", with: "http://127.0.0.1:\(server.port)/r") }
        let result = try FetchCurlParityTests.run(tool, FetchCurlParityTests.Row(arguments: arguments, stdin: row.stdin))
        _ = server.waitForConnections(1, finished: true)
        return (result, server.requests)
    }
}
#endif
