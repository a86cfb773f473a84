// The Alamofire-shaped API against a real server: httpbin under gunicorn on loopback
// (scripts/httpbin.sh start, then LARIAT_HTTPBIN=http://127.0.0.1:PORT). Without
// LARIAT_HTTPBIN the suite is skipped; starting the server is CI's job, not the test's.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Testing
import LariatTestSupport
@testable import Client

/// The httpbin base URL from the environment, or nil when the suite must be skipped.
private let httpbinBase: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

/// httpbin endpoints the suite uses (a typed table instead of string paths in every test).
private enum Endpoint {
    case get, post, headers, status(Int), redirect(Int), bytes(Int), stream(Int), delay(Int), streamBytes(Int, chunk: Int)

    var path: String {
        switch self {
        case .get: return "/get"
        case .post: return "/post"
        case .headers: return "/headers"
        case .status(let code): return "/status/\(code)"
        case .redirect(let count): return "/redirect/\(count)"
        case .bytes(let count): return "/bytes/\(count)"
        case .stream(let lines): return "/stream/\(lines)"
        case .delay(let seconds): return "/delay/\(seconds)"
        case .streamBytes(let count, let chunk): return "/stream-bytes/\(count)?chunk_size=\(chunk)&seed=7"
        }
    }

    var url: String { (httpbinBase ?? "http://127.0.0.1:1") + path }
}

/// httpbin's echo of a request (the fields the tests look at).
private struct Echo: Decodable, Sendable {
    var args: [String: String]?
    var headers: [String: String]
    var url: String?
    var form: [String: String]?
    var json: Payload?
    var data: String?
}

/// A JSON body sent and echoed back.
private struct Payload: Codable, Sendable, Equatable {
    var name: String
    var count: Int
    var tags: [String]
}

extension ClientIntegrationTests {
    @Suite("httpbin", .enabled(if: httpbinBase != nil, "LARIAT_HTTPBIN is not set: start httpbin with scripts/httpbin.sh start and export LARIAT_HTTPBIN"))
    struct HTTPBinTests {
        let session = Session()

        @Test("GET with query parameters: args echoed")
        func queryParameters() async throws {
            let echo = try await session.request(Endpoint.get.url, parameters: ["q": "swift http", "page": "2"])
                .serializingDecodable(Echo.self).value
            #expect(echo.args == ["q": "swift http", "page": "2"])
        }

        @Test("POST JSON with JSONParameterEncoder: json echoed")
        func postJSON() async throws {
            let payload = Payload(name: "lariat", count: 3, tags: ["a", "b"])
            let response = await session.request(Endpoint.post.url, method: .post, parameters: payload, encoder: JSONParameterEncoder.default)
                .serializingDecodable(Echo.self).response
            let echo = try response.result.get()
            #expect(echo.json == payload)
            #expect(echo.headers["Content-Type"] == "application/json")
        }

        @Test("POST form with URLEncodedFormParameterEncoder: form echoed")
        func postForm() async throws {
            let form = ["name": "a b&c", "lang": "swift"]
            let echo = try await session.request(Endpoint.post.url, method: .post, parameters: form, encoder: URLEncodedFormParameterEncoder.default)
                .serializingDecodable(Echo.self).value
            #expect(echo.form == form)
            #expect(echo.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        }

        @Test("custom headers echoed")
        func customHeaders() async throws {
            let headers: HTTPHeaders = ["X-Lariat-Test": "value 1", "Authorization": "Bearer token"]
            let echo = try await session.request(Endpoint.headers.url, headers: headers).serializingDecodable(Echo.self).value
            #expect(echo.headers["X-Lariat-Test"] == "value 1")
            #expect(echo.headers["Authorization"] == "Bearer token")
        }

        @Test("/status/418 with validate() -> unacceptableStatusCode(418)")
        func teapot() async throws {
            let response = await session.request(Endpoint.status(418).url).validate().serializingData().response
            #expect(response.response?.statusCode == 418)
            guard case .failure(.responseValidationFailed(reason: .unacceptableStatusCode(let code))) = response.result else {
                Issue.record("expected unacceptableStatusCode, got \(response.result)")
                return
            }
            #expect(code == 418)
        }

        @Test("/redirect/1 is followed to /get; with .doNotFollow it is the 302")
        func redirect() async throws {
            let followed = await session.request(Endpoint.redirect(1).url).serializingData().response
            #expect(followed.response?.statusCode == 200)
            #expect(followed.response?.url?.path == "/get")
            let response = await session.request(Endpoint.redirect(1).url).redirect(using: .doNotFollow).serializingData().response
            #expect(response.response?.statusCode == 302)
            #expect(response.response?.headers["Location"]?.hasSuffix("/get") == true)
        }

        @Test("/bytes/100000 delivers exactly 100000 bytes")
        func bytes() async throws {
            let data = try await session.request(Endpoint.bytes(100_000).url).serializingData().value
            #expect(data.count == 100_000)
        }

        @Test("/stream-bytes (chunked, httpbin caps it at 100 KiB) delivers every byte")
        func chunkedBytes() async throws {
            let response = await session.request(Endpoint.streamBytes(100_000, chunk: 1_000).url).serializingData().response
            #expect(response.response?.headers["Transfer-Encoding"]?.lowercased() == "chunked")
            #expect(response.value?.count == 100_000)
        }

        @Test("POST of a 2 MB body (larger than the socket buffer) is echoed whole")
        func largeUpload() async throws {
            let body = String(repeating: "lariat-", count: 300_000)
            var request = try URLRequest(url: Endpoint.post.url, method: .post, headers: [.contentType("text/plain")])
            request.httpBody = Data(body.utf8)
            let echo = try await session.request(request).serializingDecodable(Echo.self).value
            #expect(echo.data?.count == body.utf8.count)
            #expect(echo.data == body)
        }

        @Test("/stream/5 delivers five JSON lines")
        func stream() async throws {
            let text = try await session.request(Endpoint.stream(5).url).serializingString().value
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 5)
            #expect(lines.allSatisfy { $0.hasPrefix("{") })
        }

        @Test("/delay/3 with timeoutInterval 1 -> sessionTaskFailed(URLError.timedOut)")
        func timeout() async throws {
            var request = try URLRequest(url: Endpoint.delay(3).url, method: .get)
            request.timeoutInterval = 1
            let start = ContinuousClock.now
            let response = await session.request(request).serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .timedOut)
            #expect(milliseconds(since: start) < 2_500)
        }

        @Test("HEAD: status 200, empty body")
        func head() async throws {
            let response = await session.request(Endpoint.get.url, method: .head).serializingData().response
            #expect(response.response?.statusCode == 200)
            #expect(response.value == Data())
        }

        @Test("/status/204 -> empty Data")
        func noContent() async throws {
            let response = await session.request(Endpoint.status(204).url).serializingData().response
            #expect(response.response?.statusCode == 204)
            #expect(response.value == Data())
        }

        @Test("responseDecodable of /get (completion handler)")
        func decodable() async throws {
            let result = await withCheckedContinuation { continuation in
                session.request(Endpoint.get.url).validate().responseDecodable(of: Echo.self) { response in
                    continuation.resume(returning: response.result)
                }
            }
            let echo = try result.get()
            #expect(echo.url == Endpoint.get.url)
            #expect(echo.headers["Host"] != nil)
        }

        @Test("50 sequential requests share one connection")
        func connectionReuse() async throws {
            for index in 0..<50 {
                let response = await session.request(Endpoint.get.url, parameters: ["i": "\(index)"]).serializingData().response
                #expect(response.response?.statusCode == 200)
                let reused = response.metrics?.transactionMetrics.first?.isReusedConnection
                #expect(reused == (index > 0), "request \(index): isReusedConnection \(String(describing: reused))")
            }
        }
    }
}
