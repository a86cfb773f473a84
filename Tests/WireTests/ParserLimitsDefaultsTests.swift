// The default ParserLimits accept what curl 7.88 and Chrome accept (issue 25, item 9): 120
// Set-Cookie fields failed with the old 128-field default (fetch exit 8). The defaults are a
// 256 KiB header section (Chrome's kMaxHeaderBufSize) and 16,384 field lines; past them the
// typed errors still come.
import Testing
import Wire

@Suite("ParserLimits defaults")
struct ParserLimitsDefaultsTests {
    /// A head of `count` `Set-Cookie` fields (each `valueLength` bytes of value), then `ok`.
    static func head(fields count: Int, valueLength: Int = 10) -> [UInt8] {
        var text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
        let value = String(repeating: "v", count: valueLength)
        for index in 0..<count { text += "Set-Cookie: c\(index)=\(value)\r\n" }
        return Array((text + "\r\nok").utf8)
    }

    /// A head's field count, or the rule it broke.
    enum Outcome: Equatable {
        case success(Int)
        case failure(WireError.Rule)
    }

    static func parse(_ bytes: [UInt8], limits: ParserLimits = .default) -> Outcome {
        var parser = ResponseParser(limits: limits)
        parser.expectResponse(to: .get)
        do {
            let step = try bytes.withUnsafeBytes { try parser.parse($0) }
            guard case .head(let head) = step.event else { return .failure(.headerSectionTooLarge) }
            return .success(head.fields.count)
        } catch let error as WireError {
            return .failure(error.rule)
        } catch {
            Issue.record("not a WireError: \(error)")
            return .success(-1)
        }
    }

    @Test("accepted by default: fields that curl 7.88.1 and Chrome accept", arguments: [
        (120, 10), (129, 10), (1_000, 10), (5_000, 20), (8_000, 1),
    ])
    func accepted(count: Int, valueLength: Int) {
        #expect(Self.parse(Self.head(fields: count, valueLength: valueLength)) == .success(count + 1))
    }

    @Test("one field line of 200 KiB is accepted; a section past 256 KiB is refused by size")
    func sectionSize() {
        #expect(Self.parse(Self.head(fields: 1, valueLength: 200 * 1024)) == .success(2))
        #expect(Self.parse(Self.head(fields: 1, valueLength: 256 * 1024)) == .failure(.headerSectionTooLarge))
    }

    @Test("the limits stay configurable: 128 fields as before, and the count limit past 16,384 short fields")
    func configurable() {
        #expect(Self.parse(Self.head(fields: 128), limits: ParserLimits(maxFieldCount: 128)) == .failure(.tooManyFields))
        #expect(ParserLimits.default.maxFieldCount == 16_384)
        #expect(ParserLimits.default.maxHeaderSectionSize == 256 * 1024)
        // 16,385 of the shortest lines (`a:` CRLF) fit in 256 KiB: the count limit decides.
        let short = Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "a:\r\n", count: 16_385) + "\r\n").utf8)
        #expect(Self.parse(short) == .failure(.tooManyFields))
    }
}
