// fetch and curl 7.88 through the same loopback proxies (TestProxyServer: HTTP forwarding and
// CONNECT with Basic or Digest authentication, SOCKS5) to the same httpbin: -x in its spellings,
// -U, -p, --noproxy, --socks5, --socks5-hostname, --socks5-basic, --proxy-digest,
// --proxy-anyauth, --preproxy, the environment variables (run under env(1)), and the failures
// with their exit statuses (5, 7, 56, 97). Uses FetchCurlParityTests' runner and normalisation;
// the child processes run off the cooperative pool (offPool).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

@Suite("fetch and curl through proxies", .enabled(
    if: ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].map { !$0.isEmpty } ?? false
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
    "needs LARIAT_HTTPBIN and curl"))
struct FetchProxyParityTests {
    /// One row: arguments with `{http}`, `{auth}` (an HTTP proxy requiring u:p), `{digest}` (one
    /// requiring u:p by Digest), `{closing}` (the same, its 407 closing the connection), `{anyp}` (one offering Basic and Digest), `{socks}`,
    /// `{socksauth}` (SOCKS5 requiring u:p), `{refusing}` (SOCKS5 answering reply 2) replaced;
    /// `environment` entries go before the tool under env(1).
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var environment: [String] = []
        var compareErrors = true
        /// The row must succeed with a body (so two equal failures cannot pass it).
        var succeeds = false
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
        Row(arguments: ["-sS", "-x", "socks5h://u:no@127.0.0.1:{socksauth}", "{base}/json"]),
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
        // --proxy-digest, --proxy-anyauth: nothing sent until the 407, then its challenge answered
        // (forwarded: the request again; tunnelled: the CONNECT again on the same connection).
        Row(arguments: ["-sS", "--proxy-digest", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-digest", "-p", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-digest", "-x", "http://u:p@127.0.0.1:{digest}", "{base}/json?a=1"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-anyauth", "-U", "u:p", "-x", "127.0.0.1:{anyp}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-anyauth", "-p", "-U", "u:p", "-x", "127.0.0.1:{anyp}", "{base}/json"], succeeds: true),
        // A 407 with Connection: close: answered on a new connection (curl reconnects too).
        Row(arguments: ["-sS", "--proxy-digest", "-p", "-U", "u:p", "-x", "127.0.0.1:{closing}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-digest", "-U", "u:p", "-x", "127.0.0.1:{closing}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--proxy-digest", "-p", "-U", "u:no", "-x", "127.0.0.1:{closing}", "{base}/json"]),
        // Wrong password: the second 407 is the answer (forwarded: its body, exit 0; tunnel: 56).
        Row(arguments: ["-sS", "--proxy-digest", "-U", "u:wrong", "-x", "127.0.0.1:{digest}", "{base}/json"]),
        Row(arguments: ["-sS", "--proxy-digest", "-p", "-U", "u:wrong", "-x", "127.0.0.1:{digest}", "{base}/json"]),
        // Digest asked for, Basic offered: not answered.
        Row(arguments: ["-sS", "--proxy-digest", "-U", "u:p", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        Row(arguments: ["-sS", "--proxy-digest", "-p", "-U", "u:p", "-x", "127.0.0.1:{auth}", "{base}/json"]),
        // Each credential to its own party: -u to the origin (its /headers shows no proxy field).
        Row(arguments: ["-sS", "-u", "a:b", "--proxy-digest", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/basic-auth/a/b"], succeeds: true),
        Row(arguments: ["-sS", "-u", "a:b", "--proxy-anyauth", "-p", "-U", "u:p", "-x", "127.0.0.1:{anyp}", "{base}/headers"], succeeds: true),
        // --socks5-basic (curl's default here), --socks5-gssapi alone (no user name offered).
        Row(arguments: ["-sS", "--socks5-basic", "-x", "socks5h://u:p@127.0.0.1:{socksauth}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--socks5-basic", "--socks5", "u:p@127.0.0.1:{socksauth}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--socks5-gssapi", "-x", "socks5h://u:p@127.0.0.1:{socksauth}", "{base}/json"]),
        Row(arguments: ["-sS", "--socks5-gssapi", "--socks5-basic", "-x", "socks5h://u:p@127.0.0.1:{socksauth}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--socks5-basic", "-U", "u:no", "-x", "socks5h://127.0.0.1:{socksauth}", "{base}/json"]),
        // --preproxy: a SOCKS proxy in front of the HTTP proxy, forwarding and tunnelling.
        Row(arguments: ["-sS", "--preproxy", "socks5h://127.0.0.1:{socks}", "-x", "http://127.0.0.1:{http}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--preproxy", "socks5://127.0.0.1:{socks}", "-p", "-x", "127.0.0.1:{http}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--preproxy", "socks5h://u:p@127.0.0.1:{socksauth}", "--proxy-digest", "-U", "u:p",
                        "-x", "127.0.0.1:{digest}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--preproxy", "socks5h://127.0.0.1:{socks}", "{base}/json"], succeeds: true),
        Row(arguments: ["-sS", "--preproxy", "socks5h://127.0.0.1:1", "-x", "127.0.0.1:{http}", "{base}/json"]),
        Row(arguments: ["-sS", "--preproxy", "socks5h://127.0.0.1:{refusing}", "-x", "127.0.0.1:{http}", "{base}/json"], compareErrors: false),
        Row(arguments: ["-sS", "--preproxy", "socks5h://127.0.0.1:{socks}", "-x", "127.0.0.1:1", "{base}/json"], compareErrors: false),
    ]

    /// (arguments, with `{proxy}` the recording proxy): the CONNECT request the proxy receives
    /// must be curl's, the User-Agent line each tool's own (curl/7.88.1, fetch/x.y.z) in curl's place.
    static let connectRows: [[String]] = [
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "-H", "X-H: 1", "--proxy-header", "X-P: 2", "{base}/json"],
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "--proxy-header", "Host:", "--proxy-header", "X-E;",
         "--proxy-header", "Proxy-Connection: close", "{base}/json"],
        ["-sS", "-p", "--proxy1.0", "127.0.0.1:{proxy}", "{base}/json"],
        ["-sS", "-p", "-x", "127.0.0.1:{proxy}", "--proxy-header", "@{headers}", "--proxy-header", "@/nonexistent", "{base}/json"],
        ["-sS", "-p", "--proxy1.0", "127.0.0.1:1", "-x", "127.0.0.1:{proxy}", "{base}/json"],
    ]

    @Test("the CONNECT request is curl's", arguments: connectRows)
    func connectHead(_ arguments: [String]) async throws {
        let fetchPath = try #require(fetchExecutablePath)
        @Sendable func run(_ tool: String) throws -> (FetchCurlParityTests.Result, [String]) {
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
                    .map { $0 == "User-Agent: curl/7.88.1" || $0.hasPrefix("User-Agent: fetch/") ? "User-Agent: <agent>" : $0 }
                    .joined(separator: "\r\n")
            }
            return (result, heads)
        }
        let ((curl, curlHeads), (fetch, fetchHeads)) = try await offPool { (try run("/usr/bin/curl"), try run(fetchPath)) }
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        #expect(fetchHeads == curlHeads)
        #expect(curlHeads.first?.hasPrefix("CONNECT ") == true, "\(curlHeads)")
    }

    @Test("same exit status and output through the same proxy", arguments: rows)
    func sameAsCurl(_ row: Row) async throws {
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
        let digest = try TestProxyServer(kind: .http, credentials: ("u", "p"), authScheme: .digest)
        defer { digest.stop() }
        let anyScheme = try TestProxyServer(kind: .http, credentials: ("u", "p"), authScheme: .any)
        defer { anyScheme.stop() }
        let closing = try TestProxyServer(kind: .http, credentials: ("u", "p"), authScheme: .digestClosing)
        defer { closing.stop() }
        @Sendable func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{http}", with: "\(http.port)").replacingOccurrences(of: "{auth}", with: "\(auth.port)")
                .replacingOccurrences(of: "{digest}", with: "\(digest.port)").replacingOccurrences(of: "{anyp}", with: "\(anyScheme.port)")
                .replacingOccurrences(of: "{closing}", with: "\(closing.port)")
                .replacingOccurrences(of: "{socksauth}", with: "\(socksAuth.port)").replacingOccurrences(of: "{socks}", with: "\(socks.port)")
                .replacingOccurrences(of: "{refusing}", with: "\(refusing.port)")
        }
        let fetchPath = try #require(fetchExecutablePath)
        @Sendable func run(_ tool: String) throws -> FetchCurlParityTests.Result {
            // Under env(1): the proxy variables the row sets, none inherited.
            let cleared = ["-u", "http_proxy", "-u", "https_proxy", "-u", "HTTPS_PROXY", "-u", "all_proxy", "-u", "ALL_PROXY",
                           "-u", "no_proxy", "-u", "NO_PROXY", "-u", "HTTP_PROXY"]
            return try FetchCurlParityTests.run("/usr/bin/env", FetchCurlParityTests.Row(
                arguments: cleared + row.environment.map(fill) + [tool] + row.arguments.map(fill)))
        }
        let (curl, fetch) = try await offPool { (try run("/usr/bin/curl"), try run(fetchPath)) }
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output, "curl: \(curl.output)\nfetch: \(fetch.output)")
        if row.compareErrors { #expect(fetch.errors == curl.errors) }
        if row.succeeds { #expect(fetch.status == 0 && !fetch.output.isEmpty, "fetch stderr: \(fetch.errors)") }
    }

    /// (arguments): the proxies each tool's connection passed, `{socks}` the preproxy, `{proxy}`
    /// the recording HTTP proxy behind it (`{digest}` a Digest one): both tools must reach the
    /// HTTP proxy through the SOCKS proxy, and send the HTTP proxy the same requests (the Digest
    /// answers' cnonce and response aside).
    static let preproxyRows: [[String]] = [
        ["-sS", "--preproxy", "socks5h://127.0.0.1:{socks}", "-x", "127.0.0.1:{proxy}", "{base}/json"],
        ["-sS", "--preproxy", "socks5://127.0.0.1:{socks}", "-p", "-x", "127.0.0.1:{proxy}", "{base}/json"],
        ["-sS", "--preproxy", "socks5h://127.0.0.1:{socks}", "--proxy-digest", "-p", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/json"],
        ["-sS", "--proxy-anyauth", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/json"],
        ["-sS", "-A", "agent/1", "--proxy-digest", "-p", "-U", "u:p", "-x", "127.0.0.1:{digest}", "{base}/json"],
    ]

    @Test("what the proxies receive is what curl sends them", arguments: preproxyRows)
    func proxiesReceive(_ arguments: [String]) async throws {
        let fetchPath = try #require(fetchExecutablePath)
        @Sendable func run(_ tool: String) throws -> (FetchCurlParityTests.Result, socks: [String], http: [String]) {
            let socks = try TestProxyServer(kind: .socks5)
            defer { socks.stop() }
            let proxy = try TestProxyServer(kind: .http)
            defer { proxy.stop() }
            let digest = try TestProxyServer(kind: .http, credentials: ("u", "p"), authScheme: .digest)
            defer { digest.stop() }
            let filled = arguments.map {
                $0.replacingOccurrences(of: "{socks}", with: "\(socks.port)").replacingOccurrences(of: "{proxy}", with: "\(proxy.port)")
                    .replacingOccurrences(of: "{digest}", with: "\(digest.port)")
            }
            let result = try FetchCurlParityTests.run(tool, FetchCurlParityTests.Row(arguments: filled))
            // The proxy's port in the SOCKS destination, the agent and Digest's random parts normalised.
            let destinations = socks.received.map {
                $0.destination.replacingOccurrences(of: "\(proxy.port)", with: "{proxy}").replacingOccurrences(of: "\(digest.port)", with: "{digest}")
            }
            // CONNECT requests whole; forwarded ones by request line and Proxy-Authorization
            // (fetch sends no Proxy-Connection in absolute-form requests).
            let heads = (proxy.received + digest.received).map { record in
                let lines = record.head.components(separatedBy: "\r\n")
                let kept = lines.first?.hasPrefix("CONNECT ") == true ? lines
                    : lines.enumerated().filter { $0.offset == 0 || $0.element.hasPrefix("Proxy-Authorization:") }.map(\.element)
                return kept.map { line in
                    if line.hasPrefix("User-Agent: curl/") || line.hasPrefix("User-Agent: fetch/") { return "User-Agent: <agent>" }
                    if line.hasPrefix("Proxy-Authorization: Digest ") {
                        let parameters = TestProxyServer.digestParameters(line.dropFirst("Proxy-Authorization: Digest ".count))
                        return "Proxy-Authorization: Digest " + ["username", "realm", "nonce", "uri", "qop", "nc"]
                            .map { "\($0)=\(parameters[$0] ?? "-")" }.joined(separator: " ")
                    }
                    return line
                }.joined(separator: "\r\n")
            }
            return (result, destinations, heads)
        }
        let (curl, fetch) = try await offPool { (try run("/usr/bin/curl"), try run(fetchPath)) }
        #expect(fetch.0.status == curl.0.status, "curl stderr: \(curl.0.errors)\nfetch stderr: \(fetch.0.errors)")
        #expect(fetch.0.status == 0)
        #expect(fetch.0.output == curl.0.output)
        #expect(fetch.socks == curl.socks)
        #expect(fetch.http == curl.http)
        if arguments.contains("--preproxy") { #expect(!fetch.socks.isEmpty) }
    }
}
#endif
