#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
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

    @Test("add replaces a field of the same name in any case, in place, with the new spelling")
    func addReplacesInPlace() {
        var headers = HTTPHeaders()
        headers.add(name: "Cookie", value: "a=1")
        headers.add(name: "Accept", value: "*/*")
        headers.add(.init(name: "cookie", value: "b=2"))
        #expect(headers.map(\.description) == ["cookie: b=2", "Accept: */*"])
        headers.add(name: "ACCEPT", value: "text/plain")
        #expect(headers.map(\.description) == ["cookie: b=2", "ACCEPT: text/plain"])
    }

    @Test("update replaces in place, or appends a new name")
    func updateInPlace() {
        var headers: HTTPHeaders = ["A": "1", "X": "old", "B": "2"]
        headers.update(name: "x", value: "new")
        #expect(headers.map(\.description) == ["A: 1", "x: new", "B: 2"])
        headers.update(.accept("text/plain"))
        #expect(headers.last == .accept("text/plain"))
        #expect(headers.count == 4)
    }

    @Test("response heads keep repeated fields; values(for:) sees all, value(for:) the first")
    func responseDuplicates() {
        var headers = HTTPHeaders()
        headers.appendField(name: "Set-Cookie", value: "a=1")
        headers.appendField(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.value(for: "Set-Cookie") == "a=1")
        headers.update(name: "Set-Cookie", value: "c=3")
        #expect(headers.map(\.description) == ["Set-Cookie: c=3"])
    }

    @Test("remove matches any case and ignores a missing name")
    func remove() {
        var headers: HTTPHeaders = ["A": "1", "B": "3"]
        headers.remove(name: "a")
        #expect(headers.map(\.name) == ["B"])
        headers.remove(name: "missing")
        #expect(headers.count == 1)
    }

    @Test("subscript: get any case, set updates in place, nil removes")
    func subscriptSet() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers["a"] = "3"
        #expect(headers.map(\.description) == ["a: 3", "B: 2"])
        #expect(headers["A"] == "3")
        headers["A"] = nil
        #expect(headers.map(\.name) == ["B"])
    }

    @Test("sorted() and sort() order by lower-cased name")
    func sorted() {
        let headers: HTTPHeaders = ["b": "1", "C": "2", "A": "3"]
        #expect(headers.sorted().map(\.description) == ["A: 3", "b: 1", "C: 2"])
        #expect(headers.map(\.name) == ["b", "C", "A"])
        var copy = headers
        copy.sort()
        #expect(copy == headers.sorted())
    }

    @Test("dictionary keys names as written, one per name")
    func dictionary() {
        let headers: HTTPHeaders = ["X-A": "1", "x-a": "2", "B": "3"]
        #expect(headers.dictionary == ["x-a": "2", "B": "3"])
    }

    @Test("init from array and dictionary collapse duplicates")
    func initializers() {
        let fromArray = HTTPHeaders([.init(name: "A", value: "1"), .init(name: "B", value: "x"), .init(name: "a", value: "2")])
        #expect(fromArray.map(\.description) == ["a: 2", "B: x"])
        let fromDictionary = HTTPHeaders(["b": "2", "a": "1"])
        #expect(fromDictionary.map(\.name) == ["a", "b"])
    }

    @Test("literals collapse a repeated name at its first position, last value wins")
    func literals() {
        let array: HTTPHeaders = [.accept("a"), .userAgent("u"), .init(name: "accept", value: "b")]
        #expect(array.map(\.description) == ["accept: b", "User-Agent: u"])
        let dictionary: HTTPHeaders = ["Cookie": "a=1", "X": "y", "cookie": "b=2"]
        #expect(dictionary.map(\.description) == ["cookie: b=2", "X: y"])
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

    @Test("defaults: the codings Lariat decodes, Lariat user agent, quality-ranked languages")
    func defaults() {
        #expect(HTTPHeader.defaultAcceptEncoding.value == "gzip;q=1.0, deflate;q=0.9")
        // Alamofire's layout: program/version (bundle; build:…; system) Alamofire/x.y.z, then Lariat's token.
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let system = "Linux \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        let agent = HTTPHeader.defaultUserAgent.value
        #expect(agent.hasSuffix("; \(system)) Alamofire/5.12.0 Lariat/0.1"), "\(agent)")
        #expect(agent.contains(" (") && agent.contains("; build:"), "\(agent)")
        #expect(agent.hasPrefix(ProcessInfo.processInfo.processName + "/") || agent.contains("/"), "\(agent)")
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
