// curl and fetch side by side against the same httpbin (LARIAT_HTTPBIN): every spelling of
// issue 13's list runs through both, and the exit status, standard output and standard error
// must match after normalising what legitimately differs:
//   - the User-Agent (curl/7.88.1 vs fetch/x.y.z) becomes <agent>;
//   - multipart boundaries become <boundary>;
//   - Date response headers are dropped (the two runs are not the same second);
//   - `curl: ` becomes `fetch: ` (also in the binary-output warning), curl's hint loses " or 'curl --manual'", and curl's
//     "after N ms: Couldn't connect to server" is fetch's ": Connection refused";
//   - curl's "or disabled in libcurl" is dropped;
//   - httpbin's echo of `"Content-Length": "0"`: Client sends it for a POST without a body
//     (RFC 9110 §8.6 says a user agent should), curl does not.
// Rows whose messages differ by design compare the exit status and standard output only.
#if FullFoundation
import Foundation
import LariatTestSupport
import Testing

/// httpbin's base URL, when the suite can run.
private let parityBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// `fetch` next to the running test bundle, if it was built.
private let parityFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let parityCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("fetch and curl side by side", .enabled(if: parityBase != nil && parityFetch != nil && parityCurl != nil,
                                               "needs LARIAT_HTTPBIN, curl (scripts/install-test-deps.sh) and fetch built next to the tests"))
struct FetchCurlParityTests {
    /// One spelling: `{base}`, `{hostport}`, `{dir}` (a per-tool scratch directory) and
    /// `{file}` (a data file with two lines) are replaced.
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var stdin = ""
        /// Also compare this file (under `{dir}`) after the run.
        var outputFile: String?
        /// Compare standard error too (false where messages differ by design).
        var compareErrors = true
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(arguments: ["-fsS", "{base}/get"]),
        Row(arguments: ["-fsSL", "{base}/get"].filter { $0 != "-fsSL" } + ["-sSf"]),
        Row(arguments: ["-sSf", "{base}/status/404"]),
        Row(arguments: ["-fs", "{base}/status/500"]),
        Row(arguments: ["-s", "{base}/status/404"]),
        Row(arguments: ["--fail-with-body", "-sS", "{base}/status/418"]),
        Row(arguments: ["-sI", "{base}/get"]),
        Row(arguments: ["-si", "{base}/get"]),
        Row(arguments: ["-s", "-XPOST", "{base}/anything"]),
        Row(arguments: ["-s", "-X", "PUT", "-X", "PATCH", "-d", "x", "{base}/anything"]),
        Row(arguments: ["-sA", "agent/1", "-e", "http://ref.example/", "{base}/headers"]),
        Row(arguments: ["-s", "-H", "Accept:", "-H", "X-Empty;", "-H", "X-A: 1", "-HX-B: 2", "{base}/headers"]),
        Row(arguments: ["-s", "-d", "a=1", "-d", "b=2", "{base}/post"]),
        Row(arguments: ["-s", "-d", "@{file}", "{base}/post"]),
        Row(arguments: ["-s", "--data-ascii", "@-", "{base}/post"], stdin: "from=stdin\nmore\n"),
        Row(arguments: ["-s", "--data-raw", "@notafile", "{base}/post"]),
        Row(arguments: ["-s", "--data-binary", "@{file}", "{base}/post"]),
        Row(arguments: ["-s", "--data-urlencode", "a b&c", "--data-urlencode", "=x y", "--data-urlencode", "n=v w",
                        "--data-urlencode", "@{file}", "--data-urlencode", "m@{file}", "{base}/post"]),
        Row(arguments: ["-sG", "-d", "a=1", "-d", "b=2", "{base}/get"]),
        Row(arguments: ["-s", "-F", "a=b", "-F", "f=@{file};type=text/x;filename=n.txt", "-F", "c=<{file}", "{base}/post"]),
        // Multipart names, file names and types with `"`, CR and LF (issue 25.5): curl writes
        // %22, %0D, %0A in names and file names; a type's `"` goes out as written.
        Row(arguments: ["-s", "-F", "a\"; filename=\"evil=v", "{base}/post"]),
        Row(arguments: ["-s", "-F", "a\rX-Inj: 1=v", "{base}/post"]),
        Row(arguments: ["-s", "-F", "a\nX-Inj: 1=v", "{base}/post"]),
        Row(arguments: ["-s", "-F", "f=@{file};filename=ev\"il.txt", "{base}/post"]),
        Row(arguments: ["-s", "-F", "f=@{file};filename=ev\ril.txt", "{base}/post"]),
        Row(arguments: ["-s", "-F", "f=@{file};filename=ev\nX-Inj: 1.txt", "{base}/post"]),
        Row(arguments: ["-s", "-F", "t=v;type=text/\"q\"", "{base}/post"]),
        Row(arguments: ["-s", "--form-escape", "-F", "a\\b\"c=v", "-F", "f=@{file};filename=x\\y\"z", "{base}/post"]),
        Row(arguments: ["-s", "--form-string", "s=@notafile;type=text/x", "-F", "n=<{file}", "{base}/post"]),
        Row(arguments: ["-s", "--json", "{\"a\":1}", "{base}/post"]),
        Row(arguments: ["-s", "-D", "-", "-o", "{dir}/body", "{base}/get"], outputFile: "body"),
        Row(arguments: ["-sS", "-o", "{dir}/out", "{base}/get"], outputFile: "out"),
        Row(arguments: ["-sS", "--create-dirs", "-o", "{dir}/a/b/out", "{base}/get"], outputFile: "a/b/out"),
        Row(arguments: ["-sS", "-o", "/dev/full", "{base}/get"]),
        Row(arguments: ["-sS", "-o", "-", "{base}/get"]),
        Row(arguments: ["-sS", "{hostport}/get"]),
        Row(arguments: ["-sS", "http://user:pa%40ss@{hostport}/basic-auth/user/pa@ss"]),
        Row(arguments: ["-sS", "foo://example/"]),
        Row(arguments: ["-sS", "http://[::1"], compareErrors: false),
        Row(arguments: ["--foo", "{base}/get"]),
        Row(arguments: ["-sW", "{base}/get"]),
        Row(arguments: ["{base}/get", "-o"]),
        Row(arguments: ["-sS", "http://127.0.0.1:1/"]),
        Row(arguments: ["-sS", "http://127.0.0.1:1/", "{base}/get"]),
        Row(arguments: ["-sS", "-o", "{dir}/first", "{base}/get?n=1", "{base}/get?n=2"], outputFile: "first"),
        Row(arguments: ["-sS", "--max-filesize", "10", "{base}/bytes/100"]),
        Row(arguments: ["-sS", "--limit-rate", "200k", "{base}/bytes/2000?seed=7"]),
        Row(arguments: ["-sS", "-4", "--http1.1", "{base}/get"]),
        Row(arguments: ["-sS", "-m5", "--connect-timeout", "3", "{base}/get"]),
        Row(arguments: ["-K", "{dir}/config"]),
        Row(arguments: ["-sSf", "-i", "{base}/status/404"]),
        Row(arguments: []),
        Row(arguments: ["-s"]),
        Row(arguments: ["-sSf", "-o", "/dev/null", "-w", "%{http_code}", "{base}/get"]),
        Row(arguments: ["-sf", "-w", "%{http_code} %{exitcode}\\n", "{base}/status/503"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}|%{exitcode}\\n", "http://127.0.0.1:1/"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{response_code} %{size_download} %{size_header} %{num_headers} %{content_type} %{method} %{scheme} %{http_version} %{url_effective} %% a\\tb\\n", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{nosuchvariable}x", "{base}/get"]),
        Row(arguments: ["-d", "a", "-F", "b=c", "{base}/post"]),
        Row(arguments: ["-sS", "-d", "a", "-F", "b=c", "{base}/post"]),
        Row(arguments: ["-I", "-d", "a", "{base}/post"]),
        Row(arguments: ["-sI", "-G", "-d", "a", "{base}/get"]),
        // --compressed: curl asks for its build's codings (br, zstd too); -H makes both ask alike.
        Row(arguments: ["-sS", "--compressed", "-A", "x", "-H", "Accept-Encoding: deflate, gzip", "{base}/gzip"]),
        Row(arguments: ["-sS", "--compressed", "-A", "x", "-H", "Accept-Encoding: deflate, gzip", "{base}/deflate"]),
        // Without it both write the coded bytes (httpbin's gzip header carries the time: compare sizes).
        Row(arguments: ["-sS", "-o", "/dev/null", "-w", "%{size_download}", "{base}/gzip"]),
        Row(arguments: ["-sS", "-H", "Host: other.example", "-H", "User-Agent:", "{base}/headers"]),
        // Cookies (issue 10): a literal -b string, -c writing curl's jar (header, newest first),
        // -b loading a Netscape file (#HttpOnly_ lines, a session cookie, another site's), -j.
        Row(arguments: ["-s", "-b", "x=1; y=2", "{base}/cookies"]),
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/cookies/set?k=v&a=b&z=1"]),
        Row(arguments: ["-s", "-c", "{dir}/jar", "{base}/cookies/set?k=v"], outputFile: "jar"),
        Row(arguments: ["-s", "-b", "{dir}/cookies.txt", "{base}/cookies"]),
        Row(arguments: ["-s", "-j", "-b", "{dir}/cookies.txt", "{base}/cookies"]),
        Row(arguments: ["-s", "-b", "{dir}/cookies.txt", "-c", "-", "-o", "/dev/null", "{base}/cookies/set?n=1&file=changed"]),
        Row(arguments: ["-s", "-b", "{dir}/missing.txt", "-c", "-", "-o", "/dev/null", "{base}/cookies/delete?k"]),
        // Issue 25: Domain equal to an IP host is host-only; a trailing-dot Domain, a tab inside a
        // name, value or Path refuse the cookie (main's fetch wrote .127.0.0.1 TRUE lines and split ones).
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/response-headers?Set-Cookie=ip%3D1%3B%20Domain%3D127.0.0.1"]),
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/response-headers?Set-Cookie=dot%3D1%3B%20Domain%3D127.0.0.1."]),
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/response-headers?Set-Cookie=t%3Da%09b"]),
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/response-headers?Set-Cookie=tn%09x%3D1"]),
        Row(arguments: ["-s", "-c", "-", "-o", "/dev/null", "{base}/response-headers?Set-Cookie=tp%3D1%3B%20Path%3D%2Fa%09b"]),
        // Retries (issue 10): curl's warnings, backoff (1 s, 2 s even with --retry-delay 0) and
        // each attempt's error line; --no-progress-meter keeps the warnings -s would hide.
        Row(arguments: ["--no-progress-meter", "--retry", "2", "--retry-delay", "0", "{base}/status/503"]),
        Row(arguments: ["--no-progress-meter", "--retry", "1", "--retry-connrefused", "http://127.0.0.1:1/"]),
        Row(arguments: ["--no-progress-meter", "--retry", "3", "http://127.0.0.1:1/"]),
        Row(arguments: ["--no-progress-meter", "--retry", "1", "--retry-all-errors", "-f", "{base}/status/404"]),
        Row(arguments: ["--no-progress-meter", "--retry", "3", "--retry-max-time", "1", "--retry-delay", "1", "-f", "{base}/status/500"]),
        Row(arguments: ["--no-progress-meter", "--retry", "1", "--retry-max-time", "0.5", "{base}/status/500"]),
        Row(arguments: ["-sS", "--retry", "2", "-f", "{base}/status/404"]),
        Row(arguments: ["--no-progress-meter", "--retry", "x", "{base}/get"]),
        // Redirects (-L, --max-redirs, --location-trusted) and authentication (-u, --basic, --digest).
        Row(arguments: ["-sSL", "{base}/redirect/3"]),
        Row(arguments: ["-sSL", "{base}/relative-redirect/2"]),
        Row(arguments: ["-sSL", "{base}/absolute-redirect/2"]),
        Row(arguments: ["-si", "{base}/redirect/1"]),
        Row(arguments: ["-siL", "{base}/redirect/2"]),
        Row(arguments: ["-sIL", "{base}/relative-redirect/2"]),
        Row(arguments: ["-sL", "-D", "-", "-o", "/dev/null", "{base}/absolute-redirect/1"]),
        Row(arguments: ["-sL", "-o", "/dev/null", "-w", "%{size_header}\\n", "{base}/redirect/2"]),
        Row(arguments: ["-sSL", "--max-redirs", "2", "{base}/redirect/3"]),
        Row(arguments: ["-sL", "--max-redirs", "2", "-o", "/dev/null", "-w", "%{http_code} %{exitcode}\\n", "{base}/redirect/3"]),
        Row(arguments: ["-sSL", "--max-redirs", "-1", "{base}/redirect/3"]),
        Row(arguments: ["-sSL", "-o", "/dev/null", "-w", "%{url_effective} %{url}\\n", "{base}/redirect/2"]),
        Row(arguments: ["-sSL", "-d", "k=v", "{base}/redirect-to?url=/post&status_code=307"]),
        Row(arguments: ["-sSL", "-d", "k=v", "{base}/redirect-to?url=/post&status_code=308"]),
        Row(arguments: ["-sSL", "-d", "k=v", "{base}/redirect-to?url=/get&status_code=302"]),
        Row(arguments: ["-sSL", "-d", "k=v", "{base}/redirect-to?url=/get&status_code=303"]),
        Row(arguments: ["-sS", "-u", "u:p", "{base}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "--basic", "-u", "u:p", "{base}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "-u", "u:p", "http://x:y@{hostport}/basic-auth/u/p"]),
        Row(arguments: ["-s", "-u", "u:wrong", "-w", "%{http_code}\\n", "{base}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "--digest", "-u", "u:p", "{base}/digest-auth/auth/u/p/MD5"]),
        Row(arguments: ["-sS", "--digest", "-u", "u:p", "{base}/digest-auth/auth/u/p/SHA-256"]),
        Row(arguments: ["-s", "--digest", "-u", "u:wrong", "-w", "%{http_code}\\n", "{base}/digest-auth/auth/u/p/MD5"]),
        Row(arguments: ["-sS", "--digest", "http://u:p@{hostport}/digest-auth/auth/u/p/MD5"]),
        // Issue 25: --digest never answers Basic, --anyauth the strongest offered.
        Row(arguments: ["-s", "--digest", "-u", "u:p", "-w", "%{http_code}\\n", "{base}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "--anyauth", "-u", "u:p", "{base}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "--anyauth", "-u", "u:p", "{base}/digest-auth/auth/u/p"]),
        Row(arguments: ["-s", "--basic", "-u", "u:p", "-w", "%{http_code}\\n", "{base}/digest-auth/auth/u/p"]),
        // Another host (localhost instead of 127.0.0.1): credentials stay behind unless trusted.
        Row(arguments: ["-sL", "-u", "u:p", "-w", "%{http_code}\\n", "{base}/redirect-to?url=http://localhost:{port}/basic-auth/u/p"]),
        Row(arguments: ["-sS", "--location-trusted", "-u", "u:p", "{base}/redirect-to?url=http://localhost:{port}/basic-auth/u/p"]),
        // -i/-D: the server's own reason phrase (httpbin's upper-case ones), issue 11.
        Row(arguments: ["-si", "{base}/status/418"]),
        Row(arguments: ["-si", "{base}/status/207"]),  // "207 MULTI STATUS": printed "207 " before (no table entry)
        Row(arguments: ["-s", "-D", "-", "-o", "/dev/null", "{base}/status/201"]),
        // -w with curl's variables (times, speeds and the local port normalised).
        Row(arguments: ["-s", "-o", "/dev/null", "-d", "abc", "-w",
                        "%{http_code} %{response_code} %{size_download} %{size_header} %{size_request} %{size_upload} "
                            + "%{num_connects} %{num_redirects} %{remote_ip} %{remote_port} %{local_ip} %{local_port} %{content_type} "
                            + "%header{Content-Type}|%header{X-None} %{url_effective} %{scheme} %{http_version} %{method}\\n",
                        "{base}/post"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} "
                            + "%{time_starttransfer} %{time_total} %{time_redirect} %{speed_download} %{speed_upload}\\n", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{header_json}", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{json}", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "%{stderr}to stderr %{http_code}%{stdout}to stdout\\n\\t%%", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "@{file}", "{base}/get"]),
        Row(arguments: ["-s", "-o", "/dev/null", "-w", "@-", "{base}/get"], stdin: "%{http_code} %{content_type}\\n"),
        // -v: connection lines, the head as sent, the server's head, data lines (stdout is a pipe).
        // (A POST differs by design: Lariat writes Content-Length after the other fields.)
        Row(arguments: ["-sv", "-o", "/dev/null", "{base}/get"]),
        Row(arguments: ["-svI", "{base}/get"]),
        Row(arguments: ["-sv", "-H", "X-Extra: 1", "{base}/status/404"]),
        // The progress meter and bar on stderr when the body goes to a file (speeds normalised).
        Row(arguments: ["-o", "{dir}/out", "{base}/get"], outputFile: "out"),
        Row(arguments: ["-o", "{dir}/out", "{base}/stream-bytes/3000?seed=2"]),
        Row(arguments: ["-#", "-o", "{dir}/out", "{base}/bytes/3000?seed=3"]),
        Row(arguments: ["-#", "-o", "{dir}/out", "{base}/stream-bytes/3000?seed=3"]),
        Row(arguments: ["--no-progress-meter", "-o", "{dir}/out", "{base}/get"]),
        // Streaming (issue 12): -N, -T FILE (the URL's empty file part gets the name), -T - from
        // a pipe (chunked), -O and -J (a Content-Disposition directory is stripped).
        Row(arguments: ["-sN", "{base}/stream/3"]),
        Row(arguments: ["-sS", "-T", "{file}", "{base}/anything/"]),
        Row(arguments: ["-sS", "-T", "{file}", "{base}/put"]),
        Row(arguments: ["-sS", "-T", "-", "{base}/anything"], stdin: "piped=1\nmore\n"),
        Row(arguments: ["-sS", "-T", "missing", "{base}/put"]),
        Row(arguments: ["-sSO", "{base}/base64/SGVsbG8sIHN0cmVhbQ=="], outputFile: "SGVsbG8sIHN0cmVhbQ=="),
        Row(arguments: ["-sSOJ", "{base}/response-headers?Content-Disposition=attachment%3B%20filename%3D%22j.txt%22"], outputFile: "j.txt"),
        Row(arguments: ["-sSOJ", "{base}/response-headers?Content-Disposition=attachment%3B%20filename%3D%22..%2Fevil.txt%22"],
            outputFile: "evil.txt"),
        Row(arguments: ["-sS", "--limit-rate", "100k", "-o", "{dir}/paced", "{base}/bytes/150000?seed=2", "-w", "%{size_download}"]),
    ]

    @Test("same exit status and output", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run(try #require(parityCurl), row)
        let fetch = try Self.run(try #require(parityFetch), row)
        #expect(fetch.status == curl.status, "curl stderr: \(curl.errors)\nfetch stderr: \(fetch.errors)")
        #expect(fetch.output == curl.output)
        if row.compareErrors { #expect(fetch.errors == curl.errors) }
        #expect(fetch.file == curl.file)
    }

    // Issue 21: what curl's build lacks is refused in curl's words (--http2 is accepted, as curl
    // without nghttp2 accepts it and speaks HTTP/1.1).
    @Test("options curl has and fetch refuses: exit 2 with a message naming them", arguments: [
        ["--http3"], ["--ntlm"], ["--negotiate"],
    ])
    func refused(_ arguments: [String]) throws {
        let row = Row(arguments: ["-sS"] + arguments + ["{base}/get"])
        let fetch = try Self.run(try #require(parityFetch), row)
        #expect(fetch.status == 2)
        #expect(fetch.output.isEmpty)
        #expect(fetch.errors.hasPrefix("fetch: option \(arguments[0])"), "\(fetch.errors)")
    }

    @Test("binary output to a terminal: refused (23) unless -o -", arguments: [
        ["{base}/bytes/2048?seed=1"], ["-s", "{base}/bytes/2048?seed=1"], ["-s", "-o", "-", "{base}/bytes/2048?seed=1"], ["-s", "{base}/get"],
    ])
    func terminal(_ arguments: [String]) throws {
        // util-linux `script` gives the tool a pseudo-terminal as standard output.
        let curl = try Self.run("/usr/bin/script", Row(arguments: ["-qec", Self.shellLine(try #require(parityCurl), arguments), "/dev/null"]))
        let fetch = try Self.run("/usr/bin/script", Row(arguments: ["-qec", Self.shellLine(try #require(parityFetch), arguments), "/dev/null"]))
        #expect(fetch.status == curl.status)
        #expect(fetch.output == curl.output)
    }

    /// `tool` and `arguments` as one single-quoted shell line (`{base}` replaced later).
    static func shellLine(_ tool: String, _ arguments: [String]) -> String {
        ([tool] + arguments).map { "'\($0)'" }.joined(separator: " ")
    }

    /// What one tool did.
    struct Result: Sendable { var status: Int32; var output: String; var errors: String; var file: String? }

    /// Runs `tool` for `row` in its own scratch directory and normalises its output.
    static func run(_ tool: String, _ row: Row) throws -> Result {
        let base = try #require(parityBase)
        let directory = NSTemporaryDirectory() + "parity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/data.txt"
        try "a=1 x\r\nb=2\n".write(toFile: file, atomically: true, encoding: .utf8)
        try "silent\nshow-error\nurl = \"\(base)/get?from=config\"\n-H \"X-Config: yes\"\n".write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        try """
            # Netscape HTTP Cookie File
            127.0.0.1\tFALSE\t/\tFALSE\t0\tfile\tyes
            #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\thidden\t1
            .example.com\tTRUE\t/\tFALSE\t4102444800\tother\tsite
            127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tkept\t2

            """.write(toFile: directory + "/cookies.txt", atomically: true, encoding: .utf8)
        let hostport = String(base.dropFirst("http://".count))
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "{base}", with: base).replacingOccurrences(of: "{hostport}", with: hostport)
                .replacingOccurrences(of: "{port}", with: String(hostport.split(separator: ":").last ?? ""))
                .replacingOccurrences(of: "{dir}", with: directory).replacingOccurrences(of: "{file}", with: file)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = Pipe(), output = Pipe()
        let errorPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errors = try #require(FileHandle(forWritingAtPath: errorPath))
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(row.stdin.utf8))
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let errorText = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let fileText = row.outputFile.flatMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
        return Result(status: process.terminationStatus, output: normalise(String(decoding: outputData, as: UTF8.self)),
                      errors: normalise(errorText), file: fileText.map(normalise))
    }

    /// Removes what legitimately differs between curl and fetch (see the file comment).
    static func normalise(_ text: String) -> String {
        var text = text
        let replacements: [(String, String)] = [
            (#"(curl|fetch)/[0-9][0-9.]*"#, "<agent>"),
            (#"-{10,}[0-9a-fA-F]+"#, "<boundary>"),
            (#"(?m)^Date: .*\r?\n"#, ""),
            (#"(?m)^curl: "#, "fetch: "),
            (#"Warning: curl to"#, "Warning: fetch to"),
            (#"try 'curl --help' or 'curl --manual'"#, "try 'fetch --help'"),
            (#" after [0-9]+ ms: Couldn't connect to server"#, ": Connection refused"),
            (#" or disabled in libcurl"#, ""),
            (#"(?m)^ *"Content-Length": "0",\n"#, ""),
            // -w: what changes from run to run (issue 11's rows).
            (#"\b[0-9]+\.[0-9]{6}\b"#, "<seconds>"),
            (#"\b127\.0\.0\.1 [0-9]+ "#, "127.0.0.1 <port> "),
            (#""(local_port|speed_download|speed_upload)":[0-9]+"#, "\"$1\":<n>"),
            (#"<seconds> <seconds> [0-9]+ [0-9]+\n"#, "<seconds> <seconds> <speed> <speed>\n"),
            (#""curl_version":"[^"]*""#, "\"curl_version\":<version>"),
            (#"(?m)^"date":\["[^"]*"\],\n"#, ""),
            (#"(?m)^< Date: .*\r?\n"#, ""),
            (#"(\r[ 0-9]{3} .{5}  [ 0-9]{3} .{5}  [ 0-9]{3} .{5})  .{5}  (.{5}) (.{8}) (.{8}) (.{8}) .{5}"#, "$1  <dl> $2 $3 $4 $5 <now>"),
            // A meter redrawn unchanged (once a second while a slow transfer waits) is one line:
            // how often either tool redraws depends on timing, not on behaviour.
            (#"([ 0-9]{3} [^\r\n]*?<now>)(?:\r\1)+"#, "$1"),
        ]
        for (pattern, replacement) in replacements {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }
}
#endif
