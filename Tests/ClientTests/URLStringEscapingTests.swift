// A URL written as a string keeps its escapes (issue 25, item 7): `String.asURL()` (and so
// `AF.request("…")` and fetch) encodes only what is invalid; `%3D` stays `%3D` where
// `URL(string:)` alone made it `%253D`. Checked on the wire with fetch against a scripted server.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client
#if FullFoundation
import LariatTestSupport
#endif

@Suite("URL strings keep their escapes")
struct URLStringEscapingTests {
    @Test("String.asURL: invalid characters escaped, existing escapes kept", arguments: [
        ("http://h/a|b%3Dc{d}", "http://h/a%7Cb%3Dc%7Bd%7D"),
        ("http://h/p?q=a|b%3D{c}#frag", "http://h/p?q=a%7Cb%3D%7Bc%7D#frag"),
        ("http://h/x y%20z", "http://h/x%20y%20z"),
        ("http://h/100%", "http://h/100%25"),
        ("http://h/%zz%4", "http://h/%25zz%254"),
        ("http://h/a#b#c", "http://h/a#b%23c"),
        ("http://h/caf\u{E9}%C3%A9", "http://h/caf%C3%A9%C3%A9"),
        ("http://h/^`\"<>\\[]", "http://h/%5E%60%22%3C%3E%5C%5B%5D"),
        // Valid strings are untouched, reserved characters included.
        ("https://user@h:8080/a/b;c=d?e=f&g=h%2F#i", "https://user@h:8080/a/b;c=d?e=f&g=h%2F#i"),
        ("http://h", "http://h"),
    ])
    func escaping(input: String, expected: String) throws {
        #expect(try input.asURL().absoluteString == expected)
        #expect(URLStringEscaping.escapingInvalidCharacters(expected) == expected)
    }
}

#if FullFoundation
/// `fetch` next to the running test bundle, if it was built.
private let escapingFetch: String? = fetchExecutablePath

extension URLStringEscapingTests {
    @Test("fetch sends the escapes it was given (was /a%7Cb%253Dc%7Bd%7D)", .enabled(if: escapingFetch != nil, "fetch is not built"),
          arguments: [
              ("/a|b%3Dc{d}", "/a%7Cb%3Dc%7Bd%7D"),
              ("/p?q=%41|x%2f", "/p?q=%41%7Cx%2f"),
          ])
    func requestLine(path: String, sent: String) throws {
        let server = try ScriptedServer(script: [.expectRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .close])
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(escapingFetch))
        // `-g`: `{d}` is a URL glob for curl (and fetch), which would send `d`; the escapes are
        // what this test is about.
        process.arguments = ["-sSg", "http://127.0.0.1:\(server.port)\(path)"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let request = String(decoding: try #require(server.requests(onConnection: 0).first), as: UTF8.self)
        #expect(request.hasPrefix("GET \(sent) HTTP/1.1\r\n"), "\(request.prefix(80))")
    }
}
#endif
