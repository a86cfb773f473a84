// FieldBlock: a parsed field section copied out of the input keeps every value's bytes (obs-text
// included), reads names and values as strings on demand, and matches names without decoding.
// RequestHead.byteFields: bytes written as they are, validated as string fields are.
import Testing
import Wire

@Suite("Field blocks and byte fields")
struct FieldBlockTests {
    /// Parses `head` (a response head) and copies its fields into a block.
    private func block(_ head: [UInt8]) throws -> FieldBlock {
        var parser = ResponseParser()
        parser.expectResponse(to: .get)
        return try head.withUnsafeBytes { buffer in
            let step = try parser.parse(buffer)
            guard case .head(let parsed) = step.event else { Issue.record("no head: \(step.event)"); return FieldBlock() }
            return FieldBlock(parsed.fields, in: buffer)
        }
    }

    @Test("values keep their bytes; strings are decoded when read")
    func copied() throws {
        let high = [UInt8](0x80...0xFF)
        let fields = try block(Array("HTTP/1.1 200 OK\r\nSet-Cookie: a=".utf8) + high + Array("\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(fields.count == 3)
        #expect(fields.map(\.name) == ["Set-Cookie", "X-Empty", "Content-Length"])
        #expect(Array(fields[fields.startIndex].valueBytes) == Array("a=".utf8) + high)
        #expect(fields[fields.startIndex].value == String(decoding: Array("a=".utf8) + high, as: UTF8.self))
        #expect(fields.map(\.value).dropFirst() == ["", "0"])
        #expect(fields.firstValue(named: "content-length") == "0")
        #expect(fields.firstValue(named: "location") == nil)
        #expect(fields.filter { $0.hasName("set-cookie") }.count == 1)
        #expect(!fields[fields.startIndex].hasName("set-cookies"))
    }

    @Test("an obs-fold value reads with spaces, as HeaderFields.valueBytes")
    func folded() throws {
        let fields = try block(Array("HTTP/1.1 200 OK\r\nX-Fold: a\r\n b\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(fields.firstValue(named: "x-fold") == "a   b")
    }

    @Test("a block built from strings equals its literal, reads back the same, and may hold any byte")
    func fromStrings() {
        let block: FieldBlock = [("A", "1"), ("b:c", "x\r\ny"), ("", "")]
        #expect(block == FieldBlock([("A", "1"), ("b:c", "x\r\ny"), ("", "")]))
        #expect(block.strings.map(\.name) == ["A", "b:c", ""])
        #expect(block.strings.map(\.value) == ["1", "x\r\ny", ""])
        #expect(FieldBlock().isEmpty && FieldBlock([]).isEmpty)
    }

    @Test("byte fields are written after string fields, as their bytes")
    func byteFieldsWritten() throws {
        var head = RequestHead(method: .get, target: "/", authority: "h", fields: [("A", "1")])
        head.byteFields = [("Cookie", [0x61, 0x3D, 0xE9, 0xFF])]
        #expect(try RequestSerializer.serialize(head) == Array("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nCookie: a=".utf8) + [0xE9, 0xFF] + Array("\r\n\r\n".utf8))
    }

    @Test("byte fields are refused as string fields are: CR, LF, NUL, a reserved or non-token name", arguments: [
        ("Cookie", [0x61, 0x0D, 0x0A, 0x62]), ("Cookie", [0x00]), ("Content-Length", [0x31]), ("Co okie", [0x31]),
    ] as [(String, [UInt8])])
    func byteFieldsValidated(_ name: String, _ value: [UInt8]) {
        var head = RequestHead(method: .get, target: "/", authority: "h")
        head.byteFields = [(name, value)]
        #expect(throws: WireError.self) { try RequestSerializer.serialize(head) }
    }
}
