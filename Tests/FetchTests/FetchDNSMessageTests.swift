// DNSMessage, sans I/O: the query curl 7.88 sends (its unit test 1655's shapes), and a table of
// answers, well-formed and malformed, each read to an answer or to curl's typed error; then every
// truncation and random corruption of a valid answer read without a crash.
@testable import fetch
import LariatTestSupport
import Testing

@Suite("fetch --doh-url: DNS messages")
struct FetchDNSMessageTests {
    /// `a.test`'s question as sent for `type`.
    static func question(_ type: UInt8) -> [UInt8] { [1, 0x61, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, type, 0, 1] }
    static func header(id: UInt16 = 0, rcode: UInt8 = 0, an: UInt8 = 0, ns: UInt8 = 0, ar: UInt8 = 0) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), 0x81, 0x80 | rcode, 0, 1, 0, an, 0, ns, 0, ar]
    }
    /// A record whose name points at the question (offset 12).
    static func record(_ type: UInt8, _ data: [UInt8], ttl: UInt8 = 60) -> [UInt8] {
        [0xC0, 12, 0, type, 0, 1, 0, 0, 0, ttl, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
    }
    static let a = record(1, [127, 0, 0, 1])
    static let target: [UInt8] = [6] + Array("target".utf8) + [4] + Array("test".utf8) + [0]

    @Test("queries: curl's bytes, its refusals")
    func queries() throws {
        #expect(try DNSMessage.query(host: "a.test", type: .a) == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0] + Self.question(1))
        #expect(try DNSMessage.query(host: "a.test.", type: .aaaa) == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0] + Self.question(28))
        #expect(throws: DNSMessageError.badLabel) { try DNSMessage.query(host: "a..test", type: .a) }
        #expect(throws: DNSMessageError.badLabel) { try DNSMessage.query(host: ".a", type: .a) }
        #expect(throws: DNSMessageError.badLabel) { try DNSMessage.query(host: String(repeating: "x", count: 64) + ".test", type: .a) }
        #expect(throws: DNSMessageError.nameTooLong) { try DNSMessage.query(host: Array(repeating: "abcdefghi", count: 26).joined(separator: "."), type: .a) }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var type = DNSMessage.RecordType.a
        var message: [UInt8]
        var expected: Result<DNSAnswer, DNSMessageError>
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "A", message: header(an: 1) + question(1) + a, expected: .success(DNSAnswer(addresses: ["127.0.0.1"], ttl: 60))),
        Row(name: "AAAA", type: .aaaa, message: header(an: 1) + question(28) + record(28, Array(repeating: 0, count: 15) + [1]),
            expected: .success(DNSAnswer(addresses: ["::1"], ttl: 60))),
        Row(name: "AAAA 2001:db8::a:0:1", type: .aaaa,
            message: header(an: 1) + question(28) + record(28, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 1]),
            expected: .success(DNSAnswer(addresses: ["2001:db8::a:0:1"], ttl: 60))),
        // CNAME then an A for its target, the A's name a pointer into the CNAME's data (offset 36).
        Row(name: "CNAME then A", message: header(an: 2) + question(1) + record(5, target, ttl: 90) + [0xC0, 36, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, 10, 0, 0, 7],
            expected: .success(DNSAnswer(addresses: ["10.0.0.7"], cnames: ["target.test"], ttl: 30))),
        Row(name: "CNAME only", message: header(an: 1) + question(1) + record(5, target), expected: .success(DNSAnswer(cnames: ["target.test"], ttl: 60))),
        Row(name: "DNAME skipped", message: header(an: 2) + question(1) + record(39, target) + a,
            expected: .success(DNSAnswer(addresses: ["127.0.0.1"], ttl: 60))),
        Row(name: "authority and additional sections walked", message: header(an: 1, ns: 1, ar: 1) + question(1) + a + record(2, target) + record(1, [1, 2, 3, 4]),
            expected: .success(DNSAnswer(addresses: ["127.0.0.1"], ttl: 60))),
        Row(name: "25 addresses: 24 kept", message: header(an: 25) + question(1) + Array((0..<25).map { record(1, [10, 0, 0, UInt8($0)]) }.joined()),
            expected: .success(DNSAnswer(addresses: (0..<24).map { "10.0.0.\($0)" }, ttl: 60))),
        Row(name: "NXDOMAIN", message: header(rcode: 3) + question(1), expected: .failure(.badRCode(3))),
        Row(name: "no answer", message: header() + question(1), expected: .failure(.noContent)),
        Row(name: "header only, 11 bytes", message: Array(header().prefix(11)), expected: .failure(.tooSmall)),
        Row(name: "ID 0x1234", message: header(id: 0x1234, an: 1) + question(1) + a, expected: .failure(.badID)),
        Row(name: "A cut in its data", message: Array((header(an: 1) + question(1) + a).dropLast(2)), expected: .failure(.outOfRange)),
        Row(name: "question cut in its name", message: header() + [1, 0x61, 4, 0x74], expected: .failure(.outOfRange)),
        Row(name: "answer count past the records", message: header(an: 2) + question(1) + a, expected: .failure(.outOfRange)),
        Row(name: "trailing byte", message: header(an: 1) + question(1) + a + [0], expected: .failure(.malformat)),
        Row(name: "A with 5 bytes", message: header(an: 1) + question(1) + record(1, [1, 2, 3, 4, 5]), expected: .failure(.rdataLength)),
        Row(name: "AAAA answer to an A query", message: header(an: 1) + question(1) + record(28, Array(repeating: 0, count: 16)),
            expected: .failure(.unexpectedType(28))),
        Row(name: "class CH", message: header(an: 1) + question(1) + [0xC0, 12, 0, 1, 0, 3, 0, 0, 0, 60, 0, 4, 1, 2, 3, 4],
            expected: .failure(.unexpectedClass(3))),
        Row(name: "label with bits 01", message: header() + [0x41, 0] + [0, 1, 0, 1], expected: .failure(.badLabel)),
        // The CNAME's data is a pointer to itself (offset 36): followed 128 times, then refused.
        Row(name: "CNAME pointer loop", message: header(an: 1) + question(1) + record(5, [0xC0, 36]), expected: .failure(.labelLoop)),
        Row(name: "CNAME label past the end", message: header(an: 1) + question(1) + record(5, [9, 0x61]), expected: .failure(.badLabel)),
        Row(name: "CNAME pointer past the end", message: header(an: 1) + question(1) + record(5, [0xC0, 0xFF]), expected: .failure(.outOfRange)),
        Row(name: "CNAME over 255 bytes", message: header(an: 1) + question(1) + record(5, Array(repeating: [63] + Array(repeating: 0x61, count: 63), count: 5).joined() + [0]),
            expected: .failure(.badLabel)),
        Row(name: "all 0xff", message: Array(repeating: 0xFF, count: 20), expected: .failure(.badID)),
    ]

    @Test("answers: what each holds, or curl's error", arguments: rows)
    func answers(_ row: Row) {
        var answer = DNSAnswer()
        do {
            try DNSMessage.read(row.message, type: row.type, into: &answer)
            #expect(Result.success(answer) == row.expected)
        } catch {
            #expect(Result.failure(error) == row.expected)
        }
    }

    @Test("curl's words for the errors")
    func words() {
        #expect(DNSMessageError.badRCode(3).description == "Bad RCODE")
        #expect(DNSMessageError.labelLoop.description == "Label loop")
        #expect(DNSMessageError.noContent.description == "No content")
    }

    @Test("every prefix and 20,000 random corruptions of valid answers: an answer or an error, never a crash")
    func corruption() {
        let valid = Self.rows.filter { if case .success = $0.expected { true } else { false } }
        var generator = SplitMix(seed: 0x5EED_D0_4)
        var outcomes = (read: 0, refused: 0)
        func read(_ bytes: [UInt8], _ type: DNSMessage.RecordType) {
            var answer = DNSAnswer()
            do {
                try DNSMessage.read(bytes, type: type, into: &answer)
                outcomes.read += 1
            } catch {
                outcomes.refused += 1
            }
            #expect(answer.addresses.count <= DNSMessage.maxAddresses && answer.cnames.count <= DNSMessage.maxCNAMEs)
        }
        for row in valid {
            for length in 0..<row.message.count { read(Array(row.message.prefix(length)), row.type) }
        }
        for round in 0..<20_000 {
            let row = valid[round % valid.count]
            var bytes = row.message
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            read(bytes, row.type)
        }
        #expect(outcomes.read > 0 && outcomes.refused > 0)
    }
}
