// `fetch ws://` and `wss://` (Lariat's own; curl 7.88 has none) against scripts/ws-test-server.py:
// received messages streamed to standard output, standard input's lines sent as text messages,
// the transfer ending with the server's close (0), --max-time (28), a refused upgrade (8), a
// refused connection (7). The binary is the one `swift build --build-tests` put next to the tests.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport
@testable import Client

/// `fetch` next to the running test bundle, if it was built.
private let fetchExecutable: String? = fetchExecutablePath

extension ClientIntegrationTests {
    @Suite("fetch ws://", .serialized, .enabled(if: fetchExecutable != nil, "the fetch binary is not built next to the tests"))
    struct FetchWebSocketTests {
        /// Runs fetch with `input` on standard input; returns its status, standard output and error.
        static func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String, error: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(fetchExecutable))
            process.arguments = arguments
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
            // Both outputs are small (a few lines), so reading one after the other cannot block.
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            let error = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
        }

        @Test("messages stream to stdout and stdin lines go out as text, over ws and wss; --max-time ends it (28)",
              arguments: [false, true])
        func echo(tls: Bool) throws {
            let server = try WebSocketTestServer(tls: tls)
            defer { server.stop() }
            var arguments = ["-s", "-S", "--max-time", "1.5", server.url("/fragmented")]
            if tls { arguments = ["--cacert", try HTTPSLab.shared.get().path("ca.pem")] + arguments }
            let result = try Self.run(arguments, input: "hello\nwörld\n")
            #expect(result.output == "Hello, fragmented worldhellowörld")
            #expect(result.status == 28, "\(result.error)")
        }

        @Test("the server's close ends the transfer with 0")
        func serverCloses() throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let result = try Self.run([server.url("/close")], input: "bye\n")
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.isEmpty)
        }

        @Test("fetch ws:// of a 64 MiB /flood to a slow reader of its stdout: fetch's heap stays bounded (back-pressure)")
        func floodToSlowReader() throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(fetchExecutable))
            process.arguments = ["-s", "--max-time", "120", server.url("/flood")]
            process.standardInput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let sampler = ProcessMemorySampler(pid: process.processIdentifier)
            // Read slowly (at most 64 KiB, then 4 ms: about 16 MB/s, slower than the server), so
            // fetch's writes block and its handler falls behind.
            var total = 0
            while true {
                let chunk = output.fileHandleForReading.readData(ofLength: 64 * 1024)
                if chunk.isEmpty { break }
                total += chunk.count
                usleep(4000)
            }
            process.waitUntilExit()
            let (_, anonymous) = sampler.stop()
            #expect(process.terminationStatus == 0)
            #expect(total == 64 << 20)
            let environment = ProcessInfo.processInfo.environment
            let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
            #expect(anonymous > 0 && (sanitized || anonymous < 16 * 1024), "fetch's anonymous memory \(anonymous) KiB")
            print("fetch ws:// /flood to a slow reader: anonymous \(anonymous) KiB for 64 MiB")
        }

        @Test("a refused upgrade is 8, a refused connection 7, an unknown scheme still 1")
        func failures() throws {
            let server = try WebSocketTestServer()
            defer { server.stop() }
            let refused = try Self.run([server.url("/refuse", raw: true)], input: "")
            #expect(refused.status == 8)
            #expect(refused.error.contains("not 101"), "\(refused.error)")
            #expect(try Self.run(["ws://127.0.0.1:1/"], input: "").status == 7)
            #expect(try Self.run(["gopher://127.0.0.1/"], input: "").status == 1)
        }
    }
}
#endif
