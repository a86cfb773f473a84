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
import Testing

/// httpbin's base URL, when the suite can run.
private let parityBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// `fetch` next to the running test bundle, if it was built.
private let parityFetch: String? = {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
    let candidate = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("fetch").path
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
}()

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
        Row(arguments: ["-sS", "-H", "Host: other.example", "-H", "User-Agent:", "{base}/headers"]),
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

    @Test("options curl has and fetch refuses: exit 2 with a message naming them", arguments: [
        ["--http2"], ["--http3"], ["-L"], ["-u", "a:b"], ["-b", "c=1"], ["-c", "jar"], ["--retry", "3"], ["--retry-connrefused"],
["--compressed"], ["-C", "-"],
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
    struct Result { var status: Int32; var output: String; var errors: String; var file: String? }

    /// Runs `tool` for `row` in its own scratch directory and normalises its output.
    static func run(_ tool: String, _ row: Row) throws -> Result {
        let base = try #require(parityBase)
        let directory = NSTemporaryDirectory() + "parity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/data.txt"
        try "a=1 x\r\nb=2\n".write(toFile: file, atomically: true, encoding: .utf8)
        try "silent\nshow-error\nurl = \"\(base)/get?from=config\"\n-H \"X-Config: yes\"\n".write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        let hostport = String(base.dropFirst("http://".count))
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "{base}", with: base).replacingOccurrences(of: "{hostport}", with: hostport)
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
        ]
        for (pattern, replacement) in replacements {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }
}
#endif
