// --trace, --trace-ascii and --trace-time: the dump layout as a table (no sockets), then fetch
// and curl 7.88 side by side against the same scripted answers (Host and User-Agent fixed so
// the bytes sent are the same), and -v/-T's framing fields (they showed Content-Length: 0 for an
// uploaded file before the head was derived with the upload's body).
import FoundationEssentials
import Testing
@testable import fetch

@Suite("trace dump layout")
struct TraceDumpTests {
    /// (style, bytes, expected text), the expected text as curl 7.88.1 writes it.
    static let rows: [(TraceDump.Style, [UInt8], String)] = [
        (.hex, Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
         "=> T, 27 bytes (0x1b)\n"
            + "0000: 47 45 54 20 2f 20 48 54 54 50 2f 31 2e 31 0d 0a GET / HTTP/1.1..\n"
            + "0010: 48 6f 73 74 3a 20 68 0d 0a 0d 0a                Host: h....\n"),
        (.ascii, Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
         "=> T, 27 bytes (0x1b)\n0000: GET / HTTP/1.1\n0010: Host: h\n0019: \n"),
        // Bytes outside 0x20-0x7F are dots; a lone LF does not end an ASCII row.
        (.ascii, [0x61, 0x0A, 0x00, 0x7F, 0x80, 0xFF, 0x62], "=> T, 7 bytes (0x7)\n0000: a..\u{7F}..b\n"),
        (.hex, [], "=> T, 0 bytes (0x0)\n"),
        // 64 text bytes fill one ASCII row; the 65th starts the next.
        (.ascii, Array(repeating: 0x78, count: 65),
         "=> T, 65 bytes (0x41)\n0000: " + String(repeating: "x", count: 64) + "\n0040: x\n"),
    ]

    @Test("rows, offsets and CR LF breaks", arguments: 0..<5)
    func layout(_ index: Int) {
        let (style, bytes, expected) = Self.rows[index]
        #expect(TraceDump.section("=> T", bytes, style: style) == expected)
    }

    @Test("--trace-time stamps are HH:MM:SS.uuuuuu and a space")
    func stamp() {
        let text = TraceDump.timestamp(secondsSince1970: 1_700_000_000.25)
        #expect(text.count == 16)
        #expect(text.hasSuffix(":20.250000 "), "\(text)")
    }

    @Test("options: last of -v, --trace, --trace-ascii wins, with curl's warnings")
    func lastWins() {
        var options = FetchOptions()
        options.setTrace("a", style: .hex, name: "--trace")
        options.setTrace("b", style: .ascii, name: "--trace-ascii")
        #expect(options.traceFile == "b" && options.traceStyle == .ascii)
        #expect(options.parseWarnings == ["Warning: --trace-ascii overrides an earlier trace/verbose option"])
        options.silent = true
        options.setTrace("c", style: .hex, name: "--trace")
        #expect(options.parseWarnings.count == 1)  // -s mutes it
    }
}

#if FullFoundation
import Foundation
import LariatTestSupport
import CLinux

private let traceFetch: String? = fetchExecutablePath

private let traceCurl: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") ? "/usr/bin/curl" : nil

@Suite("fetch and curl: --trace", .enabled(if: traceFetch != nil && traceCurl != nil, "needs curl and fetch"))
struct FetchTraceTests {
    /// What both tools send: the same bytes whatever the server's port.
    static let fixed = ["-s", "-H", "Host: h", "-H", "User-Agent: x", "-o", "/dev/null"]

    static let answers: [[UInt8]] = [
        Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".utf8),
        Array("HTTP/1.1 404 Not Found\r\nContent-Length: 8\r\nX-Odd: a\tb\r\nConnection: close\r\n\r\n".utf8) + [0x61, 0x0D, 0x0A, 0x00, 0xFF, 0x62, 0x0A, 0x63],
    ]

    /// The trace with the server's port (in the Info lines) and --trace-time stamps masked.
    static func masked(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var line = String(line)
            if line.count > 16, line.dropFirst(15).first == " ", line.prefix(15).allSatisfy({ $0.isNumber || $0 == ":" || $0 == "." }) {
                line = "T " + line.dropFirst(16)
            }
            guard line.hasPrefix("== Info:") || line.hasPrefix("T == Info:") else { return line }
            // Runs of 4 or more digits (the port) become PORT.
            var out = "", digits = ""
            for character in line + " " {
                if character.isNumber { digits.append(character); continue }
                out += digits.count >= 4 ? "PORT" : digits
                digits = ""
                out.append(character)
            }
            return String(out.dropLast())
        }.joined(separator: "\n")
    }

    @Test("the same trace as curl", arguments: ["--trace", "--trace-ascii"], [0, 1])
    func sameAsCurl(_ option: String, _ answer: Int) throws {
        let arguments = Self.fixed + [option, "-"]
        let curl = try FetchMessagesTests.run(try #require(traceCurl), arguments, answer: Self.answers[answer])
        let fetch = try FetchMessagesTests.run(try #require(traceFetch), arguments, answer: Self.answers[answer])
        #expect(fetch.status == curl.status)
        #expect(Self.masked(fetch.output) == Self.masked(curl.output))
    }

    @Test("--trace-time stamps every section; % is standard error")
    func timesToStandardError() throws {
        let arguments = Self.fixed + ["--trace-ascii", "%", "--trace-time"]
        let curl = try FetchMessagesTests.run(try #require(traceCurl), arguments, answer: Self.answers[0])
        let fetch = try FetchMessagesTests.run(try #require(traceFetch), arguments, answer: Self.answers[0])
        #expect(fetch.output.isEmpty && curl.output.isEmpty)
        #expect(fetch.errors.hasPrefix("T ") == false && fetch.errors.first?.isNumber == true)
        #expect(Self.masked(fetch.errors) == Self.masked(curl.errors))
    }

    @Test("a trace file that cannot be opened goes to standard error, as curl's")
    func unopenable() throws {
        let arguments = Self.fixed + ["--trace-ascii", "/nonexistent-dir/trace"]
        let curl = try FetchMessagesTests.run(try #require(traceCurl), arguments, answer: Self.answers[0])
        let fetch = try FetchMessagesTests.run(try #require(traceFetch), arguments, answer: Self.answers[0])
        #expect(fetch.status == 0 && curl.status == 0)
        #expect(Self.masked(fetch.errors) == Self.masked(curl.errors))
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-dir/trace"))
    }

    @Test("-v and the trace show an uploaded file's Content-Length, and the trace its bytes")
    func uploadFraming() throws {
        let file = NSTemporaryDirectory() + "fetch-trace-\(UUID().uuidString).txt"
        try "a=1 x\r\nb=2\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        let verbose = try FetchMessagesTests.run(try #require(traceFetch), ["-sv", "-T", file, "-o", "/dev/null"], answer: answer)
        #expect(verbose.errors.contains("> Content-Length: 11\r\n"), "\(verbose.errors)")
        let trace = try FetchMessagesTests.run(try #require(traceFetch), ["-s", "-T", file, "--trace-ascii", "-", "-o", "/dev/null"], answer: answer)
        #expect(trace.output.contains("Content-Length: 11\n"), "\(trace.output)")
        #expect(trace.output.contains("=> Send data, 11 bytes (0xb)\n0000: a=1 x\n0007: b=2.\n"), "\(trace.output)")
    }
}

@Suite("fetch and curl: --xattr", .enabled(if: traceFetch != nil && traceCurl != nil, "needs curl and fetch"))
struct FetchXattrTests {
    /// The file's `user.*` attributes by name.
    static func attributes(_ path: String) -> [String: String] {
        var names = [CChar](repeating: 0, count: 1024)
        let length = listxattr(path, &names, names.count)
        guard length > 0 else { return [:] }
        var result: [String: String] = [:]
        for name in names[..<length].split(separator: 0) {
            let key = String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard key.hasPrefix("user.") else { continue }
            var value = [UInt8](repeating: 0, count: 4096)
            let size = value.withUnsafeMutableBytes { getxattr(path, key, $0.baseAddress, $0.count) }
            result[key] = size >= 0 ? String(decoding: value[..<size], as: UTF8.self) : "<unreadable>"
        }
        return result
    }

    @Test("the URL and Content-Type, as curl sets them; nothing for a response without a body",
          arguments: [("HTTP/1.1 200 OK\r\nContent-Type: text/x; q=1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi", 2),
                      ("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", 0)])
    func sameAsCurl(_ answer: String, _ count: Int) throws {
        var seen: [[String: String]] = []
        for tool in [try #require(traceCurl), try #require(traceFetch)] {
            let file = NSTemporaryDirectory() + "fetch-xattr-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let run = try FetchMessagesTests.run(tool, ["-s", "--xattr", "-o", file], answer: Array(answer.utf8))
            #expect(run.status == 0)
            seen.append(Self.attributes(file))
        }
        // Each tool had its own server: the URLs differ in the port only.
        let masked = seen.map { attributes in
            attributes.mapValues { $0.hasPrefix("http://127.0.0.1:") && $0.hasSuffix("/x") ? "http://127.0.0.1:PORT/x" : $0 }
        }
        #expect(masked[0].count == count, "\(seen[0])")
        #expect(masked[1] == masked[0])
    }

    @Test("credentials never reach the attribute", arguments: [
        ("http://u:p@h:1/a?b#c", "http://h:1/a?b#c"), ("https://u@h/", "https://h/"),
        ("http://h/p@q", "http://h/p@q"), ("http://a@b@h/x", "http://h/x"), ("h/x", "h/x"),
    ])
    func credentials(_ url: String, _ expected: String) {
        #expect(OutputAttributes.withoutCredentials(url) == expected)
    }
}
#endif
