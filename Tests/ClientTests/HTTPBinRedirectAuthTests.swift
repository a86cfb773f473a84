// Redirects and authentication challenges against httpbin (LARIAT_HTTPBIN; see scripts/test.sh):
// /redirect/n, /relative-redirect/n, /absolute-redirect/n, /redirect-to with 307 and a POST
// body, /basic-auth, /digest-auth with MD5 and SHA-256, and a wrong password followed by a
// request that must still work.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let httpbin: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

extension ClientIntegrationTests {
    @Suite("Redirects and challenges (httpbin)", .enabled(if: httpbin != nil, "LARIAT_HTTPBIN is not set: start httpbin with scripts/httpbin.sh start"))
    struct HTTPBinRedirectAuthTests {
        let session = Session()
        var base: String { httpbin ?? "" }

        /// `url` as a query value: `:` and `/` percent-encoded (no Foundation-only API).
        func queryEncoded(_ url: String) -> String {
            url.map { $0 == ":" ? "%3A" : $0 == "/" ? "%2F" : String($0) }.joined()
        }

        /// httpbin's /get echo: the URL it was asked for.
        struct Echo: Decodable, Sendable {
            var url: String
            var form: [String: String]?
        }

        @Test("redirect kinds end at /get", arguments: ["/redirect/3", "/relative-redirect/3", "/absolute-redirect/3"])
        func chains(path: String) async throws {
            let response = await session.request(base + path).validate().serializingDecodable(Echo.self).response
            let echo = try response.result.get()
            #expect(echo.url.hasSuffix("/get"))
            // As Alamofire: `request` is the request made; the last hop's is its transaction's.
            #expect(response.request?.url?.path == path)
            #expect(response.response?.url?.path == "/get")
            #expect(response.metrics?.transactionMetrics.last?.request.url?.path == "/get")
            #expect(response.response?.statusCode == 200)
        }

        @Test("/redirect/20 exceeds the limit of 16")
        func tooMany() async {
            let response = await session.request(base + "/redirect/20").serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .httpTooManyRedirects)
        }

        @Test("/redirect-to with 307 keeps POST and its body")
        func temporaryRedirectPost() async throws {
            let target = queryEncoded(base + "/post")
            let response = await session.request(base + "/redirect-to?url=\(target)&status_code=307", method: .post, parameters: ["k": "v"])
                .validate().serializingDecodable(Echo.self).response
            let echo = try response.result.get()
            #expect(echo.form == ["k": "v"])
            #expect(response.request?.httpMethod == "POST")
        }

        @Test("/redirect-to with 302 turns POST into GET")
        func foundPost() async throws {
            let target = queryEncoded(base + "/get")
            let response = await session.request(base + "/redirect-to?url=\(target)&status_code=302", method: .post, parameters: ["k": "v"])
                .validate().serializingDecodable(Echo.self).response
            #expect(try response.result.get().url.hasSuffix("/get"))
            #expect(response.request?.httpMethod == "POST", "the request made")
            #expect(response.metrics?.transactionMetrics.last?.request.httpMethod == "GET")
        }

        @Test("Basic and Digest challenges are answered", arguments: ["/basic-auth/u/p", "/digest-auth/auth/u/p/MD5", "/digest-auth/auth/u/p/SHA-256"])
        func challenge(path: String) async throws {
            let response = await session.request(base + path).authenticate(username: "u", password: "p").validate().serializingData().response
            #expect(response.response?.statusCode == 200, "\(response.result)")
        }

        @Test("a wrong password delivers the 401; the next request on the session works",
              arguments: ["/basic-auth/u/p", "/digest-auth/auth/u/p/MD5", "/digest-auth/auth/u/p/SHA-256"])
        func wrongPassword(path: String) async throws {
            let wrong = await session.request(base + path).authenticate(username: "u", password: "wrong").validate().serializingData().response
            #expect(wrong.response?.statusCode == 401)
            #expect(wrong.error?.responseCode == 401, "a validation failure, never a cancellation: \(wrong.result)")
            let next = await session.request(base + path).authenticate(username: "u", password: "p").validate().serializingData().response
            #expect(next.response?.statusCode == 200, "\(next.result)")
        }
    }
}
