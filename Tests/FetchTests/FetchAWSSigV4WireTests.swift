// `--aws-sigv4` on the wire, curl 7.88 and fetch with the same command line against the scripted
// server. curl takes the date from the clock, so each captured request's signature is recomputed
// from that request (its method, target, Host, `-H` lines, body and date) with fetch's signer:
// curl's signature verifying proves the signer is curl's; fetch's verifying proves fetch sends
// what it signed. The two Authorization headers must also agree once date and signature are masked.
#if FullFoundation
import Foundation
import Testing
@testable import fetch
import LariatTestSupport

@Suite("fetch --aws-sigv4 and curl on the wire", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
struct FetchAWSSigV4WireTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var spec: String
        var lines: [String] = []
        var extra: [String] = []
        var path = "/"
        /// The bytes curl hashes (its -d data); empty for -F.
        var signedBody = ""
        /// The server answers 302 to `/next?z=9` first (same connection), then 200.
        var redirect = false
        var testDescription: String { ([spec] + lines + extra + [path]).joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(spec: "aws:amz:us-east-1:service", path: "/p/a?x=1&b=2"),
        // Service and region from the host name: 127.0.0.1 reads as service "127", region "0".
        Row(spec: "aws:amz", lines: ["My-Header:  a   b ", "content-type: text/plain"], extra: ["-d", "Param1=value1"], path: "/post", signedBody: "Param1=value1"),
        Row(spec: "goog:goog:auto:storage", lines: ["X-Extra: 1"], extra: ["-X", "PUT", "--data-binary", "xyz"], path: "/put?a", signedBody: "xyz"),
        Row(spec: "aws:amz:r:s", extra: ["-F", "f=v"], path: "/form"),
        Row(spec: "aws:amz:r:s", lines: ["Accept:"], extra: ["-G", "-d", "q=1"], path: "/get"),
        // Each hop signed for its own method and target; curl hashes the -d data on the GET too.
        Row(spec: "aws:amz:r:s", extra: ["-L", "-d", "a=1"], path: "/first", signedBody: "a=1", redirect: true),
        Row(spec: "aws:amz:r:s", extra: ["-L"], path: "/first", redirect: true),
    ]

    @Test("same signed request as curl, each signature recomputed from its capture", arguments: rows)
    func sameAsCurl(_ row: Row) async throws {
        let (curl, fetch) = try await offPool {
            (try Self.capture("/usr/bin/curl", row), try Self.capture(FetchOptionParityTests.fetchPath, row))
        }
        #expect(curl.status == 0 && fetch.status == 0, "curl \(curl.status), fetch \(fetch.status): \(fetch.errors)")
        #expect(curl.requests.count == (row.redirect ? 2 : 1))
        #expect(fetch.requests.count == curl.requests.count)
        for (curlRequest, fetchRequest) in zip(curl.requests, fetch.requests) {
            let curlAuth = try #require(curlRequest.head["authorization"])
            let fetchAuth = try #require(fetchRequest.head["authorization"])
            #expect(try Self.recomputed(curlRequest, row) == curlAuth)
            #expect(try Self.recomputed(fetchRequest, row) == fetchAuth)
            #expect(Self.masked(fetchAuth) == Self.masked(curlAuth))
            #expect(fetchRequest.requestLine == curlRequest.requestLine)
            #expect(fetchRequest.head.keys.sorted().filter { $0 != "user-agent" } == curlRequest.head.keys.sorted().filter { $0 != "user-agent" })
        }
    }

    /// What one tool sent.
    struct Capture: Sendable {
        var status: Int32
        var errors: String
        var requests: [Request]
    }

    /// One request received.
    struct Request: Sendable {
        var requestLine: String
        /// Header names lower-cased to their values.
        var head: [String: String]
        var body: String
    }

    static func capture(_ tool: String, _ row: Row) throws -> Capture {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"
        let script: [ScriptedServer.Step] = row.redirect
            ? [.expectRequest, .send("HTTP/1.1 302 Found\r\nLocation: /next?z=9\r\nContent-Length: 0\r\n\r\n"), .expectRequest, .send(ok), .close]
            : [.expectRequest, .send(ok), .close]
        let server = try ScriptedServer(script: script)
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-sS", "-o", "/dev/null", "--aws-sigv4", row.spec, "-u", "AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"]
            + row.lines.flatMap { ["-H", $0] } + row.extra + ["http://127.0.0.1:\(server.port)\(row.path)"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        _ = server.waitForConnections(1, finished: true)
        let requests = server.requests.map { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let end = text.range(of: "\r\n\r\n")
            var lines = text[..<(end?.lowerBound ?? text.endIndex)].components(separatedBy: "\r\n")
            let requestLine = lines.isEmpty ? "" : lines.removeFirst()
            var head: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                head[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].drop { $0 == " " })
            }
            return Request(requestLine: requestLine, head: head, body: end.map { String(text[$0.upperBound...]) } ?? "")
        }
        return Capture(status: process.terminationStatus, errors: errorText, requests: requests)
    }

    /// The Authorization value fetch's signer computes for the captured request.
    static func recomputed(_ capture: Request, _ row: Row) throws -> String {
        let parts = capture.requestLine.split(separator: " ")
        try #require(parts.count == 3)
        let target = parts[1]
        let question = target.firstIndex(of: "?")
        let signer = try AWSSigV4(spec: row.spec, host: "127.0.0.1")
        let p1 = signer.provider1.lowercased()
        let dateKey = "X-" + p1.prefix(1).uppercased() + p1.dropFirst() + "-Date"
        let date = try #require(capture.head[dateKey.lowercased()])
        #expect(row.signedBody.isEmpty || capture.body == row.signedBody || parts[0] == "GET")
        let request = AWSSigV4.Request(
            method: String(parts[0]), path: String(target[..<(question ?? target.endIndex)]),
            query: question.map { String(target[target.index(after: $0)...]) } ?? "", host: try #require(capture.head["host"]),
            headerLines: row.lines + ["\(dateKey): \(date)"], payload: Array(row.signedBody.utf8))
        let fields = signer.sign(request, accessKey: "AKIDEXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", now: 0)
        return try #require(fields.first).value
    }

    /// The Authorization value with its date and signature replaced.
    static func masked(_ value: String) -> String {
        guard let signature = value.range(of: "Signature="), let credential = value.range(of: "Credential=AKIDEXAMPLE/") else { return value }
        var text = String(value[..<signature.upperBound]) + "<sig>"
        text.replaceSubrange(credential.upperBound..<text.index(credential.upperBound, offsetBy: 8), with: "<date>")
        return text
    }
}
#endif
