// Minimal JSON writing for wire-decode's one-line records.

/// Builds one JSON object, keys in insertion order.
struct JSONLine {
    private var parts: [String] = []

    mutating func add(_ key: String, _ value: Int) { parts.append("\(quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Bool) { parts.append("\(quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: String) { parts.append("\(quote(key)):\(quote(value))") }
    mutating func add(_ key: String, ints: [Int]) { parts.append("\(quote(key)):[\(ints.map(String.init).joined(separator: ","))]") }
    mutating func add(_ key: String, pairs: [(String, String)]) {
        parts.append("\(quote(key)):[\(pairs.map { "[\(quote($0.0)),\(quote($0.1))]" }.joined(separator: ","))]")
    }

    var text: String { "{" + parts.joined(separator: ",") + "}" }
}

/// A JSON string literal; control characters and non-BMP text are escaped per RFC 8259.
func quote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
