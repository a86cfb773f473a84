// Issue 21: `fetch --libcurl FILE` writes the Swift program (Client's Alamofire API) that sends
// the same requests. The pieces are table-tested without sockets; end to end, each row runs
// fetch against httpbin's /anything, compiles the program it wrote with swiftc against this
// build's own Client objects, runs it, and compares what httpbin echoed for both (method, URL,
// headers, body) field by field. Full Foundation only (Process, JSONSerialization).
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport
@testable import fetch

#if canImport(Glibc)
import Glibc
#endif

private let libcurlBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

@Suite("fetch --libcurl: the Swift program of a command line")
struct FetchLibcurlTests {
    // MARK: Pieces, without sockets

    @Test("string literals escape what Swift source cannot hold as typed", arguments: [
        ("plain", #""plain""#),
        (#"q"uote"#, #""q\"uote""#),
        (#"back\slash \(x)"#, #""back\\slash \\(x)""#),
        ("line\nfeed\r\ttab", #""line\nfeed\r\ttab""#),
        ("nul\u{0}del\u{7F}", #""nul\u{0}del\u{7f}""#),
        ("\u{2028}sep\u{202E}bidi", #""\u{2028}sep\u{202e}bidi""#),
        ("é ✓", "\"é ✓\""),
    ])
    func literal(_ text: String, _ expected: String) {
        #expect(SwiftProgram.literal(text) == expected)
    }

    @Test("bodies: UTF-8 text as text, anything else as Base64")
    func bodies() {
        #expect(SwiftProgram.data(Data("a=1&b=é".utf8)) == #"Data("a=1&b=é".utf8)"#)
        #expect(SwiftProgram.data(Data([0x61, 0x00, 0x62])) == #"Data(base64Encoded: "YQBi")!"#)
        #expect(SwiftProgram.data(Data([0xFF, 0xFE])) == #"Data(base64Encoded: "//4=")!"#)
    }

    @Test("headers use Alamofire's named constructors where one fits", arguments: [
        ("User-Agent", "fetch/1", #".userAgent("fetch/1")"#),
        ("Accept", "*/*", #".accept("*/*")"#),
        ("Content-Type", "application/json", #".contentType("application/json")"#),
        ("Authorization", "Basic YWxpY2U6cHc6eA==", #".authorization(username: "alice", password: "pw:x")"#),
        ("Authorization", "Bearer t0k", #".authorization(bearerToken: "t0k")"#),
        ("Authorization", "Basic !!", #"HTTPHeader(name: "Authorization", value: "Basic !!")"#),
        ("X-Odd", "a\"b", #"HTTPHeader(name: "X-Odd", value: "a\"b")"#),
    ])
    func header(_ name: String, _ value: String, _ expected: String) {
        #expect(SwiftProgram.header(HeaderField(name: name, value: value)) == expected)
    }

    @Test("the command line in the header comment cannot end the comment or run anything")
    func commandLine() {
        #expect(SwiftProgram.commandLine(["-d", "a=1", "http://h/x"]) == "fetch -d a=1 http://h/x")
        #expect(SwiftProgram.commandLine(["http://h/x?y=1&z"]) == "fetch 'http://h/x?y=1&z'")  // shell characters quoted
        #expect(SwiftProgram.commandLine(["-H", "X: it's"]) == #"fetch -H 'X: it'\''s'"#)
        #expect(SwiftProgram.commandLine(["-d", "a\nimport Evil"]) == #"fetch -d 'a\u{a}import Evil'"#)
    }

    @Test("what the program cannot express is named, not dropped")
    func unexpressed() throws {
        guard case .run(let options) = try ArgumentWalker.parse(["--limit-rate", "1k", "-Z", "--resolve", "h:80:127.0.0.1", "http://h/"]) else {
            Issue.record("not a run")
            return
        }
        #expect(SwiftProgram.unexpressedOptions(options) == ["--resolve/--connect-to", "--limit-rate", "-Z"])
        let source = SwiftProgram.source(arguments: [], groups: [(options, [])])
        #expect(source.contains("// Not expressed below: --resolve/--connect-to, --limit-rate, -Z."))
    }

    @Test("an https:// proxy's --proxy-cacert and --proxy-insecure become ProxyTLSOptions; its pin is named as unexpressed")
    func httpsProxy() throws {
        let arguments = ["-x", "https://proxy.example:8443", "--proxy-cacert", "proxy-ca.pem", "--proxy-insecure",
                         "--proxy-pinnedpubkey", "sha256//AAAA", "http://h/"]
        guard case .run(let options) = try ArgumentWalker.parse(arguments) else {
            Issue.record("not a run")
            return
        }
        let source = SwiftProgram.source(arguments: arguments, groups: [(options, [])])
        #expect(source.contains("var session1Proxy = try ProxyServer(parsing: \"https://proxy.example:8443\")"), "\(source)")
        #expect(source.contains("session1Proxy.tlsOptions = ProxyTLSOptions(configuration: {"), "\(source)")
        #expect(source.contains("tls.trustRoots = .file(\"proxy-ca.pem\")  // --proxy-cacert"), "\(source)")
        #expect(source.contains("tls.verification = .none  // --proxy-insecure"), "\(source)")
        #expect(SwiftProgram.unexpressedOptions(options).contains("--proxy-pinnedpubkey"))
    }

    @Test("--libcurl is an option fetch runs (no longer curl's 'disabled at build-time')")
    func optionParses() throws {
        guard case .run(let options) = try ArgumentWalker.parse(["--libcurl", "out.swift", "http://h/", "--next", "http://i/"]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.extras.libcurlPath == "out.swift")
        #expect(options.following.first?.extras.libcurlPath == "out.swift")
    }

    // MARK: End to end: the program compiles and sends what fetch sent

    static let rows: [[String]] = [
        ["-d", "a=1&b=\"two\"", "-H", "X-Quote: \"q\" \\ \\(x)", "{base}/anything/form"],
        ["-X", "PUT", "--json", "{\"k\":[1,2]}", "{base}/anything/json?x=1"],
        ["-u", "alice:s3:cret", "-A", "agent/1 é", "-e", "http://referer.example/", "{base}/anything/auth"],
        ["-G", "--data-urlencode", "q=a b&c", "-d", "n=2", "{base}/anything/query"],
        ["-F", "name=value", "-F", "upload=@{bin};type=application/octet-stream", "{base}/anything/multipart"],
        ["--data-binary", "@{bin}", "-H", "Content-Type: application/octet-stream", "{base}/anything/binary"],
        ["-L", "{base}/redirect-to?url=/anything/after-redirect"],
        ["-X", "DELETE", "-H", "Accept:", "-H", "X-Empty;", "{base}/anything/delete"],
    ]

    // One swiftc at a time: eight links of Client's few hundred objects at once on a 2-core
    // machine once lost a link's autolinked libraries (every Foundation symbol undefined).
    @Test("the program compiles and sends the request fetch sent", .enabled(if: FetchLibcurlTests.canBuildPrograms),
          .serialized, arguments: rows)
    func sameRequest(_ row: [String]) async throws {
        let base = try #require(libcurlBase)
        let directory = NSTemporaryDirectory() + "libcurl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data((0...255).map { UInt8($0) }).write(to: URL(fileURLWithPath: directory + "/bin"))
        let arguments = ["-sS", "-o", directory + "/echo.json", "--libcurl", directory + "/main.swift"]
            + row.map { $0.replacingOccurrences(of: "{base}", with: base).replacingOccurrences(of: "{bin}", with: directory + "/bin") }
        let fetch = try await Self.run(FetchOptionParityTests.fetchPath, arguments, in: directory)
        #expect(fetch.status == 0, "fetch: \(fetch.errors)")
        try FileManager.default.moveItem(atPath: directory + "/echo.json", toPath: directory + "/fetch.json")

        let build = try await Self.run("/usr/bin/env", ["swiftc"] + Self.compilerArguments + [directory + "/main.swift", "-o", directory + "/program"],
                                 in: directory)
        let source = (try? String(contentsOfFile: directory + "/main.swift", encoding: .utf8)) ?? ""
        try #require(build.status == 0, "swiftc: \(build.errors)\n\(source)")
        let program = try await Self.run(directory + "/program", [], in: directory)
        #expect(program.status == 0, "program: \(program.errors)")

        let fromFetch = try Self.echo(directory + "/fetch.json")
        let fromProgram = try Self.echo(directory + "/echo.json")
        for field in ["method", "url", "args", "headers", "data", "form", "files", "json"] {
            #expect(fromProgram[field] == fromFetch[field], "\(field) differs\n\(source)")
        }
    }

    /// httpbin's echo, each field as its JSON text (so values compare exactly).
    static func echo(_ path: String) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return object.mapValues { value in
            let encoded = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            return encoded.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
        }
    }

    /// The build directory of these tests (fetch and the test bundle sit in it).
    static var buildDirectory: String { (FetchOptionParityTests.fetchPath as NSString).deletingLastPathComponent }

    /// The package root (for the C modules' module maps).
    static var packageRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// The objects of Client and the modules under it, as SwiftPM linked them into fetch this
    /// build (fetch's link list, without fetch's own objects). The list, not a directory
    /// listing: a build directory keeps objects of files that have since moved to another module.
    static var clientObjects: [String] {
        guard let list = try? String(contentsOfFile: buildDirectory + "/fetch.product/Objects.LinkFileList", encoding: .utf8) else { return [] }
        return list.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".o") && !$0.contains("/fetch.build/") }
    }

    /// swiftc's arguments to build a program against this build's Client.
    static var compilerArguments: [String] {
        let maps = ["COpenSSL", "CLinux", "CZlib", "CDirent"].flatMap { ["-Xcc", "-fmodule-map-file=\(packageRoot)/Sources/\($0)/module.modulemap"] }
        return ["-I", buildDirectory + "/Modules"] + maps + clientObjects + ["-lssl", "-lcrypto", "-lz"]
    }

    /// Programs can be built here: httpbin is set, swiftc is on PATH, SwiftPM's link list for
    /// fetch names Client's objects, and this process is not under a sanitizer (whose
    /// instrumented objects would need its runtime linked in).
    static var canBuildPrograms: Bool {
        libcurlBase != nil && clientObjects.contains { $0.contains("/Client.build/") } && !underSanitizer
            && (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/swiftc")
            }
    }

    /// Whether AddressSanitizer or ThreadSanitizer is loaded in this process.
    static var underSanitizer: Bool {
        guard let handle = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(handle) }
        return dlsym(handle, "__asan_init") != nil || dlsym(handle, "__tsan_init") != nil
    }

    /// Runs `tool` with `arguments` in `directory`: its exit status and standard error.
    /// Runs `tool` off the cooperative pool (a compile takes ~10 s: see Tests/Support/OffPool.swift).
    static func run(_ tool: String, _ arguments: [String], in directory: String) async throws -> (status: Int32, errors: String) {
        try await offPool { try runBlocking(tool, arguments, in: directory) }
    }

    static func runBlocking(_ tool: String, _ arguments: [String], in directory: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errorPath = directory + "/stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        guard let errors = FileHandle(forWritingAtPath: errorPath) else { return (-1, "cannot open \(errorPath)") }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try errors.close()
        return (process.terminationStatus, (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}
#endif
