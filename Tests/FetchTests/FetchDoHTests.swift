// `--doh-url` end to end: fetch and curl 7.88 resolve through the same scripted DoH server
// (scripts/doh-server.py: Python's ssl module, the lab's certificate for 127.0.0.1) and fetch
// the origin, a ScriptedServer, at the address the answer gave. Per row: exit status and standard
// error as curl's, whether the origin was reached, and the queries the DoH server decoded.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

@Suite("fetch --doh-url against a scripted DoH server", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs curl and python3"))
struct FetchDoHTests {
    struct Row: Sendable, CustomTestStringConvertible {
        /// The host's first label (the DoH server's table, scripts/doh-server.py).
        var label: String
        var options: [String] = ["--cacert", "{ca}"]
        var status: Int32
        var origin: LoopbackFamily = .ipv4
        /// fetch's status where it differs from curl 7.88's by design (Documentation/fetch.md).
        var fetchStatus: Int32?
        var testDescription: String { ([label] + options).joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(label: "a", status: 0),
        Row(label: "cname", status: 0),
        Row(label: "six", status: 0, origin: .ipv6),
        Row(label: "nx", status: 6),
        Row(label: "other", status: 6),  // NOERROR, no answer
        Row(label: "trunc", status: 6),
        Row(label: "bad", status: 6),
        Row(label: "wrongid", status: 6),
        Row(label: "big", status: 6),  // over 3000 bytes
        Row(label: "loop", status: 6),
        Row(label: "onlycname", status: 27, fetchStatus: 6),  // curl 7.88: "Out of memory"
        // The DoH server's TLS: -k does not reach it, --doh-insecure does; no staple for --doh-cert-status.
        Row(label: "a", options: ["-k"], status: 6),
        Row(label: "a", options: ["--doh-insecure"], status: 0),
        Row(label: "a", options: ["--cacert", "{ca}", "--doh-cert-status"], status: 6),
        Row(label: "a", options: ["--cacert", "{ca}", "--doh-url", "http://127.0.0.1:{doh}/dns-query"], status: 6),
    ]

    @Test("resolution, exit status and message as curl's", arguments: rows)
    func sameAsCurl(_ row: Row) async throws {
        // Everything that waits (the server's start, the child processes) runs off the pool.
        let (curl, fetch) = try await offPool {
            let lab = try HTTPSLab.shared.get()
            let directory = NSTemporaryDirectory() + "doh-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let log = directory + "/queries"
            let doh = try DoHServer(certificateFile: lab.path("server.pem"), keyFile: lab.path("server.key"), log: log)
            defer { doh.stop() }
            var curl = try Self.run("/usr/bin/curl", row, doh: doh.port, ca: lab.path("ca.pem"))
            curl.queries = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: log)
            var fetch = try Self.run(FetchOptionParityTests.fetchPath, row, doh: doh.port, ca: lab.path("ca.pem"))
            fetch.queries = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return (curl, fetch)
        }
        #expect(curl.status == row.status, "curl: \(curl.errors)")
        #expect(fetch.status == row.fetchStatus ?? row.status, "fetch: \(fetch.errors)")
        if row.fetchStatus == nil && !row.options.contains("-k") {  // fetch warns about -k, curl does not
            #expect(fetch.errors == curl.errors.replacingOccurrences(of: "curl: ", with: "fetch: "))
        }
        #expect(fetch.reached == (row.status == 0))
        #expect(curl.reached == (row.status == 0))
        #expect(Set(curl.queries.split(separator: "\n")) == Set(fetch.queries.split(separator: "\n")))
        // Both ask A and AAAA (in either order) for a resolved name; nothing for an http DoH URL.
        let asked = Set(fetch.queries.split(separator: "\n").map(String.init))
        if !row.options.contains(where: { $0.hasPrefix("http://") }) && !row.options.contains("-k") && !row.options.contains("--doh-cert-status") {
            #expect(asked == ["\(row.label).test 1", "\(row.label).test 28"], "\(fetch.queries)")
        } else {
            #expect(asked.isEmpty)
        }
    }

    struct Outcome: Sendable {
        var status: Int32
        var errors: String
        var reached: Bool
        var queries = ""
    }

    /// Runs `tool` for `row`: the origin is a fresh ScriptedServer on the row's loopback family.
    static func run(_ tool: String, _ row: Row, doh: Int, ca: String) throws -> Outcome {
        let origin = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"), .close], family: row.origin)
        defer { origin.stop() }
        var arguments = ["-sS", "-o", "/dev/null", "--max-time", "20", "--doh-url", "https://127.0.0.1:\(doh)/dns-query"]
        arguments += row.options.map { $0.replacingOccurrences(of: "{ca}", with: ca).replacingOccurrences(of: "{doh}", with: String(doh)) }
        arguments.append("http://\(row.label).test:\(origin.port)/")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let reached = origin.connectionCount > 0 && !(origin.requests.first ?? []).isEmpty
        return Outcome(status: process.terminationStatus, errors: text, reached: reached)
    }
}

/// `scripts/doh-server.py` on 127.0.0.1; call ``stop()``.
final class DoHServer: Sendable {
    private let server: ScriptServer

    /// The HTTPS port.
    var port: Int { server.port }

    init(certificateFile: String, keyFile: String, log: String) throws {
        server = try ScriptServer(script: "doh-server.py", arguments: [certificateFile, keyFile, log])
    }

    /// Stops the server and waits for it.
    func stop() { server.stop() }
}
#endif
