import Testing
@testable import Client

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("lookup ignores case", arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func caseInsensitiveLookup(name: String) {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers[name] == "application/json")
        #expect(headers.value(for: name) == "application/json")
    }

    @Test("a name that only shares a prefix does not match")
    func noPrefixMatch() {
        let headers: HTTPHeaders = ["Content-Type": "a"]
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Types"] == nil)
    }

    @Test("order is kept as added")
    func orderKept() {
        var headers = HTTPHeaders()
        headers.add(name: "Z", value: "1")
        headers.add(name: "A", value: "2")
        headers.add(name: "M", value: "3")
        #expect(headers.map(\.name) == ["Z", "A", "M"])
    }

    @Test("add keeps duplicates; values(for:) sees all, value(for:) the first")
    func duplicates() {
        var headers = HTTPHeaders()
        headers.add(name: "Cookie", value: "a=1")
        headers.add(.init(name: "cookie", value: "b=2"))
        #expect(headers.count == 2)
        #expect(headers.values(for: "COOKIE") == ["a=1", "b=2"])
        #expect(headers.value(for: "Cookie") == "a=1")
    }

    @Test("update replaces every field of that name at the first one's position")
    func updateCollapses() {
        var headers: HTTPHeaders = ["A": "1", "X": "old1", "B": "2", "x": "old2"]
        headers.update(name: "X", value: "new")
        #expect(headers.map(\.description) == ["A: 1", "X: new", "B: 2"])
        headers.update(.accept("text/plain"))
        #expect(headers.last == .accept("text/plain"))
    }

    @Test("remove deletes every field of that name")
    func removeAll() {
        var headers: HTTPHeaders = ["A": "1", "a": "2", "B": "3"]
        headers.remove(name: "A")
        #expect(headers.map(\.name) == ["B"])
        headers.remove(name: "missing")
        #expect(headers.count == 1)
    }

    @Test("subscript set updates, nil removes")
    func subscriptSet() {
        var headers: HTTPHeaders = ["A": "1", "a": "2"]
        headers["A"] = "3"
        #expect(headers.values(for: "a") == ["3"])
        headers["a"] = nil
        #expect(headers.isEmpty)
    }

    @Test("sorted is by lower-cased name and stable for equal names")
    func sortedStable() {
        let headers: HTTPHeaders = ["b": "1", "A": "2", "B": "3", "a": "4"]
        #expect(headers.sorted().map(\.description) == ["A: 2", "a: 4", "b: 1", "B: 3"])
        var copy = headers
        copy.sort()
        #expect(copy == headers.sorted())
    }

    @Test("dictionary: last value wins across case variants")
    func dictionaryLastWins() {
        let headers: HTTPHeaders = ["X-A": "1", "x-a": "2", "B": "3"]
        #expect(headers.dictionary == ["x-a": "2", "B": "3"])
    }

    @Test("init from array and dictionary collapse duplicates")
    func initializers() {
        let fromArray = HTTPHeaders([.init(name: "A", value: "1"), .init(name: "a", value: "2")])
        #expect(fromArray.map(\.description) == ["a: 2"])
        let fromDictionary = HTTPHeaders(["b": "2", "a": "1"])
        #expect(fromDictionary.map(\.name) == ["a", "b"])
    }

    @Test("array literal keeps order and duplicates")
    func arrayLiteral() {
        let headers: HTTPHeaders = [.accept("a"), .accept("b")]
        #expect(headers.values(for: "Accept") == ["a", "b"])
        #expect(headers.description == "Accept: a\nAccept: b")
    }

    @Test("factories", arguments: [
        (HTTPHeader.accept("x"), "Accept", "x"),
        (.acceptCharset("utf-8"), "Accept-Charset", "utf-8"),
        (.acceptLanguage("en"), "Accept-Language", "en"),
        (.acceptEncoding("gzip"), "Accept-Encoding", "gzip"),
        (.authorization(username: "Aladdin", password: "open sesame"), "Authorization", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        (.authorization(bearerToken: "tok"), "Authorization", "Bearer tok"),
        (.authorization("Custom x"), "Authorization", "Custom x"),
        (.contentDisposition("inline"), "Content-Disposition", "inline"),
        (.contentEncoding("br"), "Content-Encoding", "br"),
        (.contentType("text/plain"), "Content-Type", "text/plain"),
        (.userAgent("ua"), "User-Agent", "ua"),
        (.websocketProtocol("chat"), "Sec-WebSocket-Protocol", "chat"),
    ])
    func factories(header: HTTPHeader, name: String, value: String) {
        #expect(header.name == name)
        #expect(header.value == value)
    }

    @Test("defaults: identity encoding, Lariat user agent, quality-ranked languages")
    func defaults() {
        #expect(HTTPHeader.defaultAcceptEncoding.value == "identity")
        #expect(HTTPHeader.defaultUserAgent.value == "Lariat/0.1 (Linux; Swift)")
        #expect(HTTPHeader.defaultAcceptLanguage.value.hasSuffix(";q=1.0") || HTTPHeader.defaultAcceptLanguage.value.contains(";q=1.0,"))
        #expect(HTTPHeaders.default.map(\.name) == ["Accept-Encoding", "Accept-Language", "User-Agent"])
    }

    @Test("quality encoding steps down by 0.1 and floors at 0.1")
    func qualityEncoding() {
        #expect(["en", "fr", "de"].qualityEncoded() == "en;q=1.0, fr;q=0.9, de;q=0.8")
        let many = (0..<12).map { "l\($0)" }.qualityEncoded()
        #expect(many.hasSuffix("l10;q=0.1, l11;q=0.1"))
    }

    @Test("HTTPMethod raw values", arguments: [
        (HTTPMethod.connect, "CONNECT"), (.delete, "DELETE"), (.get, "GET"), (.head, "HEAD"), (.options, "OPTIONS"),
        (.patch, "PATCH"), (.post, "POST"), (.put, "PUT"), (.query, "QUERY"), (.trace, "TRACE"),
    ])
    func methods(method: HTTPMethod, raw: String) {
        #expect(method.rawValue == raw)
        #expect(HTTPMethod(rawValue: raw) == method)
        #expect(HTTPMethod(rawValue: raw.lowercased()) != method)
    }
}
