// The built `fetch` binary against `openssl s_server` on loopback, with the certificate lab:
// curl's TLS spellings (--resolve, --cacert, --cert/--key/--pass/--cert-type, --crlfile,
// --cert-status, --ciphers, --tlsv1.2/--tlsv1.3/--tls-max, --pinnedpubkey) and curl's exit codes;
// then plain-HTTP rows against ScriptedServer: --connect-timeout and --max-time (28), refused
// hosts (3).
// The binary is the one `swift build --build-tests` put next to the test bundle.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport
@testable import Client

/// `fetch` next to the running test bundle, if it was built.
private let fetchBinary: String? = fetchExecutablePath

extension FetchIntegrationTests {
    @Suite("fetch over TLS", .enabled(if: fetchBinary != nil, "the fetch binary is not built next to the tests (swift build --build-tests)"))
    struct FetchTests {
        /// Which server a row runs against.
        enum Server: Sendable {
            /// good + intermediate, no client certificate, no stapling.
            case standard
            /// Requires a client certificate from the lab's client CA.
            case mutual
            /// Speaks TLS 1.2 only.
            case tls12Only
            /// Accepts the P-384 key exchange only.
            case p384Only
        }

        /// One fetch run: `{port}` and `{lab}` in the arguments are replaced.
        struct Row: Sendable, CustomTestStringConvertible {
            var name: String
            var server: Server
            var arguments: [String]
            var status: Int32
            var testDescription: String { "\(name) → exit \(status)" }
        }

        static let resolve = ["--resolve", "lariat.test:{port}:127.0.0.1", "--cacert", "{lab}/ca.pem"]
        static let url = "https://lariat.test:{port}/"

        static let rows: [Row] = [
            // --resolve: the URL's name, connected at 127.0.0.1, verified for lariat.test.
            Row(name: "--resolve with the lab CA", server: .standard, arguments: resolve + [url], status: 0),
            Row(name: "--resolve, several addresses, first one unreachable", server: .standard,
                arguments: ["--resolve", "lariat.test:{port}:[::1],127.0.0.1", "--cacert", "{lab}/ca.pem", url], status: 0),
            Row(name: "--resolve without the lab CA: untrusted", server: .standard, arguments: ["--resolve", "lariat.test:{port}:127.0.0.1", url], status: 60),
            Row(name: "--resolve to a name the certificate lacks", server: .standard,
                arguments: ["--resolve", "other.lariat.test:{port}:127.0.0.1", "--cacert", "{lab}/ca.pem", "https://other.lariat.test:{port}/"], status: 60),
            Row(name: "--resolve that is not HOST:PORT:ADDR", server: .standard, arguments: ["--resolve", "lariat.test:127.0.0.1", url], status: 49),
            Row(name: "--resolve with a name as the address", server: .standard, arguments: ["--resolve", "lariat.test:{port}:localhost", url], status: 49),
            // Mutual TLS.
            Row(name: "--cert/--key PEM", server: .mutual, arguments: resolve + ["--cert", "{lab}/client.pem", "--key", "{lab}/client.key", url], status: 0),
            Row(name: "--cert/--key with an encrypted key and --pass", server: .mutual,
                arguments: resolve + ["--cert", "{lab}/client.pem", "--key", "{lab}/client.enc.key", "--pass", HTTPSLab.clientPassword, url], status: 0),
            Row(name: "--cert FILE.p12 --pass", server: .mutual, arguments: resolve + ["--cert", "{lab}/client.p12", "--pass", HTTPSLab.clientPassword, url], status: 0),
            Row(name: "--cert FILE.p12:PASSWORD --cert-type P12", server: .mutual,
                arguments: resolve + ["--cert", "{lab}/client.p12:\(HTTPSLab.clientPassword)", "--cert-type", "P12", url], status: 0),
            Row(name: "no client certificate: handshake refused", server: .mutual, arguments: resolve + [url], status: 35),
            Row(name: "--cert file missing", server: .mutual, arguments: resolve + ["--cert", "{lab}/nonexistent.pem", url], status: 58),
            Row(name: "--key that does not match --cert", server: .mutual, arguments: resolve + ["--cert", "{lab}/client.pem", "--key", "{lab}/good.key", url], status: 58),
            Row(name: "--cert FILE.p12 with the wrong --pass", server: .mutual, arguments: resolve + ["--cert", "{lab}/client.p12", "--pass", "wrong", url], status: 58),
            Row(name: "--cert-type that does not exist", server: .mutual, arguments: resolve + ["--cert", "{lab}/client.pem", "--cert-type", "ENG", url], status: 2),
            // Versions and ciphers.
            Row(name: "--tlsv1.3 against a TLS 1.3 server", server: .standard, arguments: resolve + ["--tlsv1.3", url], status: 0),
            Row(name: "--tlsv1.3 against a TLS 1.2-only server", server: .tls12Only, arguments: resolve + ["--tlsv1.3", url], status: 35),
            Row(name: "--tlsv1.2 against a TLS 1.2-only server", server: .tls12Only, arguments: resolve + ["--tlsv1.2", url], status: 0),
            Row(name: "--tls-max 1.2 with --ciphers", server: .standard,
                arguments: resolve + ["--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384", url], status: 0),
            Row(name: "--ciphers that select nothing", server: .standard, arguments: resolve + ["--ciphers", "NO-SUCH-CIPHER", url], status: 59),
            Row(name: "--tlsv1.3 with --tls-max 1.2", server: .standard, arguments: resolve + ["--tlsv1.3", "--tls-max", "1.2", url], status: 59),
            // --curves (curl 7.88.1 gives the same statuses against `s_server -groups P-384`).
            Row(name: "--curves P-384 against a P-384-only server", server: .p384Only, arguments: resolve + ["--curves", "P-384", url], status: 0),
            Row(name: "--curves X25519 against a P-384-only server", server: .p384Only, arguments: resolve + ["--curves", "X25519", url], status: 35),
            Row(name: "--curves naming no group", server: .standard, arguments: resolve + ["--curves", "nope", url], status: 59),
            // Revocation.
            Row(name: "--cert-status against a server that staples nothing", server: .standard, arguments: resolve + ["--cert-status", url], status: 91),
            Row(name: "--crlfile with current CRLs for root and intermediate", server: .standard, arguments: resolve + ["--crlfile", "{lab}/crls.pem", url], status: 0),
            Row(name: "--crlfile with only the intermediate's CRL (chain not covered)", server: .standard,
                arguments: resolve + ["--crlfile", "{lab}/inter.crl.pem", url], status: 60),
            Row(name: "--crlfile missing", server: .standard, arguments: resolve + ["--crlfile", "{lab}/nonexistent.crl", url], status: 82),
            Row(name: "--cacert missing", server: .standard, arguments: ["--resolve", "lariat.test:{port}:127.0.0.1", "--cacert", "{lab}/nonexistent.pem", url], status: 77),
            // Pinning.
            Row(name: "--pinnedpubkey with the server's key", server: .standard, arguments: resolve + ["--pinnedpubkey", "{lab}/good.pem", url], status: 0),
            Row(name: "--pinnedpubkey with another key", server: .standard, arguments: resolve + ["--pinnedpubkey", "{lab}/rogue.pem", url], status: 90),
        ]

        @Test("exit status", arguments: rows)
        func exitStatus(_ row: Row) async throws {
            let lab = try HTTPSLab.shared.get()
            let arguments: [String]
            switch row.server {
            case .standard: arguments = []
            case .mutual: arguments = ["-Verify", "1", "-verify_return_error", "-CAfile", lab.path("clientca.pem")]
            case .tls12Only: arguments = ["-tls1_2"]
            case .p384Only: arguments = ["-groups", "P-384"]
            }
            let server = try HTTPSServer(lab: lab, certificate: "good", chain: "inter.pem", arguments: arguments)
            defer { server.stop() }
            let substituted = row.arguments.map {
                $0.replacingOccurrences(of: "{port}", with: "\(server.port)").replacingOccurrences(of: "{lab}", with: lab.directory)
            }
            // No meter: stdout is a pipe, so fetch would draw curl's progress meter on stderr.
            let result = try FetchTests.run(["--max-time", "10", "--no-progress-meter"] + substituted)
            #expect(result.status == row.status, "stderr: \(result.standardError)")
            if row.status == 0 {
                #expect(result.standardOutput.contains("s_server"), "stdout: \(result.standardOutput.prefix(200))")
            } else {
                #expect(result.standardError.hasPrefix("fetch: "), "one line naming the failure: \(result.standardError)")
            }
        }

        /// Runs fetch and collects its exit status and output.
        static func run(_ arguments: [String]) throws -> (status: Int32, standardOutput: String, standardError: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(fetchBinary))
            process.arguments = arguments
            // stderr goes to a file, so neither stream can fill a pipe while we read the other.
            let errorPath = NSTemporaryDirectory() + "fetch-stderr-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            defer { try? FileManager.default.removeItem(atPath: errorPath) }
            let errors = try #require(FileHandle(forWritingAtPath: errorPath))
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try errors.close()
            let errorText = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), errorText)
        }
    }
}

extension FetchIntegrationTests.FetchTests {
    @Test("--connect-timeout 2 against a listener that never accepts: exit 28 in about 2 s")
    func connectTimeout() throws {
        // Used to wait for the request timeout (60 s): --connect-timeout was parsed and ignored.
        let listener = try FullBacklogListener()
        defer { listener.close() }
        let start = ContinuousClock.now
        let result = try Self.run(["--connect-timeout", "2", "http://127.0.0.1:\(listener.port)/"])
        let elapsed = milliseconds(since: start)
        #expect(result.status == 28, "stderr: \(result.standardError)")
        #expect(elapsed >= 1_900 && elapsed < 4_000, "exited after \(elapsed) ms")
    }

    @Test("a host that fails validation: exit 3, nothing connects", arguments: [
        // NUL: used to connect to localhost and send the whole request with Host: x
        ["-H", "Host: x", "http://localhost%00.evil.example:{port}/"],
        ["http://127.0.0.1%2F.evil.example:{port}/"],
        ["http://localhost%20:{port}/"],
    ])
    func refusedHost(_ arguments: [String]) throws {
        let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
        defer { server.stop() }
        let result = try Self.run(["--max-time", "5"] + arguments.map { $0.replacingOccurrences(of: "{port}", with: "\(server.port)") })
        #expect(result.status == 3, "stderr: \(result.standardError)")
        #expect(server.connectionCount == 0)
    }
}

extension FetchIntegrationTests.FetchTests {
    /// A chunked response that never ends on its own: 1 KiB chunks every 50 ms for 30 s, so the
    /// idle limit never fires and only the total deadline can stop it.
    static func endlessChunkedBody() -> [ScriptedServer.Step] {
        let chunk = "400\r\n" + String(repeating: "x", count: 1024) + "\r\n"
        var script: [ScriptedServer.Step] = [.expectRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
        for _ in 0..<600 { script += [.send(chunk), .sleep(.milliseconds(50))] }
        return script + [.close]
    }

    @Test("--max-time 2 -o FILE on an endless body: exit 28 in about 2 s")
    func maxTimeEndlessBody() throws {
        // Used to run until the server quit (growing without bound) and exit 0.
        let server = try ScriptedServer(script: Self.endlessChunkedBody())
        defer { server.stop() }
        let output = NSTemporaryDirectory() + "fetch-endless-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let start = ContinuousClock.now
        let result = try Self.run(["--max-time", "2", "-o", output, "http://127.0.0.1:\(server.port)/"])
        let elapsed = milliseconds(since: start)
        #expect(result.status == 28, "stderr: \(result.standardError)")
        #expect(elapsed >= 1_900 && elapsed < 4_000, "exited after \(elapsed) ms")
    }
}

extension FetchIntegrationTests.FetchTests {
    @Test("--unix-socket and --abstract-unix-socket send the URL's request to the socket")
    func unixSocket() throws {
        let path = "/tmp/lariat-fetch-\(getpid()).sock"
        let file = try UnixSocketServer(name: path)
        defer { file.stop() }
        let viaPath = try Self.run(["-sS", "--unix-socket", path, "http://docker/v1.43/version"])
        #expect(viaPath.status == 0, "\(viaPath.standardError)")
        #expect(viaPath.standardOutput == "unix")
        #expect(file.requestHeads.first?.hasPrefix("GET /v1.43/version HTTP/1.1\r\nHost: docker\r\n") == true, "\(file.requestHeads)")

        let abstract = try UnixSocketServer(name: "lariat-fetch-\(getpid())", abstract: true)
        defer { abstract.stop() }
        let viaName = try Self.run(["-sS", "--abstract-unix-socket", abstract.name, "http://localhost/x"])
        #expect(viaName.status == 0 && viaName.standardOutput == "unix", "\(viaName.standardError)")
        let missing = try Self.run(["-sS", "--unix-socket", "/tmp/lariat-none.sock", "http://localhost/"])
        #expect(missing.status == 7, "\(missing.standardError)")
    }
}
#endif
