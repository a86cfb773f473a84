import Testing
import Wire

/// Every byte value in each position where a byte class matters (swift-nio's HTTPDecoderTest idea).
@Suite("Byte sweeps")
struct ByteSweepTests {
    private func outcome(_ raw: [UInt8]) -> Recorded? {
        transcript([raw], methods: [.get], eof: true).first
    }

    @Test("field-name bytes: only tchar accepted", arguments: 0...255)
    func nameByte(_ byte: Int) {
        let b = UInt8(byte)
        let raw = Array("HTTP/1.1 200 OK\r\nX".utf8) + [b] + Array("Y: 1\r\nContent-Length: 0\r\n\r\n".utf8)
        let tchars = Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        if b == 0x3A {
            // A colon ends the name: `X` with value `Y: 1`.
            guard case .head(_, _, let f, _, _)? = outcome(raw) else { Issue.record("colon"); return }
            #expect(f.first == Recorded.Field(name: "X", value: "Y: 1"))
        } else if tchars.contains(b) {
            guard case .head? = outcome(raw) else { Issue.record("byte \(byte) refused"); return }
        } else {
            guard case .error? = outcome(raw) else { Issue.record("byte \(byte) accepted in a name"); return }
        }
    }

    @Test("field-value bytes: HTAB, SP, VCHAR, obs-text accepted; other controls refused", arguments: 0...255)
    func valueByte(_ byte: Int) {
        let b = UInt8(byte)
        let raw = Array("HTTP/1.1 200 OK\r\nX: a".utf8) + [b] + Array("b\r\nContent-Length: 0\r\n\r\n".utf8)
        let allowed = b == 0x09 || (b >= 0x20 && b != 0x7F)
        switch outcome(raw) {
        case .head(_, _, let f, _, _)?:
            #expect(allowed, "byte \(byte) accepted in a value")
            #expect(f.first?.value.utf8.count ?? 0 >= 2)
        case .error(let rule, let offset)?:
            #expect(!allowed, "byte \(byte) refused")
            #expect(offset == 21, "error names the offending byte")
            #expect([.fieldValue, .bareCR, .bareLF].contains(rule))
        default:
            Issue.record("unexpected outcome for byte \(byte)")
        }
    }

    @Test("reason-phrase bytes", arguments: 0...255)
    func reasonByte(_ byte: Int) {
        let b = UInt8(byte)
        let raw = Array("HTTP/1.1 200 O".utf8) + [b] + Array("K\r\nContent-Length: 0\r\n\r\n".utf8)
        let allowed = b == 0x09 || (b >= 0x20 && b != 0x7F)
        if case .head? = outcome(raw) { #expect(allowed, "byte \(byte)") } else { #expect(!allowed, "byte \(byte)") }
    }

    @Test("chunk-size bytes: only hex digits start a size", arguments: 0...255)
    func chunkSizeByte(_ byte: Int) {
        let b = UInt8(byte)
        let raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + [b] + Array("\r\n".utf8)
        let events = transcript([raw], methods: [.get], eof: false)
        let isHex = (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
        if case .error? = events.last { #expect(!isHex, "byte \(byte)") } else { #expect(isHex, "byte \(byte)") }
    }
}
