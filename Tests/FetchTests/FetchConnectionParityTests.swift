// fetch and curl 7.88 on the connection options that act on the socket (`--haproxy-protocol`,
// `--local-port`, `--interface`, `--tcp-fastopen`), against the scripted server: the first line
// each tool sent (the PROXY protocol line shows the local address and port the socket got),
// exit status, output and messages.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

@Suite("fetch and curl on the socket's local end", .enabled(
    if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].map { !$0.isEmpty } ?? false
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
    "needs curl, and LARIAT_HTTPBIN for FetchCurlParityTests' runner"))
struct FetchConnectionParityTests {
    /// One row: arguments (`{url}` the server's `/r`, `{port}` its port, `{busy}` a local port
    /// held by a listener for the run, `{busy+1}` the one after it).
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var family: LoopbackFamily = .ipv4
        /// Whether the local port of the PROXY line is compared (only when the tool was told it).
        var comparesLocalPort = false
        var testDescription: String { arguments.joined(separator: " ") + (family == .ipv6 ? " (IPv6)" : "") }
    }

    static let rows: [Row] = [
        // The PROXY protocol v1 line, before the request (TCP4, TCP6) and before a proxy's
        // absolute-form request.
        Row(arguments: ["-sS", "--haproxy-protocol", "{url}"]),
        Row(arguments: ["-sS", "--haproxy-protocol", "{url}"], family: .ipv6),
        Row(arguments: ["-sS", "--haproxy-protocol", "-x", "http://127.0.0.1:{port}", "http://origin.invalid/r"]),
        Row(arguments: ["-sS", "--haproxy-protocol", "--no-haproxy-protocol", "{url}"]),
        // --local-port: the first free port of the range; none free is 45 with bind's errno.
        Row(arguments: ["-sS", "--haproxy-protocol", "--local-port", "{busy}-{busy+1}", "{url}"], comparesLocalPort: true),
        Row(arguments: ["-sS", "--local-port", "{busy}", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "{busy}-{busy}", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "0", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "70000", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "5-3", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "abc", "{url}"]),
        Row(arguments: ["-sS", "--local-port", "40030-", "{url}"]),
        // --interface: an address (the PROXY line shows it), an interface, host!NAME, if!NAME.
        Row(arguments: ["-sS", "--haproxy-protocol", "--interface", "127.0.0.2", "{url}"]),
        Row(arguments: ["-sS", "--haproxy-protocol", "--interface", "host!127.0.0.3", "{url}"]),
        Row(arguments: ["-sS", "--haproxy-protocol", "--interface", "::1", "{url}"], family: .ipv6),
        Row(arguments: ["-sS", "--interface", "lo", "{url}"]),
        Row(arguments: ["-sS", "--interface", "if!lo", "{url}"]),
        Row(arguments: ["-sS", "--interface", "", "{url}"]),
        Row(arguments: ["-sS", "--interface", "if!nonexist0", "{url}"]),
        Row(arguments: ["-sS", "--interface", "nonexist0", "{url}"]),
        Row(arguments: ["-sS", "--interface", "host!nonexist.invalid", "{url}"]),
        Row(arguments: ["-sS", "--interface", "10.9.9.9", "{url}"]),
        // --tcp-fastopen: nothing to see on loopback but the request working.
        Row(arguments: ["-sS", "--tcp-fastopen", "{url}"]),
    ]

    // Each tool gets its own busy port: the range row binds {busy+1}, and the first tool's
    // connection from that port can sit in TIME_WAIT when the second tool tries it (CI saw fetch
    // refused with EADDRINUSE after curl). The blocking runs go off the cooperative pool: 23 rows
    // of child processes and 2 s waits held both of CI's pool threads for a minute.
    @Test("same first line on the wire, exit status and output", arguments: rows)
    func sameAsCurl(_ row: Row) async throws {
        let (curl, fetch) = try await offPool {
            (try Self.run("/usr/bin/curl", row), try Self.run(FetchOptionParityTests.fetchPath, row))
        }
        #expect(fetch.result.status == curl.result.status, "curl stderr: \(curl.result.errors)\nfetch stderr: \(fetch.result.errors)")
        #expect(fetch.result.output == curl.result.output)
        #expect(fetch.result.errors == curl.result.errors)
        #expect(fetch.firstLine == curl.firstLine)
    }

    /// The first line received (through its CR LF), the PROXY line's local port masked unless
    /// the row fixes it (then shown relative to the busy port), and its server port.
    static func firstLine(_ bytes: [UInt8], _ row: Row, busy: Int) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n") else { return text.hasPrefix("\u{16}") ? "<TLS>" : text }
        var fields = text[..<end.upperBound].components(separatedBy: " ")
        guard fields.first == "PROXY", fields.count == 6 else { return fields.joined(separator: " ") }
        if !row.comparesLocalPort {
            fields[4] = "<port>"
        } else if let port = Int(fields[4]) {
            fields[4] = port == busy ? "{busy}" : port == busy + 1 ? "{busy+1}" : fields[4]
        }
        fields[5] = "<server port>\r\n"  // each tool meets a fresh server
        return fields.joined(separator: " ")
    }

    struct NoFreePort: Error {}

    /// A loopback port held by a listener (SO_REUSEADDR off), so that binding it fails.
    static func busyPort() throws -> (fd: Int32, port: Int) {
        for _ in 0..<20 {
            let port = Int.random(in: 42000...58000)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = 0  // INADDR_ANY: every local address of the port is taken
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // The next port must be free for the range row.
            if bound == 0, listen(fd, 1) == 0, Self.isFree(port + 1) { return (fd, port) }
            close(fd)
        }
        throw NoFreePort()
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Runs `tool` for `row` against a fresh server; what it printed and the server received.
    static func run(_ tool: String, _ row: Row) throws -> (result: FetchCurlParityTests.Result, firstLine: String) {
        let (busyFD, busy) = try Self.busyPort()
        defer { close(busyFD) }
        let server = try ScriptedServer(
            script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"), .close], family: row.family)
        defer { server.stop() }
        let host = row.family == .ipv6 ? "[::1]" : "127.0.0.1"
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "{url}", with: "http://\(host):\(server.port)/r")
                .replacingOccurrences(of: "{tls}", with: "https://\(host):\(server.port)/r")
                .replacingOccurrences(of: "{port}", with: "\(server.port)")
                .replacingOccurrences(of: "{busy+1}", with: "\(busy + 1)")
                .replacingOccurrences(of: "{busy}", with: "\(busy)")
        }
        let result = try FetchCurlParityTests.run(tool, FetchCurlParityTests.Row(arguments: arguments))
        _ = server.waitForConnections(1, finished: true, timeout: .seconds(2))
        return (result, firstLine(server.receivedBytes(onConnection: 0), row, busy: busy))
    }

    // MARK: SOCKS4

    /// One SOCKS4 row: arguments (`{proxy}` the scripted server's `127.0.0.1:port`), the
    /// handshake bytes curl 7.88.1 sends (nil: none expected), the server's reply.
    struct SOCKSRow: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var request: [UInt8]?
        var reply: [UInt8] = [0, 90, 0, 80, 127, 0, 0, 1]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let socksRows: [SOCKSRow] = [
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://127.0.0.1:9/x"], request: [4, 1, 0, 9, 127, 0, 0, 1, 0]),
        SOCKSRow(arguments: ["-sS", "--socks4a", "{proxy}", "http://ex.invalid/x"],
                 request: [4, 1, 0, 80, 0, 0, 0, 1, 0] + Array("ex.invalid".utf8) + [0]),
        SOCKSRow(arguments: ["-sS", "-x", "socks4://u:p@{proxy}", "http://127.0.0.1:9/x"], request: [4, 1, 0, 9, 127, 0, 0, 1, 0x75, 0]),
        SOCKSRow(arguments: ["-sS", "-x", "socks4a://{proxy}", "http://127.0.0.1:9/x"],
                 request: [4, 1, 0, 9, 0, 0, 0, 1, 0] + Array("127.0.0.1".utf8) + [0]),
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://127.0.0.1:9/x"], request: [4, 1, 0, 9, 127, 0, 0, 1, 0],
                 reply: [0, 91, 0, 80, 127, 0, 0, 1]),
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://127.0.0.1:9/x"], request: [4, 1, 0, 9, 127, 0, 0, 1, 0],
                 reply: [0, 92, 0, 80, 127, 0, 0, 1]),
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://127.0.0.1:9/x"], request: [4, 1, 0, 9, 127, 0, 0, 1, 0],
                 reply: [5, 90, 0, 80, 127, 0, 0, 1]),
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://[::1]:9/x"], request: nil),
        SOCKSRow(arguments: ["-sS", "--socks4", "{proxy}", "http://nonexist.invalid/x"], request: nil),
    ]

    @Test("SOCKS4: same handshake bytes, exit status and output", arguments: socksRows)
    func socks4(_ row: SOCKSRow) async throws {
        let (curl, fetch) = try await offPool {
            (try Self.runSOCKS("/usr/bin/curl", row), try Self.runSOCKS(FetchOptionParityTests.fetchPath, row))
        }
        #expect(fetch.result.status == curl.result.status, "curl stderr: \(curl.result.errors)\nfetch stderr: \(fetch.result.errors)")
        #expect(fetch.result.output == curl.result.output)
        #expect(fetch.result.errors == curl.result.errors)
        #expect(fetch.handshake == curl.handshake)
        #expect(curl.handshake == (row.request ?? []))
    }

    /// Runs `tool` for `row` with the scripted server as the SOCKS4 proxy and, once granted, the
    /// origin; the bytes received before the HTTP request.
    static func runSOCKS(_ tool: String, _ row: SOCKSRow) throws -> (result: FetchCurlParityTests.Result, handshake: [UInt8]) {
        var script: [ScriptedServer.Step] = [.receive(atLeast: 1), .sleep(.milliseconds(200)), .send(row.reply)]
        if row.reply[0] == 0 && row.reply[1] == 90 { script += [.sleep(.milliseconds(100)), .send("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")] }
        script.append(.close)
        let server = try ScriptedServer(script: script)
        defer { server.stop() }
        let arguments = row.arguments.map { $0.replacingOccurrences(of: "{proxy}", with: "127.0.0.1:\(server.port)") }
        let result = try FetchCurlParityTests.run(tool, FetchCurlParityTests.Row(arguments: arguments))
        _ = server.waitForConnections(1, finished: true, timeout: .seconds(2))
        let received = server.receivedBytes(onConnection: 0)
        let http = Array("GET ".utf8)
        let end = received.indices.first { received[$0...].starts(with: http) } ?? received.endIndex
        return (result, Array(received[..<end]))
    }
}
#endif
