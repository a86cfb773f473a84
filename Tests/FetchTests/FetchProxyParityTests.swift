// fetch and curl 7.88 through the same loopback proxies (TestProxyServer: HTTP forwarding and
// CONNECT, SOCKS5) to the same httpbin: -x in its spellings, -U, -p, --noproxy, --socks5,
// --socks5-hostname, the environment variables (run under env(1)), and the failures with their
// exit statuses (5, 7, 56, 97). Uses FetchCurlParityTests' runner and normalisation.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

@Suite("fetch and curl through proxies", .enabled(
    if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].map { !$0.isEmpty } ?? false
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
    "needs LARIAT_HTTPBIN and curl"))
struct FetchProxyParityTests {
    /// One row: arguments with `{http}`, `{auth}` (an HTTP proxy requiring u:p), `{socks}`,
    /// `{socksauth}` (SOCKS5 requiring u:p), `{refusing}` (SOCKS5 answering reply 2) replaced;
    /// `environment` entries go before the tool under env(1).
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var environment: [String] = []
        var compareErrors = true
        var testDescription: String { (environment + arguments).joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:{http}", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "127.0.0.1:{http}", "{base}/json"]),
        Row(arguments: ["-sS", "--proxy", "http://127.0.0.1:{http}", "-p", "{base}/json"]),
        Row(arguments: ["-sS", "-px", "http://u:p@127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "-p", "-U", "u:p", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "-p", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "-p", "--proxy-user", "u:wrong", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "--socks5", "127.0.0.1:{socks}", "{base}/json"]),
        Row(arguments: ["-sS", "--socks5-hostname", "127.0.0.1:{socks}", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "socks5h://u:p@127.0.0.1:{socksauth}", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "socks5h://u:no@127.0.0.1:{socksauth}", "{base}/json"], compareErrors: false),
        Row(arguments: ["-sS", "-x", "socks5h://127.0.0.1:{refusing}", "{base}/json"], compareErrors: false),
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:1", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "http://nosuch.invalid:3128", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "ftp://127.0.0.1:1", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "http://p:x", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:1", "--noproxy", "127.0.0.1", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:1", "--noproxy", "*", "{base}/json"]),
        Row(arguments: ["-sS", "-x", "", "{base}/json"], environment: ["http_proxy=http://127.0.0.1:1"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["http_proxy=http://127.0.0.1:{http}"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["HTTP_PROXY=http://127.0.0.1:1"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["ALL_PROXY=socks5://127.0.0.1:{socks}"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["all_proxy=http://127.0.0.1:1", "no_proxy=localhost,127.0.0.1"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["all_proxy=http://127.0.0.1:1", "NO_PROXY=127.0.0.0/8"]),
        Row(arguments: ["-sS", "{base}/json"], environment: ["all_proxy=http://127.0.0.1:1"]),
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:1", "{base}/json"], environment: ["no_proxy=127.0.0.1"]),
        Row(arguments: ["-sS", "-x", "http://127.0.0.1:1", "--noproxy", "", "{base}/json"], environment: ["no_proxy=127.0.0.1"]),
        // --proxy-header: after -H in an absolute-form request (`Proxy-Connection:` removes curl's
        // own, which fetch never sends); --proxy-basic is the default Basic.
        Row(arguments: ["-sS", "-x", "127.0.0.1:{http}", "-H", "X-H: 1", "--proxy-header", "X-P: 2", "--proxy-header", "X-E;",
                        "--proxy-header", "Proxy-Connection:", "{base}/headers"]),
        Row(arguments: ["-sS", "--proxy-basic", "-p", "-U", "u:p", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "--proxy1.0", "127.0.0.1:{http}", "{base}/json"]),
        Row(arguments: ["-sS", "-p", "--proxy1.0", "127.0.0.1:{auth}", "-U", "u:no", "{base}/json"]),
    ]

    /// (arguments, with `{proxy}` the recording proxy): the CONNECT request the proxy receives
    /// must be curl's, but for the User-Agent line (curl/7.88.1 and Lariat).
    static let connectRows: [[String]] = [
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "-H", "X-H: 1", "--proxy-header", "X-P: 2", "{base}/json"],
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "--proxy-header", "Host:", "--proxy-header", "X-E;",
         "--proxy-header", "Proxy-Connection: close", "{base}/json"],
        ["-sS", "-p", "--proxy1.0", "127.0.0.1:{proxy}", "{base}/json"],
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "--proxy-header", "@{headers}", "--proxy-header", "@/nonexistent", "{base}/json"],
        ["-sS", "-p", "--proxy1.0", "127.0.0.1:1", "-x", "127.0.0.1:{proxy}", "{base}/json"],
    ]

    @Test("the CONNECT request is curl's", arguments: connectRows)
    func connectHead(_ arguments: [String]) throws {
        let fetchPath = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("fetch").path
        func run(_ tool: String) throws -> (FetchCurlParityTests.Result, [String]) {
            let proxy = try TestProxyServer(kind: .http)
            defer { proxy.stop() }
            let headers = NSTemporaryDirectory() + "proxy-headers-\(UUID().uuidString)"
            try "X-A: 1\r\nX-B;\nHost:\n".write(toFile: headers, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: headers) }
            let filled = arguments.map {
                $0.replacingOccurrences(of: "{proxy}", with: "\(proxy.port)").replacingOccurrences(of: "{headers}", with: headers)
            }
            let result = try FetchCurlParityTests.run(tool, FetchCurlParityTests.Row(arguments: filled))
            let heads = proxy.received.map { record in
                record.head.components(separatedBy: "\r\n")
                    .filter { $0 != "User-Agent: curl/7.88.1" && $0 != "User-Agent: Lariat" }.joined(separator: "\r\n")
            }
            return (result, heads)
        }
        let (curl, curlHeads) = try run("/usr/bin/curl")
        let (fetch, fetchHeads) = try run(fetchPath)
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        #expect(fetchHeads == curlHeads)
        #expect(curlHeads.first?.hasPrefix("CONNECT ") == true, "\(curlHeads)")
    }

    @Test("same exit status and output through the same proxy", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let http = try TestProxyServer(kind: .http)
        defer { http.stop() }
        let auth = try TestProxyServer(kind: .http, credentials: ("u", "p"))
        defer { auth.stop() }
        let socks = try TestProxyServer(kind: .socks5)
        defer { socks.stop() }
        let socksAuth = try TestProxyServer(kind: .socks5, credentials: ("u", "p"))
        defer { socksAuth.stop() }
        let refusing = try TestProxyServer(kind: .socks5, behavior: .refuse(2))
        defer { refusing.stop() }
        func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{http}", with: "\(http.port)").replacingOccurrences(of: "{auth}", with: "\(auth.port)")
                .replacingOccurrences(of: "{socksauth}", with: "\(socksAuth.port)").replacingOccurrences(of: "{socks}", with: "\(socks.port)")
                .replacingOccurrences(of: "{refusing}", with: "\(refusing.port)")
        }
        let fetchPath = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("fetch").path
        func run(_ tool: String) throws -> FetchCurlParityTests.Result {
            // Under env(1): the proxy variables the row sets, none inherited.
            let cleared = ["-u", "http_proxy", "-u", "https_proxy", "-u", "HTTPS_PROXY", "-u", "all_proxy", "-u", "ALL_PROXY",
                           "-u", "no_proxy", "-u", "NO_PROXY", "-u", "HTTP_PROXY"]
            return try FetchCurlParityTests.run("/usr/bin/env", FetchCurlParityTests.Row(
                arguments: cleared + row.environment.map(fill) + [tool] + row.arguments.map(fill)))
        }
        let curl = try run("/usr/bin/curl")
        let fetch = try run(fetchPath)
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        if row.compareErrors { #expect(fetch.errors == curl.errors) }
    }
}
#endif
