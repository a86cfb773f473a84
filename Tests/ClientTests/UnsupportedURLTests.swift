// URLs Lariat does not send (no scheme, `ftp://`; `file://` loads, see FileURLTests) fail as URLSession fails them: a
// task is made and ends with `URLError.unsupportedURL`, so the response carries the request and
// metrics and the error is a session-task error through every serializer and `map`. A string
// that is not a URL at all is still `AFError.invalidURL`, before any task (`asURL()`). No
// server: nothing may connect.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

@Suite("Unsupported URLs fail as session tasks")
struct UnsupportedURLTests {
    /// The `URLError.Code` under `AFError.sessionTaskFailed`, or `nil`.
    static func taskCode(_ error: AFError?) -> URLError.Code? {
        guard case .sessionTaskFailed(let underlying)? = error else { return nil }
        return (underlying as? URLError)?.code
    }

    static let urls = [
        "invalid",              // no scheme: a relative reference
        "ftp://example.test/",  // a scheme Lariat does not speak
    ]

    @Test("data request: URLError.unsupportedURL as a session-task error, with request and metrics", arguments: urls)
    func data(_ url: String) async {
        let request = retained(Session()).request(url, parameters: ["foo": "bar"])
        let response = await request.serializingData().response
        #expect(Self.taskCode(response.error) == .unsupportedURL, "\(response.result)")
        #expect(response.error?.isSessionTaskError == true)
        #expect(response.request?.url?.absoluteString.hasPrefix(url) == true, "\(String(describing: response.request))")
        #expect(response.response == nil)
        #expect(response.data == nil)
        #expect(response.metrics != nil)
        #expect(request.task != nil)
        // Through `map` and `mapError` the failure is kept as it is.
        let mapped = response.map { _ in "ignored" }
        #expect(Self.taskCode(mapped.error) == .unsupportedURL)
        let remapped = response.mapError { $0 }
        #expect(Self.taskCode(remapped.error) == .unsupportedURL)
        #expect(remapped.metrics != nil)
    }

    @Test("string and decodable serializers see the same failure")
    func serializers() async {
        let string = await retained(Session()).request("invalid").serializingString().response
        #expect(Self.taskCode(string.error) == .unsupportedURL, "\(string.result)")
        let decodable = await retained(Session()).request("ftp://example.test/").serializingDecodable([String].self).response
        #expect(Self.taskCode(decodable.error) == .unsupportedURL, "\(decodable.result)")
        #expect(decodable.metrics != nil)
    }

    @Test("download request: the same session-task failure, with request and metrics")
    func download() async {
        let response = await retained(Session()).download("invalid", parameters: ["foo": "bar"]).serializingData().response
        #expect(Self.taskCode(response.error) == .unsupportedURL, "\(response.result)")
        #expect(response.request != nil)
        #expect(response.fileURL == nil)
        #expect(response.metrics != nil)
    }

    @Test("a string that is not a URL is still invalidURL, before any task")
    func notAURL() async {
        let request = retained(Session()).request("http://exa mple.com/[")
        let response = await request.serializingData().response
        guard case .invalidURL? = response.error else {
            Issue.record("expected invalidURL, got \(response.result)")
            return
        }
        #expect(response.request == nil)
        #expect(request.task == nil)
    }
}
