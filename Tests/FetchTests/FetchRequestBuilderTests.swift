// fetch's request building without the network: the URL as curl reads it, curl's default and
// edited headers, and every body spelling, with files injected.
import FoundationEssentials
import Testing
@testable import fetch

@Suite("fetch request building")
struct FetchRequestBuilderTests {
    static let files: [String: String] = ["f": "a=1\r\nb=2\n", "-": "from stdin\n", "bin": "x\ny", "h": "X-File: 1\nAccept:\n"]

    static var builder: RequestBuilder {
        var builder = RequestBuilder()
        builder.body = BodyBuilder(read: { files[$0].map { Data($0.utf8) } })
        builder.boundary = "BOUNDARY"
        return builder
    }

    func plan(_ arguments: [String]) throws -> PlannedRequest {
        guard case .run(let options) = try ArgumentWalker.parse(arguments, readConfig: { _ in nil }) else { throw FetchUsageError(description: "not a run") }
        return try Self.builder.request(options.urls[0], options: options)
    }

    func body(_ arguments: [String]) throws -> String {
        String(decoding: try plan(arguments + ["http://h/"]).body ?? Data(), as: UTF8.self)
    }

    @Test("-d family bodies", arguments: [
        (["-d", "@f"], "a=1b=2"),  // newlines stripped
        (["-d", "@-"], "from stdin"),
        (["-d", "a", "-d", "b"], "a&b"),  // used to keep only the last
        (["--data-ascii", "x y"], "x y"),
        (["--data-raw", "@f"], "@f"),
        (["--data-binary", "@bin"], "x\ny"),
        (["--data-urlencode", "a b&c"], "a+b%26c"),
        (["--data-urlencode", "=a b"], "a+b"),
        (["--data-urlencode", "n=a b"], "n=a+b"),
        (["--data-urlencode", "@bin"], "x%0Ay"),
        (["--data-urlencode", "n@bin"], "n=x%0Ay"),
        (["--json", "{\"a\":", "--json", "1}"], "{\"a\":1}"),
    ] as [([String], String)])
    func dataBodies(_ arguments: [String], _ expected: String) throws {
        #expect(try body(arguments) == expected)
    }

    @Test("--compressed asks for deflate and gzip; without it no Accept-Encoding; -H replaces it")
    func compressed() throws {
        let asked = HeaderField(name: "Accept-Encoding", value: "deflate, gzip")
        #expect(try plan(["--compressed", "http://h/"]).headers.contains(asked))
        #expect(try plan(["http://h/"]).headers.contains { $0.name == "Accept-Encoding" } == false)
        let replaced = try plan(["--compressed", "-H", "Accept-Encoding: gzip", "http://h/"]).headers.filter { $0.name == "Accept-Encoding" }
        #expect(replaced == [HeaderField(name: "Accept-Encoding", value: "gzip")])
    }

    @Test("method and content type follow curl")
    func methods() throws {
        #expect(try plan(["http://h/"]).method == "GET")
        #expect(try plan(["-d", "a", "http://h/"]).method == "POST")
        #expect(try plan(["-d", "a", "-X", "PUT", "http://h/"]).method == "PUT")
        #expect(try plan(["-I", "http://h/"]).method == "HEAD")
        let get = try plan(["-G", "-d", "a=1", "-d", "b=2", "http://h/p?x=0#f"])
        #expect(get.method == "GET" && get.url == "http://h/p?x=0&a=1&b=2" && get.body == nil)
        let json = try plan(["--json", "{}", "http://h/"])
        #expect(json.headers.contains(HeaderField(name: "Content-Type", value: "application/json")))
        #expect(json.headers.contains(HeaderField(name: "Accept", value: "application/json")))
        #expect(throws: FetchUsageError.self) { try plan(["-I", "-d", "a", "http://h/"]) }
        #expect(throws: FetchUsageError.self) { try plan(["-F", "a=b", "-d", "a", "http://h/"]) }
        #expect(try plan(["-I", "-G", "-d", "a", "http://h/"]).method == "HEAD")
    }

    @Test("-H: replace, remove with 'Name:', empty with 'Name;', read from @file")
    func headers() throws {
        let request = try plan(["-H", "User-Agent: mine", "-H", "Accept:", "-H", "X-Empty;", "-H", "X-Two: 1", "-H", "X-Two: 2", "http://h/"])
        #expect(request.headers == [HeaderField(name: "User-Agent", value: "mine"), HeaderField(name: "X-Empty", value: ""),
                                    HeaderField(name: "X-Two", value: "1"), HeaderField(name: "X-Two", value: "2")])
        let fromFile = try plan(["-H", "@h", "http://h/"])
        #expect(fromFile.headers == [HeaderField(name: "User-Agent", value: RequestBuilder.userAgent), HeaderField(name: "X-File", value: "1")])
    }

    @Test("URLs as curl reads them")
    func urls() throws {
        // user:password@ used to be dropped silently.
        let auth = try plan(["http://us%40er:p%3Ass@h:8080/x"])
        #expect(auth.url == "http://h:8080/x")
        #expect(auth.headers.first == HeaderField(name: "Authorization", value: "Basic " + Data("us@er:p:ss".utf8).base64EncodedString()))
        // Scheme-less used to be refused; curl assumes http.
        #expect(try plan(["localhost:8080/path"]).url == "http://localhost:8080/path")
        #expect(throws: TransferError(status: 1, message: "Protocol \"ftp\" not supported")) { try plan(["ftp://h/"]) }
        #expect(throws: TransferError(status: 3, message: "URL using bad/illegal format or missing URL")) { try plan(["http:///x"]) }
    }

    @Test("-u, --basic, --digest and --anyauth: Basic alone at once, any other set only when challenged; -u wins over the URL")
    func userCredentials() throws {
        func basic(_ credentials: String) -> HeaderField { HeaderField(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString()) }
        #expect(try plan(["-u", "a:b", "http://h/"]).headers.first == basic("a:b"))
        #expect(try plan(["-u", "a:b", "http://x:y@h/"]).headers.first == basic("a:b"))
        // No password prompt: `-u user` sends an empty password.
        #expect(try plan(["-u", "a", "http://h/"]).headers.first == basic("a:"))
        let digest = try plan(["--digest", "-u", "a:b:c", "http://h/"])
        #expect(!digest.headers.contains { $0.name == "Authorization" })
        #expect(digest.challengeCredentials == "a:b:c")
        #expect(try plan(["--digest", "http://x:y@h/"]).challengeCredentials == "x:y")
        // curl's bits: --digest --basic is two schemes, so nothing goes out before the 401
        // (FetchAuthScopeTests: curl then answers the strongest offered); --anyauth likewise.
        let both = try plan(["--digest", "--basic", "-u", "a:b", "http://h/"])
        #expect(!both.headers.contains { $0.name == "Authorization" } && both.challengeCredentials == "a:b")
        #expect(try plan(["--anyauth", "-u", "a:b", "http://h/"]).challengeCredentials == "a:b")
        #expect(try plan(["--digest", "--no-digest", "-u", "a:b", "http://h/"]).headers.first == basic("a:b"))
    }

    @Test("-F parts and the multipart body")
    func form() throws {
        let text = try body(["-F", "a=b", "-F", "f=@bin;type=text/x;filename=n.txt", "-F", "c=<bin"])
        #expect(text == """
            --BOUNDARY\r
            Content-Disposition: form-data; name="a"\r
            \r
            b\r
            --BOUNDARY\r
            Content-Disposition: form-data; name="f"; filename="n.txt"\r
            Content-Type: text/x\r
            \r
            x
            y\r
            --BOUNDARY\r
            Content-Disposition: form-data; name="c"\r
            \r
            x
            y\r
            --BOUNDARY--\r

            """)
        #expect(FormParts.guessType("a.PNG") == "image/png")
        #expect(throws: TransferError.self) { try plan(["-F", "novalue", "http://h/"]) }
    }

    @Test("-O names and --limit-rate sizes")
    func outputsAndSizes() throws {
        #expect(Output.remoteName("http://h/dir/file.txt?q=1") == "file.txt")
        #expect(Output.remoteName("http://h/") == nil)
        #expect(try OptionTable.size("--limit-rate", "1.5k") == 1536)
        #expect(throws: FetchUsageError.notNumeric("--limit-rate")) { try OptionTable.size("--limit-rate", "fast") }
    }
}
