// fetch's parser without the network: argument vector in, option model (or curl's usage error)
// out; then the request each model builds (URL, method, headers, body) with files injected.
import FoundationEssentials
import Testing
@testable import fetch

@Suite("fetch command line")
struct FetchOptionsTests {
    /// One argument vector and what it must parse to.
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var expected: @Sendable (inout FetchOptions) -> Void
        var testDescription: String { arguments.joined(separator: " ") }
        init(_ arguments: [String], _ expected: @escaping @Sendable (inout FetchOptions) -> Void) {
            self.arguments = arguments
            self.expected = expected
        }
    }

    static let url = "http://h/"

    static let rows: [Row] = [
        Row(["-fsSL", url]) { $0.failMode = .withoutBody; $0.silent = true; $0.showError = true; $0.followRedirects = true },
        Row(["-sSf", url]) { $0.failMode = .withoutBody; $0.silent = true; $0.showError = true },
        Row(["-XPOST", url]) { $0.method = "POST" },
        Row(["-X", "PUT", "-X", "PATCH", url]) { $0.method = "PATCH" },  // later wins
        Row(["-m5", url]) { $0.maxTime = 5 },
        Row(["-m", "0.5", url]) { $0.maxTime = 0.5 },
        Row(["-ofile", url]) { $0.outputs = [.file("file")] },
        Row(["-so", "-", url]) { $0.silent = true; $0.outputs = [.file("-")] },
        Row(["-sofile", url]) { $0.silent = true; $0.outputs = [.file("file")] },
        Row(["-o", "a", "http://a/", "-O", "http://b/"]) { $0.urls = ["http://a/", "http://b/"]; $0.outputs = [.file("a"), .remoteName] },
        Row(["--", "-notanoption"]) { $0.urls = ["-notanoption"] },
        Row(["-s", "--no-silent", url]) { $0.silent = false },
        Row(["-f", "--fail-with-body", url]) { $0.failMode = .withBody },
        Row(["-I", "-i", "-A", "ua", "-e", "http://r/;auto", url]) { $0.headOnly = true; $0.includeHeaders = true; $0.userAgent = "ua"; $0.referer = "http://r/" },
        Row(["-H", "X-A: 1", "-HX-B;", url]) { $0.headerLines = ["X-A: 1", "X-B;"] },
        Row(["-d", "a=1", "--data-raw", "@x", "--data-binary", "@f", "--data-urlencode", "q=a b", "--json", "{}", url]) {
            $0.data = [.init(kind: .ascii, text: "a=1"), .init(kind: .raw, text: "@x"), .init(kind: .binary, text: "@f"),
                       .init(kind: .urlencode, text: "q=a b"), .init(kind: .json, text: "{}")]
        },
        Row(["-G", "-F", "a=b", url]) { $0.dataInQuery = true; $0.form = [FormArgument(text: "a=b")] },
        Row(["-D", "-", "--create-dirs", "-4", url]) { $0.dumpHeaderPath = "-"; $0.createDirectories = true; $0.ipVersion = .v4 },
        Row(["-6", url]) { $0.ipVersion = .v6 },
        Row(["--http1.1", "--limit-rate", "10k", "--max-filesize", "2M", url]) { $0.limitRate = 10 * 1024; $0.maxFileSize = 2 << 20 },
        // Issue 21: accepted as curl without nghttp2 accepts it (the transfer is HTTP/1.1).
        Row(["--http2", url]) { _ in },
        Row(["-C", "-", "-r", "5", url]) { $0.continueAt = .outputSize; $0.range = "5-" },
        Row(["--continue-at", "100", "--range", "0-9,20-", url]) { $0.continueAt = .offset(100); $0.range = "0-9,20-" },
        Row(["-u", "a:b", "-w", "%{http_code}", "-b", "c=1", url]) {
            $0.writeOut = "%{http_code}"
            $0.user = "a:b"
            $0.cookies.literals = ["c=1"]
        },
        Row(["--location-trusted", "--max-redirs", "3", "--digest", url]) {
            $0.followRedirects = true; $0.locationTrusted = true; $0.maxRedirects = 3; $0.authMethods = .digest
        },
        Row(["--digest", "--basic", "--max-redirs", "-1", url]) { $0.authMethods = [.digest, .basic]; $0.maxRedirects = -1 },
        Row(["--digest", "--no-digest", url]) { $0.authMethods = [] },
        Row(["--anyauth", "--no-anyauth", "--no-basic", url]) { $0.authMethods = .digest },
        Row(["-L", "--no-location", url]) { $0.followRedirects = false },
        Row(["--url", url, "-k", "--cacert", "ca.pem"]) { $0.insecure = true; $0.caCertificateFile = "ca.pem" },
    ]

    @Test("argument vector → option model", arguments: rows)
    func parses(_ row: Row) throws {
        var expected = FetchOptions()
        expected.urls = [Self.url]
        row.expected(&expected)
        let invocation = try ArgumentWalker.parse(row.arguments, readConfig: { _ in nil })
        #expect(invocation == .run(expected))
    }

    @Test("usage errors: curl's message, exit 2", arguments: [
        (["--foo", url], "option --foo: is unknown"),
        (["-W", url], "option -W: is unknown"),  // issue 21: -Z is --parallel now
        (["-sW", url], "option -sW: is unknown"),
        ([url, "-o"], "option -o: requires parameter"),
        (["-m", "abc", url], "option -m: expected a proper numerical parameter"),
        (["-C", "-5", url], "option -C: expected a positive numerical parameter"),
        (["-C", "abc", url], "option -C: expected a proper numerical parameter"),
        (["-s"], "no URL specified!"),
        ([], ""),
    ] as [([String], String)])
    func usageError(_ arguments: [String], _ message: String) {
        #expect(throws: FetchUsageError(description: message)) { try ArgumentWalker.parse(arguments, readConfig: { _ in nil }) }
    }

    @Test("-w formats", arguments: [
        ("%{http_code} %{response_code}", "404 404", []),
        ("%{http_code}", "000", []),
        ("%{size_download}/%{size_header}%%\\n", "12/34%\n", []),
        ("%{exitcode}:%{errormsg}\\t%{url_effective}", "22:boom\thttp://h/", []),
        ("%{method} %{scheme} %{http_version} %{num_headers} %{content_type}", "GET HTTP 1.1 3 text/plain", []),
        ("%{time_total}", "0.250000", []),
        ("a%{nope}b\\x %", "ab\\x %", ["nope"]),
        ("%{time_namelookup} %{time_connect} %{time_appconnect} %{time_starttransfer}", "0.001000 0.002500 0.000000 0.012346", []),
        ("%{speed_download} %{speed_upload} %{size_upload} %{size_request}", "48 0 0 90", []),
        ("%{remote_ip}:%{remote_port} %{local_ip}:%{local_port} %{num_connects} %{num_redirects}", "127.0.0.1:80 127.0.0.1:5000 1 0", []),
        ("%header{content-TYPE}|%header{Set-Cookie}|%header{x}", "text/plain|a=1, b=2|", []),
        ("%{stderr}%{stdout}%{header_json}", "{\"content-type\":[\"text/plain\"],\n\"set-cookie\":[\"a=1\",\"b=2\"]\n}", []),
    ] as [(String, String, [String])])
    func writeOut(_ format: String, _ text: String, _ unknown: [String]) {
        var values = WriteOut.Values(sizeDownload: 12, sizeHeader: 34, contentType: "text/plain", exitCode: 22, errorMessage: "boom",
                                     url: "http://h/", numHeaders: 3, httpVersion: "1.1", timeTotal: 0.25)
        values.timeNamelookup = 0.001
        values.timeConnect = 0.0025
        values.timeStarttransfer = 0.0123456
        values.sizeRequest = 90
        (values.remoteIP, values.remotePort, values.localIP, values.localPort, values.numConnects) = ("127.0.0.1", 80, "127.0.0.1", 5000, 1)
        values.headers = [.init(name: "Content-Type", value: "text/plain"), .init(name: "Set-Cookie", value: "a=1"),
                          .init(name: "set-cookie", value: "b=2")]
        values.httpCode = format == "%{http_code}" ? 0 : 404
        let rendered = WriteOut.render(format, values)
        #expect(rendered.text == text)
        #expect(rendered.unknown == unknown)
    }

    @Test("-h and -V stop the run")
    func helpAndVersion() throws {
        #expect(try ArgumentWalker.parse(["-V"]) == .version)
        #expect(try ArgumentWalker.parse(["-sh", Self.url]) == .help(Self.url))
    }

    @Test("-K: curl's config syntax, spliced where -K stands")
    func configFile() throws {
        let config = """
            # a comment
            silent
            --show-error
            header = "X-Quoted: a \\"b\\""
            max-time: 3
            -o out
            url = "http://k/"
            """
        let invocation = try ArgumentWalker.parse(["-X", "PUT", "-K", "conf", "-m", "9"], readConfig: { $0 == "conf" ? config : nil })
        var expected = FetchOptions()
        expected.method = "PUT"
        expected.silent = true
        expected.showError = true
        expected.headerLines = ["X-Quoted: a \"b\""]
        expected.maxTime = 9
        expected.outputs = [.file("out")]
        expected.urls = ["http://k/"]
        #expect(invocation == .run(expected))
        #expect(throws: FetchUsageError(status: 26, description: "(26) Failed to open/read config file nope", hint: false)) {
            try ArgumentWalker.parse(["-K", "nope", Self.url], readConfig: { _ in nil })
        }
    }
}

/// curl's meter arithmetic, without a transfer.
@Suite("fetch progress meter")
struct ProgressMeterFormatTests {
    @Test("five-column sizes", arguments: [(0, "    0"), (99_999, "99999"), (100_000, "  97k"), (10_239_999, "9999k"),
                                           (10_240_000, " 9.7M"), (104_857_600, " 100M")] as [(Int64, String)])
    func size(_ bytes: Int64, _ text: String) {
        #expect(ProgressMeter.size(bytes) == text)
    }

    @Test("eight-column times", arguments: [(0, "--:--:--"), (1, " 0:00:01"), (3_723, " 1:02:03"), (359_999, "99:59:59")] as [(Int64, String)])
    func time(_ seconds: Int64, _ text: String) {
        #expect(ProgressMeter.time(seconds) == text)
    }

    @Test("meter line: known and unknown download sizes")
    func line() {
        let meter = ProgressMeter(style: .meter)
        var counts = ProgressMeter.Counts()
        #expect(meter.meterLine(counts, elapsed: 0) == "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0")
        (counts.downloaded, counts.downloadTotal) = (185, 185)
        #expect(meter.meterLine(counts, elapsed: 0.5) == "\r100   185  100   185    0     0    370      0 --:--:-- --:--:-- --:--:--   370")
        (counts.downloaded, counts.downloadTotal) = (3000, -1)
        #expect(meter.meterLine(counts, elapsed: 2) == "\r100  3000    0  3000    0     0   1500      0  0:00:02  0:00:02 --:--:--  1500")
    }

    @Test("bar: '#' over width - 7 columns and the percentage")
    func bar() {
        let meter = ProgressMeter(style: .bar(width: 27))
        var counts = ProgressMeter.Counts()
        (counts.downloaded, counts.downloadTotal) = (50, 100)
        #expect(meter.barText(counts, width: 27) == "\r##########            50.0%")
        counts.downloaded = 100
        #expect(meter.barText(counts, width: 27) == "\r#################### 100.0%")
    }
}
