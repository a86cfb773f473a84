// JSON text from untyped values, for JSONEncoding in builds without full Foundation (which has
// JSONSerialization). Output follows JSONSerialization's conventions so both builds agree:
// `\/` escaping unless disabled, two-space indentation and `"key" : value` when pretty.
#if !FullFoundation
import FoundationEssentials

/// Writes arrays, `[String: …]` dictionaries, strings, numbers, `Bool`s and `nil` as JSON (RFC 8259).
struct JSONValueWriter {
    let options: JSONEncoding.WritingOptions

    /// Returns the UTF-8 JSON text for `value`.
    ///
    /// - Throws: ``JSONEncoding/Error/invalidJSONObject`` for unsupported values, non-finite
    ///   numbers, or a top-level scalar without `.fragmentsAllowed`.
    func data(for value: Any) throws -> Data {
        let top = unwrapped(value)
        guard options.contains(.fragmentsAllowed) || top is [String: Any] || top is [Any] else {
            throw JSONEncoding.Error.invalidJSONObject
        }
        var output = ""
        try write(top, depth: 0, to: &output)
        return Data(output.utf8)
    }

    private func write(_ value: Any?, depth: Int, to output: inout String) throws {
        switch value {
        case nil:
            output += "null"
        case let string as String:
            writeString(string, to: &output)
        case let bool as Bool where type(of: value!) == Bool.self:
            output += bool ? "true" : "false"
        case let dictionary as [String: Any]:
            let keys = options.contains(.sortedKeys) ? dictionary.keys.sorted() : Array(dictionary.keys)
            try writeContainer(open: "{", close: "}", count: keys.count, depth: depth, to: &output) { index, output in
                writeString(keys[index], to: &output)
                output += options.contains(.prettyPrinted) ? " : " : ":"
                try write(unwrapped(dictionary[keys[index]]!), depth: depth + 1, to: &output)
            }
        case let array as [Any]:
            try writeContainer(open: "[", close: "]", count: array.count, depth: depth, to: &output) { index, output in
                try write(unwrapped(array[index]), depth: depth + 1, to: &output)
            }
        case let number?:
            output += try numberText(number)
        }
    }

    private func writeContainer(
        open: String, close: String, count: Int, depth: Int, to output: inout String,
        element: (Int, inout String) throws -> Void
    ) throws {
        let pretty = options.contains(.prettyPrinted)
        output += open
        for index in 0..<count {
            if index > 0 { output += "," }
            if pretty { output += "\n" + String(repeating: "  ", count: depth + 1) }
            try element(index, &output)
        }
        if pretty && count > 0 { output += "\n" + String(repeating: "  ", count: depth) }
        output += close
    }

    private func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "/": output += options.contains(.withoutEscapingSlashes) ? "/" : "\\/"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// Integers as written; floating-point values in Swift's shortest round-trip form, with
    /// integral values below 2^53 written without a fraction, as JSONSerialization does.
    private func numberText(_ value: Any) throws -> String {
        switch value {
        case let integer as any BinaryInteger:
            return String(describing: integer)
        case let double as Double:
            return try floatingText(double)
        case let float as Float:
            return try floatingText(Double(float))
        case let decimal as Decimal:
            return decimal.description
        default:
            throw JSONEncoding.Error.invalidJSONObject
        }
    }

    private func floatingText(_ double: Double) throws -> String {
        guard double.isFinite else { throw JSONEncoding.Error.invalidJSONObject }
        if double == double.rounded(), abs(double) < 9_007_199_254_740_992 {
            return String(Int64(double))
        }
        return String(double)
    }
}
#endif
