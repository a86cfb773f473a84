#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

@Suite("URLRequest")
struct URLRequestTests {
    let url = URL(string: "https://example.com/path?x=1")!

    @Test("defaults match Foundation's")
    func defaults() {
        let request = URLRequest(url: url)
        #expect(request.url == url)
        #expect(request.httpMethod == "GET")
        #expect(request.method == .get)
        #expect(request.allHTTPHeaderFields == nil)
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream == nil)
        #expect(request.timeoutInterval == 60)
        #expect(request.cachePolicy == .useProtocolCachePolicy)
        #expect(request.httpShouldHandleCookies)
        #expect(!request.httpShouldUsePipelining)
    }

    @Test("setting httpMethod to nil restores GET")
    func methodNil() {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        #expect(request.method == .post)
        request.httpMethod = nil
        #expect(request.httpMethod == "GET")
        request.method = .patch
        #expect(request.httpMethod == "PATCH")
    }

    @Test("header accessors are case-insensitive; setValue replaces, nil removes")
    func headerAccessors() {
        var request = URLRequest(url: url)
        request.setValue("a", forHTTPHeaderField: "X-Thing")
        #expect(request.value(forHTTPHeaderField: "x-thing") == "a")
        request.setValue("b", forHTTPHeaderField: "X-THING")
        #expect(request.headers.values(for: "x-thing") == ["b"])
        request.setValue(nil, forHTTPHeaderField: "x-thing")
        #expect(request.allHTTPHeaderFields == nil)
    }

    @Test("addValue comma-joins like Foundation")
    func addValue() {
        var request = URLRequest(url: url)
        request.addValue("a", forHTTPHeaderField: "Accept")
        request.addValue("b", forHTTPHeaderField: "accept")
        #expect(request.value(forHTTPHeaderField: "Accept") == "a,b")
        #expect(request.headers.count == 1)
    }

    @Test("headers keep order, one field per name as in Alamofire; allHTTPHeaderFields set replaces all sorted")
    func headersRoundTrip() {
        var request = URLRequest(url: url)
        request.headers = [.accept("1"), .userAgent("x"), .accept("2")]
        #expect(request.headers.map(\.value) == ["2", "x"])
        request.allHTTPHeaderFields = ["b": "2", "a": "1"]
        #expect(request.headers.map(\.name) == ["a", "b"])
    }

    @Test("httpBody and httpBodyStream exclude each other")
    func bodyExclusive() {
        var request = URLRequest(url: url)
        request.httpBody = Data("hi".utf8)
        let stream = InputStream(data: Data("s".utf8))
        request.httpBodyStream = stream
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream === stream)
        request.httpBody = Data("x".utf8)
        #expect(request.httpBodyStream == nil)
        #expect(request.httpBody == Data("x".utf8))
    }

    @Test("equality covers method, headers, body; streams compare by identity")
    func equality() {
        var a = URLRequest(url: url)
        var b = URLRequest(url: url)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        a.method = .post
        #expect(a != b)
        b.method = .post
        a.headers = [.accept("x")]
        #expect(a != b)
        b.headers = [.accept("x")]
        let stream = InputStream(data: Data())
        a.httpBodyStream = stream
        b.httpBodyStream = stream
        #expect(a == b)
        b.httpBodyStream = InputStream(data: Data())
        #expect(a != b)
    }

    @Test("Alamofire initializer sets method and headers in order")
    func alamofireInit() throws {
        let request = try URLRequest(url: "https://example.com", method: .put, headers: [.accept("a"), .contentType("b")])
        #expect(request.httpMethod == "PUT")
        #expect(request.headers.map(\.name) == ["Accept", "Content-Type"])
    }

    @Test("validate rejects a GET with a body")
    func validateGETBody() throws {
        var request = URLRequest(url: url)
        request.httpBody = Data([1])
        #expect {
            try request.validate()
        } throws: { error in
            guard case .urlRequestValidationFailed(.bodyDataInGETRequest(let data)) = error as? AFError else { return false }
            return data == Data([1])
        }
        request.method = .post
        try request.validate()
    }

    @Test("URLConvertible", arguments: ["https://example.com/a", "http://127.0.0.1:8080/x?y=z"])
    func urlConvertible(string: String) throws {
        #expect(try string.asURL().absoluteString == string)
        #expect(try URL(string: string)!.asURL().absoluteString == string)
        #expect(try URLComponents(string: string)!.asURL().absoluteString == string)
    }

    @Test("an invalid URL string throws invalidURL carrying the input")
    func invalidURL() {
        #expect {
            try "http://exa mple.com/[".asURL()
        } throws: { error in
            (error as? AFError)?.urlConvertible as? String == "http://exa mple.com/["
        }
    }

    @Test("URLRequestConvertible.urlRequest")
    func requestConvertible() {
        let request = URLRequest(url: url)
        #expect(request.urlRequest == request)
    }

    @Test("cache policy raw values match Foundation", arguments: [
        (URLRequest.CachePolicy.useProtocolCachePolicy, UInt(0)), (.reloadIgnoringLocalCacheData, 1),
        (.returnCacheDataElseLoad, 2), (.returnCacheDataDontLoad, 3), (.reloadIgnoringLocalAndRemoteCacheData, 4),
        (.reloadRevalidatingCacheData, 5), (.reloadIgnoringCacheData, 1),
    ])
    func cachePolicies(policy: URLRequest.CachePolicy, raw: UInt) {
        #expect(policy.rawValue == raw)
    }
}
