// The byte dumps of curl's --trace (hex) and --trace-ascii, as curl 7.88's tool_cb_dbg.c lays
// them out (checked against this machine's curl 7.88.1):
//
//   => Send header, 79 bytes (0x4f)                     the section line
//   0000: 47 45 54 20 2f 20 48 54 54 50 2f 31 2e 31 0d 0a GET / HTTP/1.1..
//
// --trace: 16 bytes a row, offset, hex (three columns each, padded), then the bytes as text with
// anything outside 0x20-0x7F as a dot. --trace-ascii: 64 bytes a row, text only, and a row also
// ends after a CR LF pair (which is not printed), so a head reads one field a line:
//
//   0000: GET / HTTP/1.1
//   0010: Host: 127.0.0.1:18611
//
// --trace-time puts `HH:MM:SS.uuuuuu ` (local time) before each section and Info line.

#if canImport(Glibc)
import Glibc
#endif

/// Text layout of one trace section.
enum TraceDump {
    /// Hex and text, or text only.
    enum Style: Equatable, Sendable { case hex, ascii }

    /// The section line and its rows.
    ///
    /// - Parameters:
    ///   - title: `=> Send header`, `<= Recv data`...
    ///   - bytes: The bytes.
    ///   - style: Hex (`--trace`) or text (`--trace-ascii`).
    static func section(_ title: String, _ bytes: [UInt8], style: Style) -> String {
        var out = "\(title), \(bytes.count) bytes (0x\(String(bytes.count, radix: 16)))\n"
        let width = style == .hex ? 0x10 : 0x40
        var row = 0
        while row < bytes.count {
            out += hex4(row) + ": "
            var next = row + width
            if style == .hex {
                for column in 0..<width {
                    out += row + column < bytes.count ? hex2(bytes[row + column]) + " " : "   "
                }
            }
            var column = 0
            while column < width && row + column < bytes.count {
                let index = row + column
                // --trace-ascii: a CR LF ends the row, unprinted.
                if style == .ascii, bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                    next = index + 2
                    break
                }
                out.unicodeScalars.append(printable(bytes[index]))
                if style == .ascii, index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
                    next = index + 3
                    break
                }
                column += 1
            }
            out += "\n"
            row = next
        }
        return out
    }

    /// `HH:MM:SS.uuuuuu ` in local time, for --trace-time.
    static func timestamp(secondsSince1970 seconds: Double) -> String {
        var whole = time_t(seconds.rounded(.down))
        let micros = Int((seconds - Double(whole)) * 1_000_000)
        var parts = tm()
        localtime_r(&whole, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(min(max(micros, 0), 999_999))
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(String(repeating: "0", count: 6 - fraction.count))\(fraction) "
    }

    /// A byte as curl shows it: itself when printable ASCII (0x20-0x7F), else a dot.
    private static func printable(_ byte: UInt8) -> Unicode.Scalar {
        byte >= 0x20 && byte < 0x80 ? Unicode.Scalar(byte) : "."
    }

    private static func hex2(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private static func hex4(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
    }
}
