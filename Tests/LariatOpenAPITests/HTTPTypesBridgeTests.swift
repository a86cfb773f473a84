// The swift-http-types bridge, as tables without sockets: each row converts one way and back
// and must come back equal (order, repeated names, spelling of names, reason phrases), and
// what one side cannot express is a typed error.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import HTTPTypes
import LariatOpenAPI
@testable import Client

@Suite("swift-http-types bridge")
struct HTTPTypesBridgeTests {
    /// Header lists (name, value), in order, as both sides should hold them.
    static let fieldTables: [[(String, String)]] = [
        // empty
        [],
        // one field, name spelling kept
        [("X-Custom-Header", "a value")],
        // order kept, not sorted
        [("Zebra", "1"), ("Accept", "application/json"), ("content-type", "text/plain")],
        // repeated names stay separate fields, in order
        [("Set-Cookie", "a=1"), ("Vary", "Accept"), ("Set-Cookie", "b=2; Path=/")],
        // empty value, values with commas, quotes and tabs inside
        [("X-Empty", ""), ("Cache-Control", "no-cache, no-store"), ("ETag", "\"v1\""), ("X-Tab", "a\tb")],
        // non-ASCII value bytes (UTF-8) survive
        [("X-Name", "café")],
    ]

    @Test("HTTPHeaders -> HTTPFields -> HTTPHeaders is the identity", arguments: fieldTables.indices)
    func headersRoundTrip(index: Int) throws {
        let table = Self.fieldTables[index]
        var headers = HTTPHeaders()
        for (name, value) in table { headers.appendField(name: name, value: value) }
        let fields = try HTTPFields(headers)
        #expect(fields.map { [$0.name.rawName, $0.value] } == table.map { [$0.0, $0.1] })
        #expect(HTTPHeaders(fields) == headers)
        #expect(HTTPHeaders(fields).map { [$0.name, $0.value] } == table.map { [$0.0, $0.1] })
    }

    @Test("HTTPFields -> HTTPHeaders -> HTTPFields is the identity", arguments: fieldTables.indices)
    func fieldsRoundTrip(index: Int) throws {
        var fields = HTTPFields()
        for (name, value) in Self.fieldTables[index] { fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value)) }
        #expect(try HTTPFields(HTTPHeaders(fields)) == fields)
    }

    @Test("a name that is not a token is a typed error", arguments: ["Bad Name", "", "X:Y", "Ünï"])
    func invalidName(name: String) {
        var headers = HTTPHeaders()
        headers.appendField(name: name, value: "v")
        #expect(throws: HTTPTypesConversionError.invalidFieldName(name)) { try HTTPFields(headers) }
    }

    /// (method, URL, header fields, body)
    static let requests: [(String, String, [(String, String)], Data?)] = [
        ("GET", "http://example.com/", [], nil),
        ("POST", "https://example.com:8443/a/b?x=1&y=%20z", [("Content-Type", "application/json")], Data("{}".utf8)),
        ("DELETE", "http://127.0.0.1:8080/items/7", [("Authorization", "Bearer t"), ("X-A", "1"), ("X-A", "2")], nil),
        ("PATCH", "http://[::1]:9000/p%2Fq?", [], Data([0, 1, 2])),
        ("CUSTOM-VERB", "http://example.com/path;param#fragment", [], nil),
    ]

    @Test("URLRequest -> HTTPRequest -> URLRequest keeps method, URL, fields and body", arguments: requests.indices)
    func requestRoundTrip(index: Int) throws {
        let (method, urlString, table, body) = Self.requests[index]
        var urlRequest = URLRequest(url: try #require(URL(string: urlString)))
        urlRequest.httpMethod = method
        var headers = HTTPHeaders()
        for (name, value) in table { headers.appendField(name: name, value: value) }
        urlRequest.headers = headers
        urlRequest.httpBody = body

        let request = try HTTPRequest(urlRequest)
        #expect(request.method.rawValue == method)
        #expect(request.headerFields.map { [$0.name.rawName, $0.value] } == table.map { [$0.0, $0.1] })
        let back = try URLRequest(request, body: body)
        #expect(back.httpMethod == method)
        // HTTPRequest carries no fragment (it is never sent); everything else is kept.
        #expect(back.url?.absoluteString == urlString.split(separator: "#", omittingEmptySubsequences: false).first.map(String.init))
        #expect(back.headers == headers)
        #expect(back.httpBody == body)
        #expect(try HTTPRequest(back) == request)
    }

    @Test("requests either side cannot express are typed errors")
    func invalidRequests() throws {
        var noURL = URLRequest(url: try #require(URL(string: "http://example.com/")))
        noURL.url = nil
        #expect(throws: HTTPTypesConversionError.missingURL) { try HTTPRequest(noURL) }
        var badMethod = URLRequest(url: try #require(URL(string: "http://example.com/")))
        badMethod.httpMethod = "GET NOW"
        #expect(throws: HTTPTypesConversionError.invalidMethod("GET NOW")) { try HTTPRequest(badMethod) }
        let relative = URLRequest(url: try #require(URL(string: "relative/path")))
        #expect(throws: HTTPTypesConversionError.invalidURL("relative/path")) { try HTTPRequest(relative) }
        let asterisk = HTTPRequest(method: .options, scheme: nil, authority: nil, path: "*")
        #expect(throws: HTTPTypesConversionError.missingURL) { try URLRequest(asterisk) }
    }

    /// (status, reason phrase, header fields)
    static let responses: [(Int, String, [(String, String)])] = [
        (200, "OK", [("Content-Length", "0")]),
        (404, "Not Found", [("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]),
        (418, "", []),
        (599, "Custom Reason", [("X-Trace", "abc")]),
        (103, "Early Hints", [("Link", "</a.css>; rel=preload")]),
    ]

    @Test("HTTPURLResponse -> HTTPResponse -> HTTPURLResponse keeps status, reason phrase and fields", arguments: responses.indices)
    func responseRoundTrip(index: Int) throws {
        let (status, reason, table) = Self.responses[index]
        var headers = HTTPHeaders()
        for (name, value) in table { headers.appendField(name: name, value: value) }
        let url = try #require(URL(string: "http://example.com/r"))
        let original = HTTPURLResponse(url: url, statusCode: status, headers: headers, reasonPhrase: reason)
        let response = try HTTPResponse(original)
        #expect(response.status.code == status)
        #expect(response.status.reasonPhrase == reason)
        #expect(response.headerFields.map { [$0.name.rawName, $0.value] } == table.map { [$0.0, $0.1] })
        let back = HTTPURLResponse(response, url: url)
        #expect(back.statusCode == status)
        #expect(back.reasonPhrase == reason)
        #expect(back.headers == headers)
        #expect(try HTTPResponse(back) == response)
    }

    @Test("a status code swift-http-types cannot hold is a typed error, not a trap")
    func invalidStatus() throws {
        let url = try #require(URL(string: "http://example.com/"))
        let response = HTTPURLResponse(url: url, statusCode: 1000, headers: HTTPHeaders())
        #expect(throws: HTTPTypesConversionError.invalidStatusCode(1000)) { try HTTPResponse(response) }
    }
}
