#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private struct Params: Codable, Equatable, Sendable {
    let name: String
    let value: Int
}

private struct Unencodable: Encodable, Sendable {
    struct Failure: Error {}
    func encode(to encoder: any Encoder) throws { throw Failure() }
}

private func request(_ method: HTTPMethod, _ url: String = "https://example.com/p?a=1#frag") -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.method = method
    return request
}

@Suite("ParameterEncoder")
struct ParameterEncoderTests {
    @Test("JSON: body and Content-Type set")
    func jsonBody() throws {
        let encoded = try JSONParameterEncoder.sortedKeys.encode(Params(name: "n", value: 1), into: request(.post))
        #expect(encoded.httpBody == Data(#"{"name":"n","value":1}"#.utf8))
        #expect(encoded.headers["Content-Type"] == "application/json")
        #expect(try JSONDecoder().decode(Params.self, from: encoded.httpBody!) == Params(name: "n", value: 1))
    }

    @Test("JSON: an existing Content-Type is kept")
    func jsonKeepsContentType() throws {
        var base = request(.post)
        base.headers.add(.contentType("application/vnd.api+json"))
        let encoded = try JSONParameterEncoder.json.encode(Params(name: "n", value: 1), into: base)
        #expect(encoded.headers.values(for: "content-type") == ["application/vnd.api+json"])
    }

    @Test("JSON: nil parameters leave the request unchanged")
    func jsonNil() throws {
        let base = request(.post)
        #expect(try JSONParameterEncoder.default.encode(Params?.none, into: base) == base)
    }

    @Test("JSON: pretty printing is applied")
    func jsonPretty() throws {
        let encoded = try JSONParameterEncoder.prettyPrinted.encode(["k": 1], into: request(.post))
        #expect(String(decoding: encoded.httpBody!, as: UTF8.self).contains("\n"))
    }

    @Test("JSON: encoder errors become jsonEncodingFailed")
    func jsonFailure() {
        #expect {
            try JSONParameterEncoder.default.encode(Unencodable(), into: request(.post))
        } throws: { error in
            guard case .parameterEncodingFailed(.jsonEncodingFailed(let inner)) = error as? AFError else { return false }
            return inner is Unencodable.Failure
        }
    }

    @Test("form destinations", arguments: [
        (URLEncodedFormParameterEncoder.Destination.methodDependent, HTTPMethod.get, true),
        (.methodDependent, .head, true),
        (.methodDependent, .delete, true),
        (.methodDependent, .post, false),
        (.methodDependent, .put, false),
        (.queryString, .post, true),
        (.httpBody, .get, false),
    ])
    func formDestination(destination: URLEncodedFormParameterEncoder.Destination, method: HTTPMethod, inQuery: Bool) throws {
        let encoder = URLEncodedFormParameterEncoder(destination: destination)
        let encoded = try encoder.encode(Params(name: "a b", value: 2), into: request(method))
        if inQuery {
            #expect(encoded.url?.absoluteString == "https://example.com/p?a=1&name=a%20b&value=2#frag")
            #expect(encoded.httpBody == nil)
        } else {
            #expect(encoded.url?.absoluteString == "https://example.com/p?a=1#frag")
            #expect(encoded.httpBody == Data("name=a%20b&value=2".utf8))
            #expect(encoded.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
        }
    }

    @Test("query appending", arguments: [
        ("https://h/p", "https://h/p?x=1"),
        ("https://h/p?", "https://h/p?x=1"),
        ("https://h/p?a=b", "https://h/p?a=b&x=1"),
        ("https://h/p?a=b&", "https://h/p?a=b&x=1"),
        ("https://h/p#f", "https://h/p?x=1#f"),
        ("https://h/p?q#f", "https://h/p?q&x=1#f"),
    ])
    func queryAppending(base: String, expected: String) {
        #expect(URL(string: base)!.appendingPercentEncodedQuery("x=1")?.absoluteString == expected)
        #expect(URL(string: base)!.appendingPercentEncodedQuery("") == URL(string: base)!)
    }

    @Test("form: encoder errors become encoderFailed")
    func formFailure() {
        #expect {
            try URLEncodedFormParameterEncoder.urlEncodedForm.encode(["x": Unencodable()], into: request(.get))
        } throws: { error in
            guard case .parameterEncoderFailed(.encoderFailed(let inner)) = error as? AFError else { return false }
            return inner is Unencodable.Failure
        }
    }

    @Test("form: a top-level array fails with invalidRootObject")
    func formInvalidRoot() {
        #expect {
            try URLEncodedFormParameterEncoder.default.encode([1, 2], into: request(.get))
        } throws: { error in
            guard case .parameterEncoderFailed(.encoderFailed(let inner)) = error as? AFError,
                  case .invalidRootObject = inner as? URLEncodedFormEncoder.Error else { return false }
            return true
        }
    }

    @Test("form: a request without a URL fails with missingRequiredComponent(.url)")
    func formMissingURL() {
        var base = request(.get)
        base.url = nil
        #expect {
            try URLEncodedFormParameterEncoder.default.encode(["a": 1], into: base)
        } throws: { error in
            guard case .parameterEncoderFailed(.missingRequiredComponent(.url)) = error as? AFError else { return false }
            return true
        }
    }
}

@Suite("ParameterEncoding (legacy)")
struct ParameterEncodingTests {
    @Test("URLEncoding: nested values, sorted keys, optionals dropped")
    func urlEncodingQuery() throws {
        let parameters: Parameters = [
            "b": ["y": 2, "x": [1, true]],
            "a": "v w",
            "c": Optional<Int>.none as Any,
            "d": Optional(5) as Any,
        ]
        let encoded = try URLEncoding.default.encode(request(.get, "https://h/p"), with: parameters)
        #expect(encoded.url?.absoluteString == "https://h/p?a=v%20w&b%5Bx%5D%5B%5D=1&b%5Bx%5D%5B%5D=1&b%5By%5D=2&d=5")
    }

    @Test("URLEncoding options", arguments: [
        (URLEncoding(arrayEncoding: .noBrackets), "a=1&a=2&f=1"),
        (URLEncoding(arrayEncoding: .indexInBrackets, boolEncoding: .literal), "a%5B0%5D=1&a%5B1%5D=2&f=true"),
        (URLEncoding(arrayEncoding: .custom { "\($0)_\($1)" }), "a_0=1&a_1=2&f=1"),
    ])
    func urlEncodingOptions(encoding: URLEncoding, expected: String) throws {
        let encoded = try encoding.encode(request(.get, "https://h/"), with: ["a": [1, 2], "f": true])
        #expect(encoded.url?.query == expected)
    }

    @Test("URLEncoding writes whole floating-point numbers without a fraction, as Alamofire through NSNumber")
    func wholeDoubles() throws {
        // Failed before: "a=1.0&b=0.0&d=3.0&e=-4.0".
        let parameters: Parameters = ["a": 1.0, "b": 0.0, "c": 2.5, "d": Float(3), "e": -4.0, "f": Float(0.1), "g": 1e20, "h": true]
        let encoded = try URLEncoding.queryString.encode(request(.get, "https://h/"), with: parameters)
        #expect(encoded.url?.query == "a=1&b=0&c=2.5&d=3&e=-4&f=0.1&g=1e%2B20&h=1")
    }

    #if FullFoundation
    @Test("URLEncoding: NSNumber doubles are written like Swift doubles (1.0 as 1), on Linux too")
    func nsNumberDoubles() throws {
        // Failed before: corelibs' NSNumber(1.0).description is "1.0" (Apple's is "1").
        let parameters: Parameters = ["g": NSNumber(value: 1.0), "h": NSNumber(value: 0.0), "i": NSNumber(value: 1.5), "j": NSNumber(value: 2)]
        let encoded = try URLEncoding(boolEncoding: .literal).encode(request(.get, "https://h/"), with: parameters)
        #expect(encoded.url?.query == "g=1&h=0&i=1.5&j=2")
    }

    @Test("URLEncoding: NSNumber booleans from JSONSerialization follow BoolEncoding, other numbers do not")
    func nsNumberBools() throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(#"{"b":true,"n":1,"z":0}"#.utf8)) as! [String: Any]
        let encoded = try URLEncoding(boolEncoding: .literal).encode(request(.get, "https://h/"), with: parsed)
        #expect(encoded.url?.query == "b=true&n=1&z=0")
    }
    #endif

    @Test("URLEncoding: body destination sets Content-Type")
    func urlEncodingBody() throws {
        let encoded = try URLEncoding.httpBody.encode(request(.get, "https://h/"), with: ["k": "v"])
        #expect(encoded.httpBody == Data("k=v".utf8))
        #expect(encoded.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
        let post = try URLEncoding.default.encode(request(.post, "https://h/"), with: ["k": "v"])
        #expect(post.httpBody == Data("k=v".utf8))
        let query = try URLEncoding.queryString.encode(request(.post, "https://h/"), with: ["k": "v"])
        #expect(query.url?.query == "k=v")
    }

    @Test("URLEncoding: nil parameters leave the request unchanged")
    func urlEncodingNil() throws {
        let base = request(.get)
        #expect(try URLEncoding.default.encode(base, with: nil) == base)
    }

    @Test("URLEncoding.escape uses afURLQueryAllowed")
    func escape() {
        #expect(URLEncoding.default.escape("a b&c=d/e?f") == "a%20b%26c%3Dd/e?f")
    }

    @Test("JSONEncoding writes a JSON body")
    func jsonEncoding() throws {
        let parameters: Parameters = ["s": "x/y", "n": 1, "f": 1.5, "b": false, "a": [1, "two"], "o": ["k": NSNullish.value]]
        let encoded = try JSONEncoding.default.encode(request(.post), with: parameters)
        #expect(encoded.headers["Content-Type"] == "application/json")
        let decoded = try JSONDecoder().decode(JSONShape.self, from: encoded.httpBody!)
        #expect(decoded == JSONShape(s: "x/y", n: 1, f: 1.5, b: false, a: [.int(1), .string("two")], o: ["k": nil]))
    }

    @Test("JSONEncoding pretty prints and sorts on request")
    func jsonEncodingOptions() throws {
        let encoded = try JSONEncoding(options: [.prettyPrinted, .sortedKeys]).encode(request(.post), with: ["b": 1, "a": 2])
        #expect(String(decoding: encoded.httpBody!, as: UTF8.self) == "{\n  \"a\" : 2,\n  \"b\" : 1\n}")
    }

    @Test("JSONEncoding: a JSON array object")
    func jsonArray() throws {
        let encoded = try JSONEncoding.default.encode(request(.post), withJSONObject: [1, 2])
        #expect(encoded.httpBody == Data("[1,2]".utf8))
    }

    @Test("JSONEncoding rejects values JSON cannot hold")
    func jsonInvalid() {
        #expect {
            try JSONEncoding.default.encode(request(.post), with: ["d": Double.nan])
        } throws: { error in
            guard case .parameterEncodingFailed(.jsonEncodingFailed) = error as? AFError else { return false }
            return true
        }
    }
}

/// A JSON `null` inside `Parameters`: `NSNull` with Foundation, an empty optional without.
private enum NSNullish {
    static var value: Any {
        #if FullFoundation
        NSNull()
        #else
        Optional<Int>.none as Any
        #endif
    }
}

private enum JSONScalar: Decodable, Equatable {
    case int(Int), string(String)
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let int = try? container.decode(Int.self) { self = .int(int) } else { self = .string(try container.decode(String.self)) }
    }
}

private struct JSONShape: Decodable, Equatable {
    let s: String, n: Int, f: Double, b: Bool, a: [JSONScalar], o: [String: Int?]
}
