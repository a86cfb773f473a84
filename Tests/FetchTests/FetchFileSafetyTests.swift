// fetch's output files next to curl 7.88 against the same scripted answer (issue 25, item 2):
// a file named by the server (-J) is created new and never through a symbolic link, -C with -J is
// refused, --no-clobber adds .1, .2…, --remove-on-error removes a failed transfer's file. Each row
// compares the exit status, standard error and the directory afterwards (names, contents, link
// targets), plus whether anything appeared outside the directory. Also: a reader that goes away
// (`fetch URL | head -c 10`) is exit 23 with curl's message, not SIGPIPE (item 6).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let safetyFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let safetyCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("fetch output files next to curl", .enabled(if: safetyFetch != nil && safetyCurl != nil, "needs curl and the fetch binary"))
struct FetchFileSafetyTests {
    /// What is in the run's directory before it starts.
    enum Setup: Sendable {
        /// Nothing.
        case empty
        /// A file `name` holding `contents`.
        case file(String, String)
        /// A symbolic link `name` to `outside/target` (outside the run's directory; missing).
        case link(String)
    }

    /// One run: the arguments (the URL is added), the server's answer, the directory before.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var answer: String
        var setup: Setup
        var testDescription: String { name }
    }

    static func reply(_ body: String, disposition: String? = "attachment; filename=\"victim.txt\"") -> String {
        let field = disposition.map { "Content-Disposition: \($0)\r\n" } ?? ""
        return "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\(field)\r\n\(body)"
    }

    /// Part of a body, then silence: `-m 1` fails (28) after the file was opened.
    static let stalled = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"

    static let rows: [Row] = [
        Row(name: "-O -J, no file there: written", arguments: ["-O", "-J"], answer: reply("server\n"), setup: .empty),
        Row(name: "-O -J onto an existing file: refused (23), file kept", arguments: ["-O", "-J"], answer: reply("server\n"),
            setup: .file("victim.txt", "mine\n")),
        Row(name: "-O -J onto a symbolic link: refused (23), nothing created through it", arguments: ["-O", "-J"],
            answer: reply("server\n"), setup: .link("victim.txt")),
        Row(name: "-O -J onto a dotfile: refused (23)", arguments: ["-O", "-J"],
            answer: reply("alias ls=rm\n", disposition: "attachment; filename=\".bashrc\""), setup: .file(".bashrc", "mine\n")),
        Row(name: "-O -J -s onto an existing file: no warning, 23", arguments: ["-s", "-O", "-J"], answer: reply("server\n"),
            setup: .file("victim.txt", "mine\n")),
        Row(name: "-O -J --no-clobber onto an existing file: victim.txt.1", arguments: ["-O", "-J", "--no-clobber"],
            answer: reply("server\n"), setup: .file("victim.txt", "mine\n")),
        Row(name: "-O -J --no-clobber onto a symbolic link: victim.txt.1", arguments: ["-O", "-J", "--no-clobber"],
            answer: reply("server\n"), setup: .link("victim.txt")),
        Row(name: "-o --no-clobber onto an existing file: out.1", arguments: ["-o", "out", "--no-clobber"],
            answer: reply("server\n"), setup: .file("out", "mine\n")),
        Row(name: "-O without a Content-Disposition (-J falls back to the URL's name): replaced as curl does", arguments: ["-O", "-J"],
            answer: reply("server\n", disposition: nil), setup: .file("letters", "mine\n")),
        Row(name: "-C - -O -J: refused before anything is sent (2)", arguments: ["-C", "-", "-O", "-J"], answer: reply("server\n"),
            setup: .file("victim.txt", "mine\n")),
        Row(name: "--remove-on-error after the file was opened: removed", arguments: ["--remove-on-error", "-m", "1", "-o", "out"],
            answer: stalled, setup: .empty),
        Row(name: "without --remove-on-error: the partial file stays", arguments: ["-m", "1", "-o", "out"],
            answer: stalled, setup: .empty),
        Row(name: "--remove-on-error on success: kept", arguments: ["--remove-on-error", "-o", "out"], answer: reply("server\n"), setup: .empty),
    ]

    /// What one tool did.
    struct Outcome: Equatable {
        var status: Int32
        var errors: String
        /// `name=contents` or `name->target` for each entry, sorted.
        var listing: [String]
        /// Whether the link's target (outside the directory) was created.
        var outsideWritten: Bool
    }

    static func run(_ tool: String, _ row: Row) throws -> Outcome {
        let pause: [ScriptedServer.Step] = row.answer == stalled ? [.sleep(.seconds(3))] : []
        let server = try ScriptedServer(script: [.expectRequest, .send(Array(row.answer.utf8))] + pause + [.close])
        defer { server.stop() }
        let root = NSTemporaryDirectory() + "filesafety-\(UUID().uuidString)"
        let directory = root + "/run"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let target = root + "/target"
        switch row.setup {
        case .empty: break
        case .file(let name, let contents): try contents.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        case .link(let name): try FileManager.default.createSymbolicLink(atPath: directory + "/" + name, withDestinationPath: target)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--no-progress-meter"] + row.arguments + ["http://127.0.0.1:\(server.port)/letters"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let listing = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { name in
            let path = directory + "/" + name
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path) { return "\(name)->\(link == target ? "target" : link)" }
            return "\(name)=\((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?")"
        }
        return Outcome(status: process.terminationStatus, errors: normalise(errorText), listing: listing,
                       outsideWritten: FileManager.default.fileExists(atPath: target))
    }

    /// curl's name and hint become fetch's; curl's timeout detail is dropped.
    static func normalise(_ text: String) -> String {
        text.replacingOccurrences(of: "curl: ", with: "fetch: ")
            .replacingOccurrences(of: #" after [0-9]+ milliseconds with .*"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: "try 'curl --help' or 'curl --manual'", with: "try 'fetch --help'")
    }

    @Test("same exit status, messages and files as curl", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run(try #require(safetyCurl), row)
        let fetch = try Self.run(try #require(safetyFetch), row)
        #expect(fetch == curl)
        #expect(!fetch.outsideWritten)
    }

    /// Runs `tool` with standard output a pipe whose reader closes after 10 bytes.
    static func runIntoClosedPipe(_ tool: String) throws -> (status: Int32, reason: Process.TerminationReason, errors: String) {
        // 4 MiB: far more than the pipe buffer, so writes go on after the reader left.
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 4 << 20)
        let server = try ScriptedServer(script: [
            .expectRequest, .send(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body), .close,
        ])
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-sS", "http://127.0.0.1:\(server.port)/big"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var received = 0
        while received < 10 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk.count
        }
        try output.fileHandleForReading.close()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, normalise(errorText))
    }

    @Test("a reader that closes the pipe early: exit 23, 'Failure writing output to destination', as curl (was SIGPIPE, 141)")
    func closedPipe() throws {
        let curl = try Self.runIntoClosedPipe(try #require(safetyCurl))
        let fetch = try Self.runIntoClosedPipe(try #require(safetyFetch))
        #expect(curl.status == 23 && curl.reason == .exit)
        #expect(fetch.reason == .exit, "killed by signal \(fetch.status)")
        #expect(fetch.status == curl.status)
        #expect(fetch.errors == curl.errors)
    }
}
#endif
