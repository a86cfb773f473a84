// Cookie values as bytes (issue 25 item 8): a Set-Cookie value holding obs-text (0x80-0xFF) is
// kept as the bytes received and sent back byte for byte, as curl 7.88 does; `HTTPCookie.value`
// shows UTF-8 where the bytes are UTF-8, else one ISO-8859-1 character per byte. Parser rows,
// the `Cookie` field written from stored cookies, and a Session round trip on the scripted server.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import LariatTestSupport
import Wire
@testable import Client
@testable import Transport

@Suite("Cookie values as bytes")
struct CookieBytesTests {
    private static let origin = URL(string: "http://example.com/a/b")!

    /// One Set-Cookie value as bytes, and the cookie it must make.
    struct Row: Sendable, CustomTestStringConvertible {
        var line: [UInt8]
        var name: String
        var value: String
        var nameBytes: [UInt8]
        var valueBytes: [UInt8]
        var path = "/a"
        var testDescription: String { line.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined() }
    }

    static let allHigh = [UInt8](0x80...0xFF)
    static let mixed: [UInt8] = [0xC3, 0xA9, 0x74, 0xE9, 0xFF, 0xFE]  // "é" as UTF-8, "t", then bytes that are not UTF-8

    static let rows: [Row] = [
        Row(line: Array("a=".utf8) + allHigh, name: "a", value: CookieBytes.latin1Text(of: allHigh),
            nameBytes: Array("a".utf8), valueBytes: allHigh),
        Row(line: Array("b=".utf8) + mixed + Array("; Path=/".utf8), name: "b", value: "\u{C3}\u{A9}t\u{E9}\u{FF}\u{FE}",
            nameBytes: Array("b".utf8), valueBytes: mixed, path: "/"),
        // Valid UTF-8 stays UTF-8: the string is the text, nothing else kept.
        Row(line: Array("c=caf\u{E9}".utf8), name: "c", value: "caf\u{E9}", nameBytes: Array("c".utf8), valueBytes: Array("caf\u{E9}".utf8)),
        // A name with obs-text, and spaces around the pair trimmed, bytes inside kept.
        Row(line: [0x20, 0xE9, 0x6E, 0x3D, 0x76, 0x20], name: "\u{E9}n", value: "v", nameBytes: [0xE9, 0x6E], valueBytes: Array("v".utf8)),
        // A UTF-8 value with a non-UTF-8 attribute elsewhere in the line: the value is its UTF-8.
        Row(line: Array("d=\u{E9}; Comment=".utf8) + [0xFF], name: "d", value: "\u{E9}", nameBytes: Array("d".utf8), valueBytes: [0xC3, 0xA9]),
    ]

    @Test("a Set-Cookie value's bytes are the cookie's bytes", arguments: rows)
    func parsed(_ row: Row) throws {
        let cookie = try SetCookieParser.parse(bytes: row.line, for: Self.origin).get()
        #expect(cookie.name == row.name)
        #expect(cookie.value == row.value)
        #expect(cookie.nameBytes == row.nameBytes)
        #expect(cookie.valueBytes == row.valueBytes)
        #expect(cookie.path == row.path)
    }

    @Test("a control character still voids a line that is not UTF-8; the size limit counts bytes")
    func limits() {
        #expect(SetCookieParser.parse(bytes: Array("a=".utf8) + [0xE9, 0x01], for: Self.origin) == .failure(.malformed))
        let exactly = Array("a=".utf8) + [UInt8](repeating: 0xE9, count: SetCookieParser.maxNameValueSize - 1)
        #expect((try? SetCookieParser.parse(bytes: exactly, for: Self.origin).get())?.valueBytes.count == SetCookieParser.maxNameValueSize - 1)
        #expect(SetCookieParser.parse(bytes: exactly + [0xE9], for: Self.origin) == .failure(.tooLarge))
    }

    @Test("the Cookie field carries each cookie's bytes; all-UTF-8 cookies stay text")
    func fieldValue() throws {
        let storage = HTTPCookieStorage()
        let url = URL(string: "http://example.com/")!
        storage.setCookie(try SetCookieParser.parse(bytes: Array("a=1".utf8), for: url).get())
        #expect(storage.cookieField(for: url) == .text("a=1"))
        storage.setCookie(try SetCookieParser.parse(bytes: Array("b=".utf8) + Self.mixed, for: url).get())
        #expect(storage.cookieField(for: url) == .bytes(Array("a=1; b=".utf8) + Self.mixed))
    }

    @Test("the wire mapping writes a byte-valued Cookie field as its bytes")
    func mapped() throws {
        let request = URLRequest(url: URL(string: "http://example.test/")!)
        let mapped = try TransportRequest(request, settings: URLSessionConfiguration.Settings(), body: nil,
                                          cookies: .bytes(Array("a=".utf8) + Self.mixed), start: .now())
        let bytes = try RequestSerializer.serialize(mapped.head)
        #expect(bytes == Array("GET / HTTP/1.1\r\nHost: example.test\r\nCookie: a=".utf8) + Self.mixed + Array("\r\n\r\n".utf8))
    }

    @Test("a response head's Set-Cookie bytes are stored as received")
    func storedFromHead() throws {
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        let raw = Array("HTTP/1.1 200 OK\r\nSet-Cookie: a=".utf8) + Self.allHigh + Array("\r\nContent-Length: 0\r\n\r\n".utf8)
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        let fields = try raw.withUnsafeBytes { buffer in
            let step = try parser.parse(buffer)
            guard case .head(let head) = step.event else { throw CookieRejection.malformed }
            return FieldBlock(head.fields, in: buffer)
        }
        let url = URL(string: "http://example.com/")!
        configuration.settings.storeCookies(from: fields, for: url, request: URLRequest(url: url))
        #expect(storage.cookies?.first?.valueBytes == Self.allHigh)
    }
}

extension ClientIntegrationTests {
    @Suite("Cookie bytes through a Session")
    struct CookieBytesSessionTests {
        @Test("what the server set in obs-text is what the next request carries, byte for byte")
        func roundTrip() async throws {
            let setCookie = Array("Set-Cookie: a=".utf8) + CookieBytesTests.allHigh + Array("; Path=/\r\nSet-Cookie: b=".utf8)
                + CookieBytesTests.mixed + Array("\r\n".utf8)
            let server = try ScriptedServer(script: [
                .expectRequest,
                .send(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n".utf8) + setCookie + Array("\r\nok".utf8)),
                .expectRequest, cannedResponse(),
            ])
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            let session = Session(configuration: configuration)
            let base = "http://127.0.0.1:\(server.port)"
            _ = await session.request(base + "/set").serializingData().response
            _ = await session.request(base + "/next").serializingData().response
            let requests = server.requests
            try #require(requests.count == 2)
            let expected = Array("\r\nCookie: a=".utf8) + CookieBytesTests.allHigh + Array("; b=".utf8) + CookieBytesTests.mixed + Array("\r\n".utf8)
            #expect(requests[1].firstOccurrence(of: expected) != nil, "sent: \(requests[1])")
            #expect(configuration.httpCookieStorage?.cookies?.first?.value == CookieBytes.latin1Text(of: CookieBytesTests.allHigh))
        }
    }
}

extension Array where Element == UInt8 {
    /// Where `needle` first occurs in these bytes.
    fileprivate func firstOccurrence(of needle: [UInt8]) -> Int? {
        guard needle.count <= count else { return nil }
        return (0...(count - needle.count)).first { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
