// A response's headers are kept as the received field section (a `FieldBlock`) and decoded when
// read. These tests hold that representation to the one it replaced: the same head recorded as
// built fields, one `appendField` per received field, must read identically through every
// public member, and compare and hash equal to it.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Wire
@testable import Client

@Suite("HTTPHeaders of a received head")
struct ReceivedHTTPHeadersTests {
    /// A head with repeated names in mixed case, a Set-Cookie, obs-text (ISO-8859-1 bytes that
    /// are not UTF-8, and valid UTF-8), an obs-fold and an empty value.
    static let raw: [UInt8] = Array((
        "HTTP/1.1 200 OK\r\n" +
        "Date: Sun, 22 Nov 2026 04:31:07 GMT\r\n" +
        "Content-Type: application/octet-stream\r\n" +
        "Set-Cookie: a=1; Path=/\r\n" +
        "set-cookie: b=2\r\n" +
        "X-Latin: caf").utf8) + [0xE9] + Array((
        "\r\n" +
        "X-Utf8: caf\u{E9}\r\n" +
        "X-Folded: one\r\n two\r\n" +
        "X-Empty:\r\n" +
        "Content-Length: 0\r\n\r\n").utf8)

    /// The received section as the transport keeps it.
    static func block() throws -> FieldBlock {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        return try raw.withUnsafeBytes { buffer in
            let step = try parser.parse(buffer)
            guard case .head(let head) = step.event else { throw ParseFailure() }
            return FieldBlock(head.fields, in: buffer)
        }
    }

    struct ParseFailure: Error {}

    /// The same fields recorded the way responses were before: decoded up front, one by one.
    static func built(from block: FieldBlock) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for field in block { headers.appendField(name: field.name, value: field.value) }
        return headers
    }

    @Test("reads match the fields decoded up front, member by member")
    func readsMatch() throws {
        let block = try Self.block()
        let received = HTTPHeaders(received: block), built = Self.built(from: block)
        #expect(received.count == 9)
        #expect(received.map(\.name) == built.map(\.name))
        #expect(received.map(\.value) == built.map(\.value))
        #expect(Array(received.indices) == Array(built.indices))
        for index in received.indices { #expect(received[index] == built[index]) }
        #expect(received.last == built.last)
        #expect(received.reversed().map(\.name) == built.reversed().map(\.name))
        for name in ["set-cookie", "SET-COOKIE", "Content-Type", "x-latin", "X-UTF8", "x-folded", "X-Empty", "absent", "Set-Cooki"] {
            #expect(received[name] == built[name], "\(name)")
            #expect(received.value(for: name) == built.value(for: name), "\(name)")
            #expect(received.values(for: name) == built.values(for: name), "\(name)")
        }
        #expect(received.dictionary == built.dictionary)
        #expect(received.description == built.description)
        #expect(received.sorted() == built.sorted())
    }

    @Test("repeats, order and the decoding of obs-text are kept")
    func fidelity() throws {
        let received = HTTPHeaders(received: try Self.block())
        #expect(received.values(for: "Set-Cookie") == ["a=1; Path=/", "b=2"])
        #expect(received.map(\.name).prefix(4) == ["Date", "Content-Type", "Set-Cookie", "set-cookie"])
        #expect(received["X-Latin"] == "caf\u{FFFD}")  // not UTF-8: as FieldBlock decodes it
        #expect(received["X-Utf8"] == "caf\u{E9}")
        #expect(received["X-Folded"] == "one   two")
        #expect(received["X-Empty"] == "")
    }

    @Test("equal and hashed alike whichever way the fields are held")
    func equalityAndHash() throws {
        let block = try Self.block()
        let received = HTTPHeaders(received: block), built = Self.built(from: block)
        #expect(received == built)
        #expect(built == received)
        #expect(received == HTTPHeaders(received: block))
        #expect(received.hashValue == built.hashValue)
        #expect(Set([received, built]).count == 1)
        var changed = built
        changed.remove(name: "X-Empty")
        #expect(received != changed)
        #expect(HTTPHeaders(received: FieldBlock()) == HTTPHeaders())
        #expect(HTTPHeaders(received: FieldBlock()).isEmpty)
    }

    @Test("a change turns the received fields into built ones, the original untouched",
          arguments: ["add", "update", "remove", "subscript", "sort", "append"])
    func mutation(operation: String) throws {
        let block = try Self.block()
        let original = HTTPHeaders(received: block)
        var received = original, built = Self.built(from: block)
        func apply(_ headers: inout HTTPHeaders) {
            switch operation {
            case "add": headers.add(name: "set-COOKIE", value: "c=3")
            case "update": headers.update(name: "Content-Type", value: "text/plain")
            case "remove": headers.remove(name: "SET-cookie")
            case "subscript": headers["X-New"] = "new"
            case "sort": headers.sort()
            default: headers.appendField(name: "Set-Cookie", value: "d=4")
            }
        }
        apply(&received)
        apply(&built)
        #expect(received == built)
        #expect(received.map(\.description) == built.map(\.description))
        #expect(original == Self.built(from: block))  // value semantics: the copy did not change
    }

    @Test("HTTPURLResponse over received fields: allHeaderFields and value(forHTTPHeaderField:)")
    func response() throws {
        let block = try Self.block()
        let url = try #require(URL(string: "http://example.com/"))
        let received = HTTPURLResponse(url: url, statusCode: 200, headers: HTTPHeaders(received: block))
        let built = HTTPURLResponse(url: url, statusCode: 200, headers: Self.built(from: block))
        #expect(received.value(forHTTPHeaderField: "set-cookie") == "a=1; Path=/, b=2")
        #expect(received.value(forHTTPHeaderField: "SET-COOKIE") == built.value(forHTTPHeaderField: "SET-COOKIE"))
        #expect(received.allHeaderFields.count == built.allHeaderFields.count)
        for (key, value) in built.allHeaderFields {
            #expect(received.allHeaderFields[key] as? String == value as? String, "\(key)")
        }
        #expect(received.mimeType == "application/octet-stream")
        #expect(received.expectedContentLength == 0)
        #expect(received.headers == built.headers)
        #expect(received != built)  // identity, as Foundation's
    }
}
