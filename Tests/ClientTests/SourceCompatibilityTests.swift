// Snippets in the style of code written against Alamofire 5. They must compile unchanged with
// `import Client`; running them checks they also behave.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Client

private struct Login: Encodable, Sendable {
    let email: String
    let password: String
}

private enum Router: URLRequestConvertible {
    case user(id: Int)

    func asURLRequest() throws -> URLRequest {
        let url = try "https://api.example.com".asURL()
        var request = URLRequest(url: url.appendingPathComponent("users/\(idValue)"))
        request.method = .get
        request.headers.add(.accept("application/json"))
        request.timeoutInterval = 10
        return try URLEncoding.default.encode(request, with: ["expand": true])
    }

    private var idValue: Int {
        switch self { case let .user(id): id }
    }
}

private func encodeWith(_ encoder: some ParameterEncoder, _ request: URLRequest) throws -> URLRequest {
    try encoder.encode(Login(email: "a@b.c", password: "p w"), into: request)
}

@Suite("Alamofire source compatibility")
struct SourceCompatibilityTests {
    @Test("configuration, headers and encoders read like Alamofire code")
    func configurationAndEncoders() throws {
        let configuration = URLSessionConfiguration.af.default
        configuration.timeoutIntervalForRequest = 10
        configuration.headers.add(.authorization(bearerToken: "t"))
        #expect(configuration.headers["Authorization"] == "Bearer t")

        let request = try URLRequest(url: "https://api.example.com/login", method: .post, headers: [.contentType("application/json")])
        let json = try encodeWith(.json, request)
        #expect(json.httpBody != nil)
        let form = try encodeWith(.urlEncodedForm(encoder: URLEncodedFormEncoder(spaceEncoding: .plusReplaced)), request)
        #expect(form.httpBody == Data("email=a%40b.c&password=p+w".utf8))

        let routed = try Router.user(id: 3).asURLRequest()
        #expect(routed.url?.absoluteString == "https://api.example.com/users/3?expand=1")
        #expect(Router.user(id: 3).urlRequest?.timeoutInterval == 10)
    }

    @Test("responses and errors are handled like Alamofire code")
    func responsesAndErrors() {
        let http = HTTPURLResponse(url: URL(string: "https://x/")!, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"])!
        let contentType = http.allHeaderFields["Content-Type"] as? String
        #expect(contentType == "text/plain")
        let response: AFDataResponse<String> = DataResponse(
            request: nil, response: http, data: nil, metrics: nil, serializationDuration: 0,
            result: .failure(.responseValidationFailed(reason: .unacceptableStatusCode(code: http.statusCode)))
        )
        switch response.result {
        case .success:
            Issue.record("expected failure")
        case let .failure(error):
            #expect(error.responseCode == 404)
            #expect(!error.localizedDescription.isEmpty)
            if let urlError = error.underlyingError as? URLError, urlError.code == .timedOut {
                Issue.record("not a timeout")
            }
        }
        let error: any Error = AFError.sessionTaskFailed(error: URLError(.notConnectedToInternet))
        if let afError = error.asAFError, case let .sessionTaskFailed(underlying) = afError {
            #expect((underlying as? URLError)?.code == .notConnectedToInternet)
        } else {
            Issue.record("expected sessionTaskFailed")
        }
    }
}

// Classes Alamofire declares `open` are subclassed in user code; these must compile.

/// A session subclass, as apps make to add shared defaults.
private final class AppSession: Session, @unchecked Sendable {}

/// A JSON encoder that stamps every body, overriding `encode(_:into:)`.
private final class StampingEncoder: JSONParameterEncoder, @unchecked Sendable {
    override func encode<Parameters: Encodable & Sendable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        var request = try super.encode(parameters, into: request)
        request.headers.add(name: "X-Stamp", value: "1")
        return request
    }
}

/// A form encoder subclass.
private final class FormEncoder: URLEncodedFormParameterEncoder, @unchecked Sendable {}

/// A multipart form subclass.
private final class Form: MultipartFormData, @unchecked Sendable {}

@Suite("Open classes")
struct OpenClassTests {
    @Test("subclasses of Alamofire's open classes work where the base class is expected")
    func subclasses() throws {
        let session: Session = AppSession()
        #expect(session.startRequestsImmediately)
        let request = try StampingEncoder().encode(["a": 1], into: URLRequest(url: URL(string: "http://example.com/")!))
        #expect(request.headers["x-stamp"] == "1")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(FormEncoder().destination == .methodDependent)
        #expect(Form().boundary.isEmpty == false)
    }
}
