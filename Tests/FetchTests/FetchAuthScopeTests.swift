// fetch and curl 7.88 side by side on scripted servers (issue 25, item 1): which requests carry
// Authorization, and with which scheme, when a 302 leads to another port answering 401, when
// `--digest` meets a Basic-only challenge, `--basic` a Digest one, `--anyauth` either, and with
// `--location-trusted`. Each tool gets its own pair of servers; exit status, standard output and
// the schemes each server received must match.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let authFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let authCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("fetch and curl: credentials stay with their origin", .enabled(if: authFetch != nil && authCurl != nil,
                                                                         "needs curl and fetch built next to the tests"))
struct FetchAuthScopeTests {
    /// One run: `{origin}` is a server answering 302 to `{target}`, a server on another port
    /// answering every request with a 401 offering `challenges`.
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var challenges: [String]
        var testDescription: String { arguments.joined(separator: " ") + " ← " + challenges.joined(separator: " + ") }
    }

    static let digest = "Digest realm=\"r\", nonce=\"abc\", qop=\"auth\", algorithm=MD5"
    static let basic = "Basic realm=\"r\""

    static let rows: [Row] = [
        // curl sends nothing to the other port: the first origin only.
        Row(arguments: ["-sL", "--digest", "-u", "u:p", "{origin}"], challenges: [digest]),
        Row(arguments: ["-sL", "--digest", "-u", "u:p", "{origin}"], challenges: [basic]),
        Row(arguments: ["-sL", "--anyauth", "-u", "u:p", "{origin}"], challenges: [digest]),
        Row(arguments: ["-sL", "-u", "u:p", "{origin}"], challenges: [basic]),
        // --digest never answers Basic (no cleartext password), --basic never Digest.
        Row(arguments: ["-s", "--digest", "-u", "u:p", "{target}"], challenges: [basic]),
        Row(arguments: ["-s", "--digest", "-u", "u:p", "{target}"], challenges: [digest]),
        Row(arguments: ["-s", "--digest", "-u", "u:p", "{target}"], challenges: [basic, digest]),
        Row(arguments: ["-s", "--basic", "-u", "u:p", "{target}"], challenges: [digest]),
        Row(arguments: ["-s", "--digest", "--basic", "-u", "u:p", "{target}"], challenges: [digest]),
        // --anyauth: the strongest offered.
        Row(arguments: ["-s", "--anyauth", "-u", "u:p", "{target}"], challenges: [basic]),
        Row(arguments: ["-s", "--anyauth", "-u", "u:p", "{target}"], challenges: [basic, digest]),
        Row(arguments: ["-s", "--digest", "--anyauth", "-u", "u:p", "{target}"], challenges: [basic]),
        // --location-trusted: the other port is answered too.
        Row(arguments: ["-s", "--location-trusted", "--digest", "-u", "u:p", "{origin}"], challenges: [digest]),
        Row(arguments: ["-s", "--location-trusted", "--anyauth", "-u", "u:p", "{origin}"], challenges: [basic]),
    ]

    @Test("same exit status, output and Authorization schemes per server", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run(try #require(authCurl), row)
        let fetch = try Self.run(try #require(authFetch), row)
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        #expect(fetch.origin == curl.origin, "what the first origin received")
        #expect(fetch.target == curl.target, "what the other port received")
    }

    /// What one tool did, and the Authorization scheme of each request each server received
    /// (`-` for none).
    struct Outcome { var status: Int32; var output: String; var errors: String; var origin: [String]; var target: [String] }

    static func run(_ tool: String, _ row: Row) throws -> Outcome {
        let challengeFields = row.challenges.map { "WWW-Authenticate: \($0)\r\n" }.joined()
        let target = try ScriptedServer(script: [
            .expectRequest, .send("HTTP/1.1 401 Unauthorized\r\n\(challengeFields)Content-Length: 7\r\nConnection: close\r\n\r\ndenied\n"), .close,
        ], forEveryConnection: true)
        defer { target.stop() }
        let origin = try ScriptedServer(script: [
            .expectRequest,
            .send("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(target.port)/t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), .close,
        ], forEveryConnection: true)
        defer { origin.stop() }
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "{origin}", with: "http://127.0.0.1:\(origin.port)/start")
                .replacingOccurrences(of: "{target}", with: "http://127.0.0.1:\(target.port)/t")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                       errors: String(decoding: errorData, as: UTF8.self), origin: schemes(origin), target: schemes(target))
    }

    /// The Authorization scheme of every request `server` received, in order.
    static func schemes(_ server: ScriptedServer) -> [String] {
        (0..<server.connectionCount).flatMap { server.requests(onConnection: $0) }.map { request in
            let lines = String(decoding: request, as: UTF8.self).split(separator: "\r\n")
            guard let field = lines.first(where: { $0.lowercased().hasPrefix("authorization:") }) else { return "-" }
            return String(field.dropFirst("authorization:".count).drop { $0 == " " }.prefix { $0 != " " })
        }
    }
}
#endif
