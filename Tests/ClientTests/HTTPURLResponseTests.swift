#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let url = URL(string: "https://example.com/files/report.pdf?x=1")!

private func response(_ headers: HTTPHeaders, url: URL = url) -> HTTPURLResponse {
    HTTPURLResponse(url: url, statusCode: 200, headers: headers)
}

@Suite("HTTPURLResponse")
struct HTTPURLResponseTests {
    @Test("Foundation-style initializer")
    func foundationInit() throws {
        let response = try #require(HTTPURLResponse(url: url, statusCode: 201, httpVersion: nil, headerFields: ["B": "2", "A": "1"]))
        #expect(response.statusCode == 201)
        #expect(response.httpVersion == "HTTP/1.1")
        #expect(response.headers.map(\.name) == ["A", "B"])
        #expect(HTTPURLResponse(url: url, statusCode: 99, httpVersion: nil, headerFields: nil) == nil)
        #expect(HTTPURLResponse(url: url, statusCode: 1000, httpVersion: nil, headerFields: nil) == nil)
    }

    @Test("header lookups ignore case and join repeats")
    func lookups() {
        // A response head keeps repeated fields as received (the transport appends them).
        var headers = HTTPHeaders()
        headers.appendField(name: "Set-Cookie", value: "a=1")
        headers.appendField(name: "set-cookie", value: "b=2")
        headers.appendField(name: "Content-Type", value: "text/plain")
        let response = response(headers)
        #expect(response.value(forHTTPHeaderField: "SET-COOKIE") == "a=1, b=2")
        #expect(response.value(forHTTPHeaderField: "missing") == nil)
        #expect(response.headers.count == 3)
        #expect(response.allHeaderFields["Set-Cookie"] as? String == "a=1, b=2")
        #expect(response.allHeaderFields["Content-Type"] as? String == "text/plain")
    }

    @Test("mimeType and textEncodingName", arguments: [
        ("application/json; charset=UTF-8", "application/json", "utf-8"),
        ("Text/HTML", "text/html", nil),
        ("text/plain;charset=\"iso-8859-1\"", "text/plain", "iso-8859-1"),
        ("garbage", nil, nil),
    ] as [(String, String?, String?)])
    func mime(contentType: String, mimeType: String?, encoding: String?) {
        let response = response([.contentType(contentType)])
        #expect(response.mimeType == mimeType)
        #expect(response.textEncodingName == encoding)
    }

    @Test("expectedContentLength", arguments: [("12", Int64(12)), (" 7 ", 7), ("-1", -1), ("x", -1), (nil, -1)] as [(String?, Int64)])
    func contentLength(value: String?, expected: Int64) {
        let headers: HTTPHeaders = value.map { ["Content-Length": $0] } ?? [:]
        #expect(response(headers).expectedContentLength == expected)
    }

    @Test("suggestedFilename", arguments: [
        ("attachment; filename=\"a b.txt\"", url, "a b.txt"),
        ("attachment; filename*=UTF-8''na%C3%AFve.txt; filename=\"naive.txt\"", url, "naïve.txt"),
        ("attachment; filename=\"../../etc/passwd\"", url, "passwd"),
        ("attachment; filename=\"..\"", url, "report.pdf"),
        (nil, url, "report.pdf"),
        (nil, URL(string: "https://example.com/")!, "example.com"),
    ] as [(String?, URL, String)])
    func filename(disposition: String?, url: URL, expected: String) {
        let headers: HTTPHeaders = disposition.map { [.contentDisposition($0)] } ?? [:]
        #expect(response(headers, url: url).suggestedFilename == expected)
    }

    @Test("status code strings", arguments: [(200, "no error"), (404, "not found"), (503, "service unavailable"), (299, "success"), (599, "server error"), (150, "informational")])
    func statusStrings(code: Int, text: String) {
        #expect(HTTPURLResponse.localizedString(forStatusCode: code) == text)
    }
}
