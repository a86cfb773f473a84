#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private let url = URL(string: "https://example.com/v")!

private func response(_ status: Int = 200, contentType: String? = nil) -> HTTPURLResponse {
    HTTPURLResponse(url: url, statusCode: status, headers: contentType.map { [.contentType($0)] } ?? [:])
}

private func request(accept: String?) -> URLRequest {
    var request = URLRequest(url: url)
    request.setValue(accept, forHTTPHeaderField: "Accept")
    return request
}

@Suite("Validation")
struct ValidationTests {
    @Test("status codes", arguments: [(200, true), (204, true), (299, true), (199, false), (300, false), (404, false), (500, false)])
    func statusCodes(code: Int, passes: Bool) {
        let result = ResponseValidation.validate(statusCode: ResponseValidation.defaultAcceptableStatusCodes, response: response(code))
        switch result {
        case .success: #expect(passes)
        case let .failure(error):
            #expect(!passes)
            #expect(error.responseCode == code)
        }
    }

    @Test("content type matching", arguments: [
        (["application/json"], "application/json", true),
        (["application/json"], "application/json; charset=utf-8", true),
        (["Application/JSON"], "application/json", true),
        (["application/*"], "application/xml", true),
        (["*/json"], "application/json", true),
        (["*/*"], "image/png", true),
        (["text/html", "application/json"], "application/json", true),
        (["application/json"], "text/html", false),
        (["text/*"], "application/json", false),
        (["application/xml"], "application/json", false),
    ])
    func contentTypes(acceptable: [String], contentType: String, passes: Bool) {
        let result = ResponseValidation.validate(contentType: acceptable, response: response(contentType: contentType), data: Data([1]))
        switch result {
        case .success: #expect(passes)
        case let .failure(error):
            #expect(!passes)
            guard case let .responseValidationFailed(.unacceptableContentType(types, responseType)) = error else {
                Issue.record("wrong reason \(error)")
                return
            }
            #expect(types == acceptable.sorted())
            #expect(responseType == MIMEType(contentType)?.essence)
        }
    }

    @Test("missing Content-Type passes only with a wildcard")
    func missingContentType() {
        #expect(ResponseValidation.validate(contentType: ["*/*"], response: response(), data: Data([1])).isSuccess)
        let result = ResponseValidation.validate(contentType: ["b/b", "a/a"], response: response(), data: Data([1]))
        guard case let .failure(.responseValidationFailed(.missingContentType(types))) = result else {
            Issue.record("unexpected \(result)")
            return
        }
        #expect(types == ["a/a", "b/b"])
    }

    @Test("empty bodies skip content-type validation")
    func emptyBody() {
        #expect(ResponseValidation.validate(contentType: ["a/b"], response: response(contentType: "c/d"), data: nil).isSuccess)
        #expect(ResponseValidation.validate(contentType: ["a/b"], response: response(contentType: "c/d"), data: Data()).isSuccess)
    }

    @Test("acceptable types come from the Accept field", arguments: [
        (nil, ["*/*"]),
        ("application/json", ["application/json"]),
        ("text/html, application/json;q=0.9 ,*/*;q=0.1", ["text/html", "application/json;q=0.9", "*/*;q=0.1"]),
    ] as [(String?, [String])])
    func acceptField(accept: String?, expected: [String]) {
        #expect(ResponseValidation.acceptableContentTypes(for: request(accept: accept)) == expected)
    }

    @Test("default validation: status first, then content type from Accept")
    func defaultValidation() {
        let jsonRequest = request(accept: "application/json")
        #expect(ResponseValidation.validate(request: jsonRequest, response: response(contentType: "application/json"), data: Data([1])).isSuccess)
        let wrongType = ResponseValidation.validate(request: jsonRequest, response: response(contentType: "text/html"), data: Data([1]))
        #expect(wrongType.failure?.responseContentType == "text/html")
        let wrongStatus = ResponseValidation.validate(request: jsonRequest, response: response(500, contentType: "text/html"), data: Data([1]))
        #expect(wrongStatus.failure?.responseCode == 500)
        #expect(ResponseValidation.validate(request: nil, response: response(contentType: "x/y"), data: Data([1])).isSuccess)
    }

    @Test("MIME type parsing", arguments: [
        ("text/html", "text", "html", nil),
        ("  Application/JSON ; charset=\"UTF-8\" ", "application", "json", "UTF-8"),
        ("multipart/form-data; boundary=\"a;b\"; charset=x", "multipart", "form-data", "x"),
    ] as [(String, String, String, String?)])
    func mimeParsing(input: String, type: String, subtype: String, charset: String?) {
        let mime = MIMEType(input)
        #expect(mime?.type == type)
        #expect(mime?.subtype == subtype)
        #expect(mime?.parameter("charset") == charset)
    }

    @Test("malformed MIME types are rejected", arguments: ["", "text", "text/", "/html", "a/b/c", ";charset=x"])
    func mimeMalformed(input: String) {
        #expect(MIMEType(input) == nil)
    }
}
