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
        let response = response([.init(name: "Set-Cookie", value: "a=1"), .init(name: "set-cookie", value: "b=2"), .contentType("text/plain")])
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

@Suite("DataResponse and DownloadResponse")
struct ResponseTests {
    private func make(_ result: Result<Int, AFError>) -> AFDataResponse<Int> {
        var request = URLRequest(url: url)
        request.headers = [.accept("application/json")]
        return DataResponse(
            request: request,
            response: HTTPURLResponse(url: url, statusCode: 200, headers: [.contentType("application/json")]),
            data: Data("{\"v\":1}".utf8),
            metrics: URLSessionTaskMetrics(taskInterval: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 0.25)),
            serializationDuration: 0.5,
            result: result
        )
    }

    @Test("value and error")
    func valueAndError() {
        #expect(make(.success(3)).value == 3)
        #expect(make(.success(3)).error == nil)
        #expect(make(.failure(.explicitlyCancelled)).error?.isExplicitlyCancelledError == true)
    }

    @Test("map, tryMap, flatMap, mapError, tryMapError keep the other fields")
    func transforms() {
        struct Boom: Error {}
        let success = make(.success(2))
        #expect(success.map { $0 * 10 }.value == 20)
        #expect(success.map { $0 * 10 }.data == success.data)
        #expect(success.tryMap { _ -> Int in throw Boom() }.error is Boom)
        #expect(success.flatMap { .success(String($0)) }.value == "2")
        let failure = make(.failure(.explicitlyCancelled))
        #expect(failure.mapError { _ in Boom() }.error != nil)
        #expect(failure.tryMapError { _ -> AFError in throw Boom() }.error is Boom)
        #expect(failure.map { $0 + 1 }.error?.isExplicitlyCancelledError == true)
        #expect(failure.serializationDuration == 0.5)
    }

    @Test("descriptions show request, response, durations and result")
    func descriptions() {
        let text = make(.success(1)).debugDescription
        for fragment in ["[Request]: GET https://example.com/files/report.pdf?x=1", "Accept: application/json", "[Status Code]: 200",
                         "{\"v\":1}", "[Network Duration]: 0.25s", "[Serialization Duration]: 0.5s", "[Result]: success(1)"] {
            #expect(text.contains(fragment), "missing \(fragment)")
        }
        #expect(make(.success(1)).description == "success(1)")
    }

    @Test("download response mirrors the data response")
    func download() {
        let fileURL = URL(fileURLWithPath: "/tmp/d")
        let response = AFDownloadResponse<Int>(request: nil, response: HTTPURLResponse(url: url, statusCode: 200, headers: [:]), fileURL: fileURL, resumeData: Data([1]), metrics: nil,
                                               serializationDuration: 0, result: .success(1))
        #expect(response.map { $0 + 1 }.value == 2)
        #expect(response.map { $0 + 1 }.fileURL == fileURL)
        #expect(response.map { $0 + 1 }.resumeData == Data([1]))
        #expect(response.debugDescription.contains("File: /tmp/d, resume data: 1 bytes"))
        #expect(response.debugDescription.contains("[Request]: None"))
    }
}

@Suite("URLSessionConfiguration and metrics")
struct ConfigurationTests {
    @Test("defaults")
    func defaults() {
        let configuration = URLSessionConfiguration.default
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.timeoutIntervalForResource == 604_800)
        #expect(configuration.httpMaximumConnectionsPerHost == 6)
        #expect(!configuration.httpShouldUsePipelining)
        #expect(configuration.httpAdditionalHeaders == nil)
        #expect(configuration.headers.isEmpty)
        #expect(configuration.requestCachePolicy == .useProtocolCachePolicy)
    }

    @Test("each access to .default is a new instance; changes are kept per instance")
    func independentInstances() {
        let first = URLSessionConfiguration.default
        first.timeoutIntervalForRequest = 5
        #expect(URLSessionConfiguration.default.timeoutIntervalForRequest == 60)
        let copy = first.copy()
        first.timeoutIntervalForRequest = 7
        #expect(copy.timeoutIntervalForRequest == 5)
        #expect(first.settings.timeoutIntervalForRequest == 7)
    }

    @Test("af.default carries HTTPHeaders.default")
    func afDefault() {
        #expect(URLSessionConfiguration.af.default.headers == HTTPHeaders.default.sorted())
        #expect(URLSessionConfiguration.af.ephemeral.headers["User-Agent"] == "Lariat/0.1 (Linux; Swift)")
    }

    @Test("httpAdditionalHeaders converts values to strings and drops non-string keys")
    func additionalHeaders() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Int": 5, "X-String": "s", 7: "dropped"]
        #expect(configuration.httpAdditionalHeaders?["X-Int"] as? String == "5")
        #expect(configuration.headers.map(\.name) == ["X-Int", "X-String"])
    }

    @Test("metrics keep what the transport reports")
    func metrics() {
        let request = URLRequest(url: url)
        let transaction = URLSessionTaskTransactionMetrics(
            request: request, isReusedConnection: true, countOfRequestBodyBytesSent: 10, countOfResponseBodyBytesReceived: 20,
            remoteAddress: "127.0.0.1", remotePort: 8080, negotiatedTLSProtocolVersion: .tlsv13
        )
        let metrics = URLSessionTaskMetrics(taskInterval: DateInterval(start: Date(), duration: 1), redirectCount: 1, transactionMetrics: [transaction])
        #expect(metrics.transactionMetrics.first?.networkProtocolName == "http/1.1")
        #expect(transaction.countOfRequestBodyBytesBeforeEncoding == 10)
        #expect(transaction.countOfResponseBodyBytesAfterDecoding == 20)
        #expect(transaction.negotiatedTLSProtocolVersion?.rawValue == "TLSv1.3")
        #expect(transaction.resourceFetchType == .networkLoad)
        #expect(!transaction.isProxyConnection && transaction.isReusedConnection)
        #expect(metrics.description.contains("redirects: 1"))
    }
}
