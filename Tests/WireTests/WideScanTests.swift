import Testing
import Wire

/// The wide scans (16-byte vectors, then an 8-byte word, then bytes) must find the same first
/// offending byte whichever lane it falls in. Every byte value is placed at offsets that hit the
/// first and last lanes of both widths and the byte-by-byte tail, in a line that is followed by
/// more input (vector loads) and in a line that ends the buffer (only the tails can run).
@Suite("Wide scans")
struct WideScanTests {
    /// Offsets inside a name or value: lanes 0, 1, 7, 8, 9, 15 of the first vector, the second
    /// vector, and the tail.
    static let offsets = [0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 35]
    static let statusLine = Array("HTTP/1.1 200 OK\r\n".utf8)
    static let rest = Array("Content-Length: 0\r\n\r\n".utf8)
    static let tchars = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The transcript of `line` (a field line with its CRLF) in a head, fed whole and with a split
    /// right after the line, so that the first call sees the line at the very end of its input.
    private func outcomes(_ line: [UInt8]) -> [Recorded?] {
        let raw = Self.statusLine + line + Self.rest
        let cut = Self.statusLine.count + line.count
        return [
            transcript(Splits.whole(raw), methods: [.get], eof: true).first,
            transcript(Splits.at(cut, raw), methods: [.get], eof: true).first,
        ]
    }

    @Test("a field-name byte in every lane", arguments: 0...255)
    func nameByte(_ byte: Int) {
        let b = UInt8(byte)
        let name = Array("Abcdefghijklmnopqrstuvwxyz-0123456789".utf8)
        for k in Self.offsets {
            var line = name
            line[k] = b
            line += Array(": v\r\n".utf8)
            for outcome in outcomes(line) {
                switch outcome {
                case .head(_, _, let f, _, _)?:
                    if b == 0x3A && k > 0 {
                        #expect(f.first?.name.utf8.count == k, "byte \(byte) at \(k): name ends at the colon")
                    } else {
                        #expect(Self.tchars.contains(b), "byte \(byte) at \(k) accepted in a name")
                        #expect(f.first?.name.utf8.count == name.count, "byte \(byte) at \(k)")
                    }
                case .error(_, let offset)?:
                    #expect(!Self.tchars.contains(b), "tchar \(byte) at \(k) refused")
                    #expect(offset == Self.statusLine.count + k, "byte \(byte) at \(k): error names the byte")
                default:
                    Issue.record("unexpected outcome for byte \(byte) at \(k): \(String(describing: outcome))")
                }
            }
        }
    }

    @Test("a field-value byte in every lane", arguments: 0...255)
    func valueByte(_ byte: Int) {
        let b = UInt8(byte)
        let prefix = Array("X-Long: ".utf8)
        let value = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let allowed = b == 0x09 || (b >= 0x20 && b != 0x7F)
        for k in Self.offsets {
            var v = value
            v[k] = b
            for outcome in outcomes(prefix + v + [0x0D, 0x0A]) {
                switch outcome {
                case .head(_, _, let f, _, _)?:
                    #expect(allowed, "byte \(byte) at \(k) accepted in a value")
                    if b < 0x80 {
                        // OWS at either end is not part of the value.
                        var expected = v
                        if k == 0 && (b == 0x20 || b == 0x09) { expected.removeFirst() }
                        if k == v.count - 1 && (b == 0x20 || b == 0x09) { expected.removeLast() }
                        #expect(f.first?.value == String(decoding: expected, as: UTF8.self), "byte \(byte) at \(k)")
                    }
                case .error(let rule, let offset)?:
                    #expect(!allowed, "byte \(byte) at \(k) refused")
                    #expect(offset == Self.statusLine.count + prefix.count + k, "byte \(byte) at \(k): error names the byte")
                    #expect([.fieldValue, .bareCR, .bareLF].contains(rule), "byte \(byte) at \(k): \(rule)")
                default:
                    Issue.record("unexpected outcome for byte \(byte) at \(k): \(String(describing: outcome))")
                }
            }
        }
    }

    @Test("long names and values with rarer tchars, tabs and obs-text, at every split")
    func longLines() {
        let raw = "HTTP/1.1 200 OK\r\n"
            + "X_Under.Score~Tilde!Bang#Hash$Dollar%Pct&Amp'Q*Star+Plus^Caret`Tick|Pipe: v\r\n"
            + "X-Tabs: a\tb\t\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn\to\tp\tq\tr\ts\tt\r\n"
            + "X-Obs: caf\u{E9} na\u{EF}ve r\u{E9}sum\u{E9} \u{2603}\u{2603}\u{2603}\u{2603}\u{2603}\u{2603} end\r\n"
            + "X-Ows:  \t  padded on both sides, long enough for two vectors  \t \r\n"
            + "Content-Length: 0\r\n\r\n"
        let (events, mismatch) = splitInvariantTranscript(Array(raw.utf8), methods: [.get])
        #expect(mismatch == nil, "\(mismatch ?? "")")
        guard case .head(_, _, let f, _, _)? = events.first else {
            Issue.record("no head: \(events)")
            return
        }
        #expect(f.map(\.name) == [
            "X_Under.Score~Tilde!Bang#Hash$Dollar%Pct&Amp'Q*Star+Plus^Caret`Tick|Pipe", "X-Tabs", "X-Obs", "X-Ows",
            "Content-Length",
        ])
        #expect(f[1].value == "a\tb\t\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn\to\tp\tq\tr\ts\tt")
        #expect(f[2].value == "caf\u{E9} na\u{EF}ve r\u{E9}sum\u{E9} \u{2603}\u{2603}\u{2603}\u{2603}\u{2603}\u{2603} end")
        #expect(f[3].value == "padded on both sides, long enough for two vectors")
    }

    @Test("a status-line byte at every position: whole (fast path) and byte by byte (slow path) agree", arguments: 0...255)
    func statusLineByte(_ byte: Int) {
        let line = Array("HTTP/1.1 200 OK\r\n".utf8)
        for k in 0..<line.count {
            var raw = line
            raw[k] = UInt8(byte)
            raw += Self.rest
            let whole = transcript(Splits.whole(raw), methods: [.get], eof: true)
            let bytewise = transcript(Splits.byteByByte(raw), methods: [.get], eof: true)
            #expect(whole == bytewise, "byte \(byte) at \(k)")
        }
        for variant in ["HTTP/1.0 404\r\n", "HTTP/1.1 100 \r\n", "HTTP/1.1 999 A\tB\u{80}\r\n", "HTTP/1.1 099 Low\r\n"] {
            let raw = Array(variant.utf8) + Self.rest
            #expect(transcript(Splits.whole(raw), methods: [.get], eof: true) == transcript(Splits.byteByByte(raw), methods: [.get], eof: true), "\(variant)")
        }
    }
}
