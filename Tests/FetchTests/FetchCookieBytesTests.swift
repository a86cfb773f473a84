// fetch and curl 7.88 side by side (issue 25 item 8): a scripted server sets a cookie whose
// value holds obs-text bytes; with `-c jar -b jar URL URL`, the second request's Cookie field and
// the jar file written must be the same bytes for both tools, and the jar must load back.
#if FullFoundation
import Foundation
import Testing
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let bytesFetch: String? = fetchExecutablePath

/// curl on the PATH.
private let bytesCurl: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("fetch and curl: cookie bytes kept end to end", .enabled(if: bytesFetch != nil && bytesCurl != nil,
                                                                  "needs curl and fetch built next to the tests"))
struct FetchCookieBytesTests {
    /// One Set-Cookie value (after `Set-Cookie: `), as bytes.
    struct Row: Sendable, CustomTestStringConvertible {
        var setCookie: [UInt8]
        var testDescription: String { setCookie.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined() }
    }

    static let rows: [Row] = [
        Row(setCookie: Array("a=".utf8) + [UInt8](0x80...0xFF) + Array("; Path=/".utf8)),
        Row(setCookie: Array("b=".utf8) + [0xC3, 0xA9, 0x74, 0xE9, 0xFF, 0xFE] + Array("; Path=/".utf8)),
        Row(setCookie: Array("c=caf\u{E9}; Path=/".utf8)),
        Row(setCookie: [0xE9, 0x6E] + Array("=v; Path=/".utf8)),
        Row(setCookie: Array("h=".utf8) + [0xFF] + Array("; Path=/; HttpOnly; Max-Age=3600".utf8)),
    ]

    @Test("the Cookie field sent back and the jar written are curl's bytes", arguments: rows)
    func sameAsCurl(_ row: Row) throws {
        let curl = try Self.run(try #require(bytesCurl), row)
        let fetch = try Self.run(try #require(bytesFetch), row)
        #expect(fetch.status == curl.status)
        #expect(curl.cookieField != nil)
        #expect(fetch.cookieField == curl.cookieField, "curl sent \(curl.cookieField ?? []), fetch \(fetch.cookieField ?? [])")
        // Expiry times may differ by the second between the two runs: compare jars without them.
        #expect(Self.withoutExpiry(fetch.jar) == Self.withoutExpiry(curl.jar))
        #expect(fetch.reloaded == curl.reloaded, "a request with -b jar carries the same bytes")
    }

    struct Outcome { var status: Int32; var cookieField: [UInt8]?; var jar: [UInt8]; var reloaded: [UInt8]? }

    static func run(_ tool: String, _ row: Row) throws -> Outcome {
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: ".utf8) + row.setCookie + Array("\r\n\r\nok".utf8)
        let server = try ScriptedServer(script: [.expectRequest, .send(response), .expectRequest, cannedResponse()])
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cookiebytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = directory.appendingPathComponent("jar").path
        let url = "http://127.0.0.1:\(server.port)/"
        let status = try Self.launch(tool, ["-s", "-o", "/dev/null", "-o", "/dev/null", "-c", jar, url, url])
        let sent = server.requests.count == 2 ? cookieField(server.requests[1]) : nil
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: jar)))
        // The jar loaded back: one request with -b, on a fresh server.
        let again = try ScriptedServer(script: [.expectRequest, cannedResponse()])
        defer { again.stop() }
        _ = try Self.launch(tool, ["-s", "-o", "/dev/null", "-b", jar, "http://127.0.0.1:\(again.port)/"])
        let reloaded = again.requests.first.flatMap(cookieField)
        return Outcome(status: status, cookieField: sent, jar: written, reloaded: reloaded)
    }

    static func launch(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The bytes after `Cookie: ` up to the line's end, in a raw request.
    static func cookieField(_ request: [UInt8]) -> [UInt8]? {
        let lines = request.split(separator: 0x0A).map { $0.last == 0x0D ? Array($0.dropLast()) : Array($0) }
        let prefix = Array("cookie: ".utf8)
        guard let line = lines.first(where: { $0.count >= prefix.count && zip($0, prefix).allSatisfy { $0 | 0x20 == $1 | 0x20 } })
        else { return nil }
        return Array(line.dropFirst(prefix.count))
    }

    /// Each jar line with its expiry field (the fifth) blanked.
    static func withoutExpiry(_ jar: [UInt8]) -> [[UInt8]] {
        jar.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            var fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map(Array.init)
            if fields.count == 7 { fields[4] = [] }
            return Array(fields.joined(separator: [0x09]))
        }
    }
}
#endif
