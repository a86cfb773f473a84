// fetch's streaming Transfer against ScriptedServer: -L never writes a redirect's body, and a
// 64 MiB body goes to `-o /dev/null` and to standard output while the child's resident
// anonymous memory (RssAnon, sampled from /proc while it runs) stays far below the body's size
// (the DataRequest-based Transfer held the whole body).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let fetchExecutable: String? = fetchExecutablePath

extension FetchIntegrationTests {
    @Suite("fetch streaming", .enabled(if: fetchExecutable != nil, "the fetch binary is not built next to the tests"))
    struct FetchStreamingTests {
        /// The body's size: 64 MiB, sent in 1 MiB pieces (one shared array).
        static let bodySize = 64 << 20

        @Test("a 64 MiB body is streamed: fetch's anonymous memory stays under 24 MiB", arguments: [["-o", "/dev/null"], ["-o", "-"]])
        func boundedMemory(arguments: [String]) throws {
            let piece = [UInt8](repeating: 0x61, count: 1 << 20)
            // 1 MiB pieces 1 ms apart: the transfer lasts long enough to be sampled many times.
            let body: [ScriptedServer.Step] = Array(repeating: [.send(piece), .sleep(.milliseconds(1))], count: Self.bodySize >> 20).flatMap { $0 }
            let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: \(Self.bodySize)\r\n\r\n")]
                                                + body + [.close])
            defer { server.stop() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(fetchExecutable))
            process.arguments = ["-s", "--max-time", "60"] + arguments + ["http://127.0.0.1:\(server.port)/big"]
            process.standardError = FileHandle.nullDevice
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Sampled every millisecond on a thread of its own (see ProcessMemorySampler).
            let sampler = ProcessMemorySampler(pid: process.processIdentifier)
            let written = output.fileHandleForReading.readDataToEndOfFile().count
            process.waitUntilExit()
            let (peak, anonymous) = sampler.stop()
            #expect(process.terminationStatus == 0)
            #expect(written == (arguments.last == "-" ? Self.bodySize : 0))
            #expect(peak > 8 * 1024, "the sampler saw the running process (VmHWM \(peak) KiB)")
            // Under AddressSanitizer (freed memory is quarantined, 256 MiB by default) or
            // ThreadSanitizer (shadow memory) the figure measures the sanitizer, not fetch:
            // scripts/sanitizers.sh exports their options, and the plain run checks the bound.
            let environment = ProcessInfo.processInfo.environment
            let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
            #expect(anonymous > 0 && (sanitized || anonymous < 24 * 1024), "anonymous memory \(anonymous) KiB")
            print("fetch \(arguments.joined(separator: " ")): anonymous \(anonymous) KiB, peak RSS \(peak) KiB for a \(Self.bodySize >> 20) MiB body")
        }

        /// Runs fetch to completion; its exit status and standard output.
        private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(fetchExecutable))
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        // -L asks its handler (a .modify Redirector) about each redirect: the redirect's body
        // must never reach the output, its head only with -i (curl's hop heads).
        @Test("-L writes the final body only; -i adds the redirect's head before the final one", arguments: [false, true])
        func redirectBodyNotWritten(includeHeaders: Bool) throws {
            let server = try ScriptedServer(script: [
                .expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 8\r\n\r\nold body"),
                .expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal"),
            ])
            defer { server.stop() }
            let result = try Self.run(["-sS", "-L"] + (includeHeaders ? ["-i"] : []) + ["http://127.0.0.1:\(server.port)/start"])
            #expect(result.status == 0)
            let expected = includeHeaders
                ? "HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 8\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal"
                : "final"
            #expect(result.output == expected)
        }

        /// A scripted response with `body`.
        private static func response(_ status: String, _ body: String) -> ScriptedServer.Step {
            .send("HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }

        // --retry: a retryable status's response is kept (up to 64 KiB) until the retrier
        // decided; only the last attempt's is written. A longer one is written as it arrives.
        @Test("--retry writes only the last attempt's response", arguments: [
            (extra: [String](), first: "busy", second: "200 OK", expected: "ok"),
            (extra: ["-i"], first: "busy", second: "200 OK", expected: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
            (extra: [], first: "busy", second: "503 Service Unavailable", expected: "ok"),
            (extra: [], first: String(repeating: "b", count: 100_000), second: "200 OK", expected: String(repeating: "b", count: 100_000) + "ok"),
        ])
        func retryKeepsRetryableBody(extra: [String], first: String, second: String, expected: String) throws {
            let server = try ScriptedServer(script: [.expectRequest, Self.response("503 Service Unavailable", first),
                                                     .expectRequest, Self.response(second, "ok")])
            defer { server.stop() }
            let result = try Self.run(["-sS", "--retry", "1"] + extra + ["http://127.0.0.1:\(server.port)/"])
            #expect(result.status == 0)
            #expect(result.output == expected, "\(result.output.prefix(80))")
        }

        // curl writes -i's head where the body would go, also when -f then refuses the body.
        @Test("-f -i -o FILE: the refused response's head goes to the file, nothing to standard output")
        func failWithHeadToFile() throws {
            let server = try ScriptedServer(script: [.expectRequest, Self.response("404 Not Found", "missing")])
            defer { server.stop() }
            let path = NSTemporaryDirectory() + "fetch-fail-head-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try Self.run(["-sS", "-f", "-i", "-o", path, "http://127.0.0.1:\(server.port)/"])
            #expect(result.status == 22)
            #expect(result.output.isEmpty, "\(result.output)")
            let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            #expect(written == "HTTP/1.1 404 Not Found\r\nContent-Length: 7\r\n\r\n")
        }
    }
}
#endif
