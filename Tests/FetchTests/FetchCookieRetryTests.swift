// fetch's cookie and retry options without the network: parsing, the Netscape file read and
// written as curl does, curl's retry classification and its wrapped warning lines.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client
@testable import fetch

@Suite("fetch cookies and retries")
struct FetchCookieRetryTests {
    @Test("-b DATA vs -b FILE, -c, -j, --retry*")
    func parsing() throws {
        let invocation = try ArgumentWalker.parse(
            ["-b", "a=1; b=2", "-b", "jar.txt", "-c", "out", "-j", "--retry", "3", "--retry-delay", "2", "--retry-max-time", "9",
             "--retry-connrefused", "--retry-all-errors", "http://h/"],
            readConfig: { _ in nil })
        guard case .run(let options) = invocation else { Issue.record("\(invocation)"); return }
        #expect(options.cookies == FetchCookieOptions(literals: ["a=1; b=2"], files: ["jar.txt"], jar: "out", junkSessionCookies: true))
        #expect(options.cookies.engineEnabled && options.cookies.literalField == "a=1; b=2")
        #expect(options.retry == FetchRetryOptions(count: 3, delay: 2, maxTime: 9, connectionRefused: true, allErrors: true))
        #expect(options.unsupported.isEmpty)
        #expect(FetchCookieOptions(literals: ["a=1"]).engineEnabled == false)
        for bad in [["--retry", "x"], ["--retry", "-1"], ["--retry-delay", "0.5"], ["--retry-max-time", "1s"]] {
            #expect(throws: FetchUsageError.self) { try ArgumentWalker.parse(bad + ["http://h/"], readConfig: { _ in nil }) }
        }
    }

    @Test("a Netscape file: domain and host-only lines, #HttpOnly_, session and expired cookies, junk")
    func netscapeRead() throws {
        let file = """
            # Netscape HTTP Cookie File
            # a comment
            example.com\tFALSE\t/\tFALSE\t0\thost\tonly
            .example.com\tTRUE\t/p\tTRUE\t4102444800\tdomain\twide
            #HttpOnly_sub.example.com\tTRUE\t/\tFALSE\t4102444800\thidden\t1
            example.com\tFALSE\t/\tFALSE\t1\texpired\tlong ago
            example.com\tFALSE\t/\tFALSE\t0\tempty
            not enough fields
            example.com\tFALSE\t/\tFALSE\tsoon\tbad\texpiry\r
            """
        let cookies = NetscapeCookies.parse(file)
        #expect(cookies.map(\.name) == ["host", "domain", "hidden", "empty"])
        #expect(cookies[0].domain == "example.com" && cookies[0].isSessionOnly)
        #expect(cookies[1].domain == ".example.com" && cookies[1].path == "/p" && cookies[1].isSecure
            && cookies[1].expiresDate == Date(timeIntervalSince1970: 4_102_444_800))
        #expect(cookies[2].domain == ".sub.example.com" && cookies[2].isHTTPOnly)
        #expect(cookies[3].value == "")
    }

    @Test("the jar as curl writes it: header, newest first, TRUE for domain cookies, #HttpOnly_")
    func netscapeWrite() throws {
        let storage = HTTPCookieStorage()
        let origin = URL(string: "https://www.example.com/a/b")!
        storage.setCookie(try SetCookieParser.parse("s=1", for: origin).get())
        // Set-Cookie caps an expiry at 400 days; properties do not, so the year-2100 line is stable.
        storage.setCookie(try #require(HTTPCookie(properties: [
            .name: "d", .value: "2", .domain: ".example.com", .path: "/", .secure: true, .expires: Date(timeIntervalSince1970: 4_102_444_800),
        ])))
        storage.setCookie(try SetCookieParser.parse("h=3; HttpOnly; Path=/", for: origin).get())
        #expect(NetscapeCookies.format(storage.cookies ?? []) == NetscapeCookies.header + """
            #HttpOnly_www.example.com\tFALSE\t/\tFALSE\t0\th\t3
            .example.com\tTRUE\t/\tTRUE\t4102444800\td\t2
            www.example.com\tFALSE\t/a\tFALSE\t0\ts\t1

            """)
        #expect(NetscapeCookies.parse(NetscapeCookies.format(storage.cookies ?? [])) .map(\.name) == ["h", "d", "s"])
    }

    static let reasons: [(String, AFError, FetchRetryOptions, FetchRetrier.Reason?)] = [
        ("503", .responseValidationFailed(reason: .unacceptableStatusCode(code: 503)), FetchRetryOptions(count: 1), .http),
        ("404 (-f) without --retry-all-errors", .responseValidationFailed(reason: .unacceptableStatusCode(code: 404)), FetchRetryOptions(count: 1), nil),
        ("404 (-f) with --retry-all-errors", .responseValidationFailed(reason: .unacceptableStatusCode(code: 404)),
         FetchRetryOptions(count: 1, allErrors: true), .allErrors),
        ("timeout", .sessionTaskFailed(error: URLError(.timedOut)), FetchRetryOptions(count: 1), .timeout),
        ("unknown host", .sessionTaskFailed(error: URLError(.cannotFindHost)), FetchRetryOptions(count: 1), .timeout),
        ("refused without --retry-connrefused", .sessionTaskFailed(error: URLError(.cannotConnectToHost)), FetchRetryOptions(count: 1), nil),
        ("refused with --retry-connrefused", .sessionTaskFailed(error: URLError(.cannotConnectToHost)),
         FetchRetryOptions(count: 1, connectionRefused: true), .connectionRefused),
        ("refused with --retry-all-errors", .sessionTaskFailed(error: URLError(.cannotConnectToHost)),
         FetchRetryOptions(count: 1, allErrors: true), .allErrors),
        ("connection lost", .sessionTaskFailed(error: URLError(.networkConnectionLost)), FetchRetryOptions(count: 1), nil),
        ("cancelled, even with --retry-all-errors", .explicitlyCancelled, FetchRetryOptions(count: 1, allErrors: true), nil),
    ]

    @Test("curl's transient failures", arguments: reasons)
    func classification(scenario: String, error: AFError, options: FetchRetryOptions, expected: FetchRetrier.Reason?) {
        #expect(FetchRetrier.reason(for: error, options: options) == expected, "\(scenario)")
    }

    @Test("curl's warning lines wrap at 79 columns, counting the newline")
    func wrapping() {
        #expect(FetchRetrier.warningLines("Problem : HTTP error. Will retry in 1 seconds. 2 retries left.") ==
            ["Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left."])
        #expect(FetchRetrier.warningLines("Problem : connection refused. Will retry in 2 seconds. 1 retries left.") ==
            ["Warning: Problem : connection refused. Will retry in 2 seconds. 1 retries ", "Warning: left."])
        #expect(FetchRetrier.warningLines(String(repeating: "x", count: 75)) ==
            ["Warning: " + String(repeating: "x", count: 70), "Warning: xxxxx"])
    }
}
