/// A parsed media type such as `application/json; charset=utf-8` (RFC 9110 §8.3.1).
///
/// Type, subtype and parameter names are lower-cased, since they are case-insensitive; parameter
/// values keep their case, with quotes and backslash escapes removed. Used for response validation
/// (``matches(_:)`` understands `*` wildcards) and for ``HTTPURLResponse/mimeType``.
struct MIMEType: Equatable, Sendable {
    /// The top-level type, for example `application`; `*` for a wildcard.
    let type: String
    /// The subtype, for example `json`; `*` for a wildcard.
    let subtype: String
    /// Parameters in order, names lower-cased.
    let parameters: [(name: String, value: String)]

    /// Parses a media type.
    ///
    /// - Parameter string: A `type/subtype` with optional `; name=value` parameters. Surrounding
    ///   whitespace is ignored.
    /// - Returns: `nil` unless there is exactly one `/` with a non-empty token on each side.
    init?(_ string: String) {
        let pieces = HeaderValueParameters.split(string)
        let essence = pieces.value.split(separator: "/", omittingEmptySubsequences: false)
        guard essence.count == 2 else { return nil }
        let type = trimmedWhitespace(essence[0]).lowercased()
        let subtype = trimmedWhitespace(essence[1]).lowercased()
        guard !type.isEmpty, !subtype.isEmpty else { return nil }
        self.type = type
        self.subtype = subtype
        self.parameters = pieces.parameters
    }

    /// `type/subtype`, without parameters.
    var essence: String { "\(type)/\(subtype)" }

    /// Whether this is `*/*`.
    var isWildcard: Bool { type == "*" && subtype == "*" }

    /// The value of a parameter.
    ///
    /// - Parameter name: The parameter name, matched case-insensitively.
    /// - Returns: The first value with that name, or `nil`.
    func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// Whether `other` falls within this (possibly wildcard) type: `*/*` matches anything,
    /// `text/*` any text type, and `*/json` any type with the `json` subtype (Alamofire accepts
    /// the last form too, although RFC 9110 does not define it). Parameters are ignored.
    ///
    /// - Parameter other: A concrete response type.
    /// - Returns: Whether it is acceptable.
    func matches(_ other: MIMEType) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }

    static func == (lhs: MIMEType, rhs: MIMEType) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype
            && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// Splits header values of the form `value; name=value; name="quoted value"`, as used by
/// `Content-Type` (RFC 9110 §5.6.6) and `Content-Disposition` (RFC 6266 §4.1).
enum HeaderValueParameters {
    /// Returns the leading value and the parameters, names lower-cased.
    ///
    /// Quoted strings may contain `;` and backslash escapes. A parameter without `=` is skipped.
    static func split(_ string: String) -> (value: String, parameters: [(name: String, value: String)]) {
        var segments: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in string {
            if escaped {
                current.append(character)
                escaped = false
            } else if inQuotes && character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                current.append(character)
                inQuotes.toggle()
            } else if character == ";" && !inQuotes {
                segments.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        segments.append(current)
        let value = trimmedWhitespace(Substring(segments[0]))
        let parameters: [(name: String, value: String)] = segments.dropFirst().compactMap { segment in
            guard let equals = segment.firstIndex(of: "=") else { return nil }
            let name = trimmedWhitespace(segment[..<equals]).lowercased()
            guard !name.isEmpty else { return nil }
            return (name, unquoted(trimmedWhitespace(segment[segment.index(after: equals)...])))
        }
        return (value, parameters)
    }

    /// Removes surrounding quotes and backslash escapes from a quoted string (RFC 9110 §5.6.4).
    static func unquoted(_ string: String) -> String {
        guard string.count >= 2, string.first == "\"", string.last == "\"" else { return string }
        var result = ""
        var escaped = false
        for character in string.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Removes leading and trailing spaces and horizontal tabs (HTTP's optional whitespace, RFC 9110 §5.6.3)
/// plus line breaks.
func trimmedWhitespace(_ string: Substring) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
    guard let first = string.firstIndex(where: { !isSpace($0) }),
          let last = string.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(string[first...last])
}
