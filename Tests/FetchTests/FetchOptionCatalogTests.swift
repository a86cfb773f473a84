// Issue 21: every curl 7.88 option has one answer in fetch (implemented, inert, refused as
// curl refuses it, or refused as not yet done), curl's prefix matching and `--no-` rules,
// `--help` in curl's layout, and the parsers behind the new options (globbing, config lines,
// .netrc, --proto lists, --rate, dates, dot segments), all without sockets.
@testable import fetch
import Testing

@Suite("fetch: curl 7.88's option list")
struct FetchOptionCatalogTests {
    static let url = "http://example.invalid/"

    /// What happens to one option given alone (with a value when it takes one).
    enum Answer: Equatable { case accepted, refusedAsCurl, pending }

    static func answer(_ entry: CurlHelpEntry) -> Answer {
        let arguments = ["--" + entry.long] + (entry.takesValue ? ["1"] : []) + [url]
        do {
            guard case .run(let options) = try ArgumentWalker.parse(arguments) else { return .accepted }  // --help, --version
            return options.unsupported.isEmpty ? .accepted : .pending
        } catch {
            // A value of "1" can be refused by the option itself (a bad number, a bad file):
            // that is still the option being accepted.
            let reason = error.reason
            if reason == "is unknown" || reason == "the installed libcurl version doesn't support this" || reason == "is badly used here" {
                return OptionTable.implemented.contains(entry.long) ? .accepted : .refusedAsCurl
            }
            return .accepted
        }
    }

    @Test("each of curl's 250 options is accepted or refused with curl's message; counts")
    func everyOption() {
        #expect(CurlOptionCatalog.entries.count == 250)
        var counts: [Answer: Int] = [:]
        var pending: [String] = []
        for entry in CurlOptionCatalog.entries {
            let answer = Self.answer(entry)
            counts[answer, default: 0] += 1
            if answer == .pending { pending.append(entry.long) }
        }
        let accepted: Int = counts[.accepted, default: 0]
        let refused: Int = counts[.refusedAsCurl, default: 0]
        let notYet: Int = counts[.pending, default: 0]
        print("curl 7.88 options: accepted \(accepted), refused as curl \(refused), pending \(notYet): \(pending.joined(separator: " "))")
        let sum: Int = accepted + refused + notYet
        #expect(sum == 250)
        #expect(accepted >= 220)
    }

    @Test("refusals with curl's words", arguments: [
        (["--dns-servers", "1.1.1.1"], "option --dns-servers: the installed libcurl version doesn't support this"),
        (["--ntlm"], "option --ntlm: the installed libcurl version doesn't support this"),
        (["--http3"], "option --http3: the installed libcurl version doesn't support this"),
        (["--hsts", "f"], "option --hsts: the installed libcurl version doesn't support this"),
        (["--ret", "1"], "option --ret: is ambiguous"),
        (["--no-data", "x"], "option --no-data: used '--no-' for option that isn't a boolean"),
        (["--rate", "2/x"], "option --rate: is badly used here"),
        (["--rate", "abc"], "option --rate: expected a proper numerical parameter"),
        (["--metalink"], "option --metalink: is badly used here"),
    ])
    func refusal(_ arguments: [String], _ message: String) {
        #expect(throws: FetchUsageError.self) { try ArgumentWalker.parse(arguments + [Self.url]) }
        do { _ = try ArgumentWalker.parse(arguments + [Self.url]) } catch { #expect(error.description == message) }
    }

    @Test("accepted without effect: other protocols' options, --http2 as curl without nghttp2, prefixes", arguments: [
        ["--ftp-pasv"], ["--mail-from", "a@b"], ["--http2"], ["--http2-prior-knowledge"], ["--tcp-nodelay"], ["--no-keepalive"],
        ["--ssl-reqd"], ["--clobber"], ["--no-alpn"],
    ])
    func inert(_ arguments: [String]) throws {
        #expect(try ArgumentWalker.parse(arguments + [Self.url]) == .run(FetchOptions(urls: [Self.url])))
    }

    @Test("a unique prefix is the option (curl 7.88)")
    func prefix() throws {
        guard case .run(let options) = try ArgumentWalker.parse(["--sil", "--show-e", "--retry-all", Self.url]) else { Issue.record(); return }
        #expect(options.silent && options.showError && options.retry.allErrors)
    }

    @Test("--sslv3 warns as curl, unless -s came first")
    func warning() throws {
        guard case .run(let loud) = try ArgumentWalker.parse(["--sslv3", Self.url]),
              case .run(let quiet) = try ArgumentWalker.parse(["-s", "--sslv3", Self.url]) else { Issue.record(); return }
        #expect(loud.parseWarnings == ["Warning: Ignores instruction to use SSLv3"])
        #expect(quiet.parseWarnings.isEmpty)
    }

    @Test("--help: curl's layout, implemented options only, categories")
    func help() throws {
        let all = Usage.text(category: "all")
        #expect(all.contains("\n     --retry-all-errors "))
        #expect(all.contains("\n -L, --location "))
        #expect(!all.contains("--ftp-pasv") && !all.contains("--dns-servers"))
        #expect(Usage.text(category: "http").hasPrefix("Usage: fetch [options...] <url>\nhttp: HTTP and HTTPS protocol options\n"))
        #expect(Usage.text(category: "nope").contains("Invalid category provided, here is a list of all categories:\n\n auth        Different"))
        #expect(Usage.text(category: nil).hasSuffix("For all options use \"--help all\"."))
        #expect(try ArgumentWalker.parse(["--help", "tls"]) == .help("tls"))
        #expect(FetchVersion.text.contains("\nProtocols: http https\nFeatures: "))
    }
}

@Suite("fetch: issue 21's parsers")
struct FetchIssue21ParserTests {
    @Test("globbing: expansions, last pattern fastest", arguments: [
        ("http://h/{a,b}[1-2]", ["http://h/a1", "http://h/a2", "http://h/b1", "http://h/b2"]),
        ("http://h/[08-10:2]x[a-c:2]", ["http://h/08xa", "http://h/08xc", "http://h/10xa", "http://h/10xc"]),
        ("http://h/\\{a\\}", ["http://h/{a}"]),
        ("http://h/[]", ["http://h/[]"]),
        ("http://[::1]:8080/[1-2]", ["http://[::1]:8080/1", "http://[::1]:8080/2"]),
        ("http://h/{a,,b}", ["http://h/a", "http://h/", "http://h/b"]),
    ])
    func glob(_ url: String, _ expected: [String]) throws {
        #expect(try URLGlob(url).expansions.map(\.url) == expected)
    }

    @Test("globbing: curl's reasons and positions", arguments: [
        ("http://h/[1-]", "bad range", 13),
        ("http://h/{a,b", "unmatched brace", 10),
        ("http://h/[3-1]", "bad range", 15),
        ("http://h/[a-5]", "bad range", 15),
        ("http://h/{}", "empty string within braces", 11),
        ("http://h/{a{b}", "nested brace", 12),
        ("http://h/a}", "unmatched close brace/bracket", 11),
        ("http://h/[!-2]", "bad range specification", 11),
        ("http://h/[1-9:0]", "bad range", 17),
    ])
    func globFailure(_ url: String, _ reason: String, _ position: Int) {
        #expect(throws: URLGlob.Failure(reason: reason, position: position)) { try URLGlob(url) }
    }

    @Test("#N in -o")
    func outputName() {
        #expect(URLGlob.outputName("g_#2_#1#3#", values: ["a", "1"]) == "g_1_a#3#")
    }

    @Test("config lines as curl reads them")
    func configLines() {
        let lines = ConfigFile.lines("# c\n/ c\n* c\n  silent\n-H \"A: \\\"b\\\"\"\nurl = http://x/ trailing\n--max-time: 3\n\n")
        #expect(lines == [
            ConfigFile.Line(number: 4, option: "silent", value: nil),
            ConfigFile.Line(number: 5, option: "-H", value: "A: \"b\""),
            ConfigFile.Line(number: 6, option: "url", value: "http://x/", trailingText: true),
            ConfigFile.Line(number: 7, option: "--max-time:", value: "3"),
        ])
    }

    @Test("a bad config line is a warning and the next line is read; .curlrc unless -q")
    func configWarnings() throws {
        let files = ["rc": "bogus\nsilent\nmax-time x\n", "home": "header = \"X-Rc: 1\"\n"]
        guard case .run(let options) = try ArgumentWalker.parse(["-K", "rc", "http://x/"], readConfig: { files[$0] }) else { Issue.record(); return }
        #expect(options.silent)
        #expect(options.parseWarnings == ["Warning: rc:1: warning: 'bogus' is unknown"])
        guard case .run(let withRC) = try ArgumentWalker.parse(["http://x/"], readConfig: { files[$0] }, defaultConfig: "home"),
              case .run(let without) = try ArgumentWalker.parse(["-q", "http://x/"], readConfig: { files[$0] }, defaultConfig: "home")
        else { Issue.record(); return }
        #expect(withRC.headerLines == ["X-Rc: 1"])
        #expect(without.headerLines.isEmpty)
    }

    @Test(".netrc: the host's entry, default, a login's password, macdef skipped")
    func netrc() {
        let file = Netrc("machine a.example login ua password pa\nmacdef init\nmachine b.example login x\n\nmachine \"b.example\" login ub password \"p b\"\ndefault login ud password pd\n")
        #expect(file.credentials(host: "A.example") == "ua:pa")
        #expect(file.credentials(host: "b.example") == "ub:p b")
        #expect(file.credentials(host: "c.example") == "ud:pd")
        #expect(file.credentials(host: "a.example", user: "ud") == "ud:pd")
    }

    @Test("--proto lists", arguments: [
        ("=https", Set(["https"])), ("-all,https", Set(["https"])), ("=http,foo", Set(["http"])), ("-http", Protocols.all.subtracting(["http"])),
    ])
    func protocols(_ text: String, _ expected: Set<String>) {
        #expect(Protocols.parse(text, starting: Protocols.all) == expected)
    }

    @Test("--rate, dates, dot segments")
    func small() throws {
        #expect(try FetchExtraOptions.rate("2/s") == 0.5)
        #expect(try FetchExtraOptions.rate("6/m") == 10)
        #expect(try FetchExtraOptions.rate("1") == 1)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("20230102") == 1_672_617_600)
        #expect(HTTPDate.parse("garbage") == nil)
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(RequestExtras.removingDotSegments("http://h/a/../b/./c/..?x=/../") == "http://h/b/?x=/../")
        #expect(RequestExtras.removingDotSegments("http://h/../../a") == "http://h/a")
        #expect(RequestExtras.removingDotSegments("http://h/a/.") == "http://h/a/")
    }
}

@Suite("fetch: requests from issue 21's options")
struct FetchIssue21RequestTests {
    func request(_ arguments: [String]) throws -> PlannedRequest {
        guard case .run(let options) = try ArgumentWalker.parse(arguments, readConfig: { _ in nil }) else { throw FetchUsageError(description: "") }
        return try RequestBuilder().request(options.urls[0], options: options)
    }

    @Test("--json with -u: Accept becomes application/json, the User-Agent stays (it was overwritten)")
    func jsonWithCredentials() throws {
        let headers = try request(["--json", "{}", "-u", "a:b", "http://h/"]).headers
        #expect(headers.first { $0.name == "Accept" }?.value == "application/json")
        #expect(headers.first { $0.name == "User-Agent" }?.value == RequestBuilder.userAgent)
    }

    @Test("--oauth2-bearer, -z, --url-query, --proto-default, dot segments")
    func headersAndURL() throws {
        let bearer = try request(["--oauth2-bearer", "t", "h/a/./b/../c", "--proto-default", "https", "--url-query", "q=a b"])
        #expect(bearer.url == "https://h/a/c?q=a+b")
        #expect(bearer.headers.contains(HeaderField(name: "Authorization", value: "Bearer t")))
        let basic = try request(["--oauth2-bearer", "t", "-u", "a:b", "http://h/"])
        #expect(!basic.headers.contains { $0.value.hasPrefix("Bearer") })
        let condition = try request(["-s", "-z", "-Sun, 06 Nov 1994 08:49:37 GMT", "http://h/"])
        #expect(condition.headers.contains(HeaderField(name: "If-Unmodified-Since", value: "Sun, 06 Nov 1994 08:49:37 GMT")))
        #expect(throws: TransferError(status: 1, message: "Protocol \"http\" not supported")) { try request(["--proto", "=https", "http://h/"]) }
        #expect(throws: TransferError(status: 67, message: "Login denied")) { try request(["--disallow-username-in-url", "http://u@h/"]) }
    }
}
