#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let url = URL(string: "https://example.com/files/report.pdf?x=1")!

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
