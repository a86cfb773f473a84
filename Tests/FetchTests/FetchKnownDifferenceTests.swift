// Issue 21's known differences from curl 7.88, each against a scripted server with both tools:
// a body shorter than its Content-Length (curl: 18 "transfer closed with N bytes remaining to
// read"; fetch said 56 and Client's sentence), a chunked body cut short (18, "outstanding read
// data"), a head over the limit (curl 7.88: 27; fetch said 8 with "malformed response:" twice),
// an invalid Content-Length (curl: 8 "Invalid Content-Length: value"; fetch said "malformed
// response:" twice), and a Location with a space or a %XX in its query (curl: space as %20 in the path and + in the
// query, %41 kept; fetch sent %2541).
import FoundationEssentials
import Testing
@testable import fetch
#if FullFoundation
import Foundation
import LariatTestSupport

/// `fetch` next to the running test bundle, if it was built.
private let differencesFetch: String? = fetchExecutablePath

private let differencesCurl: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") ? "/usr/bin/curl" : nil

@Suite("fetch and curl: issue 21's known differences", .enabled(if: differencesFetch != nil && differencesCurl != nil, "needs curl and fetch"))
struct FetchKnownDifferenceTests {
    @Test("a truncated body: exit 18 and curl's message", arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    ])
    func truncatedBody(_ answer: String) throws {
        let curl = try FetchMessagesTests.run(try #require(differencesCurl), ["-sS"], answer: Array(answer.utf8))
        let fetch = try FetchMessagesTests.run(try #require(differencesFetch), ["-sS"], answer: Array(answer.utf8))
        #expect(curl.status == 18)
        #expect(fetch.status == curl.status)
        #expect(fetch.output == curl.output)
        #expect(fetch.errors == curl.errors)
    }

    @Test("a head over the limit: curl 7.88's exit 27, one sentence (was 8 and 'malformed response:' twice)")
    func headTooLarge() throws {
        let answer = Array("HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 400_000))\r\nContent-Length: 0\r\n\r\n".utf8)
        let curl = try FetchMessagesTests.run(try #require(differencesCurl), ["-sS"], answer: answer)
        let fetch = try FetchMessagesTests.run(try #require(differencesFetch), ["-sS"], answer: answer)
        #expect(curl.status == 27)
        #expect(fetch.status == curl.status)
        #expect(fetch.errors.components(separatedBy: "malformed response").count <= 2, "\(fetch.errors)")
        #expect(fetch.errors.hasPrefix("fetch: (27) Too large response headers"), "\(fetch.errors)")
    }

    @Test("an invalid Content-Length: curl's exit 8 and its sentence (fetch said 'malformed response:' twice)", arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nhello",
    ])
    func invalidContentLength(_ answer: String) async throws {
        let curlPath = try #require(differencesCurl), fetchPath = try #require(differencesFetch)
        let (curl, fetch) = try await offPool {
            (try FetchMessagesTests.run(curlPath, ["-sS"], answer: Array(answer.utf8)),
             try FetchMessagesTests.run(fetchPath, ["-sS"], answer: Array(answer.utf8)))
        }
        #expect(curl.status == 8)
        #expect(fetch.status == curl.status)
        #expect(fetch.output == curl.output)
        #expect(fetch.errors == curl.errors, "\(fetch.errors)")
    }

    @Test("Location resolved as curl resolves it (no second encoding of %XX)", arguments: [
        "/a%20b", "/a b", "/a%2Fb?x=%41 y", "/c%7Ed#frag", "../up/./x?q",
    ])
    func location(_ location: String) throws {
        let curl = try Self.redirected(try #require(differencesCurl), location: location)
        let fetch = try Self.redirected(try #require(differencesFetch), location: location)
        #expect(fetch == curl)
    }

    /// The request line the tool sent after a 302 to `location` (from /dir/start).
    static func redirected(_ tool: String, location: String) throws -> String {
        let redirect = Array("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n".utf8)
        let final = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let server = try ScriptedServer(script: [.expectRequest, .send(redirect), .expectRequest, .send(final), .close], stepTimeout: .seconds(20))
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-sSL", "-o", "/dev/null", "http://127.0.0.1:\(server.port)/dir/start"]
        try process.run()
        process.waitUntilExit()
        let requests = server.requests
        guard requests.count == 2 else { return "requests: \(requests.count), status \(process.terminationStatus)" }
        return String(decoding: requests[1].prefix { $0 != 13 }, as: UTF8.self)
    }
}
#endif
