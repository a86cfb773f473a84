// The challenges of a `WWW-Authenticate` field (RFC 9110 §11.6.1), parsed without Foundation:
//
//   WWW-Authenticate = #challenge
//   challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//   auth-param       = token BWS "=" BWS ( token / quoted-string )
//
// One field may hold several challenges separated by commas, the same separator as between
// parameters: after a comma, `token =` continues the current challenge's parameters, a bare
// token starts the next challenge (§11.6.1's note). Parameter names are case-insensitive and
// lowercased here; scheme names too (§11.1). Bad input gives `nil`, never a trap; every size
// the server chooses is bounded (``AuthenticationChallenge/Limits``).

/// One challenge from a `WWW-Authenticate` field.
package struct AuthenticationChallenge: Equatable, Sendable {
    /// The scheme, lowercased (`basic`, `digest`, ...).
    package var scheme: String
    /// The token68 form's value (`Negotiate abc==`), `nil` when parameters follow instead.
    package var token68: String?
    /// The parameters in order, names lowercased, quoted values unescaped.
    package var parameters: [(name: String, value: String)]

    /// The value of parameter `name` (lowercase), the first one when repeated.
    package subscript(_ name: String) -> String? { parameters.first { $0.name == name }?.value }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.scheme == rhs.scheme && lhs.token68 == rhs.token68
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name) && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// Bounds on what a server can make the parser hold.
    package enum Limits {
        /// Longest field value parsed, in bytes: 16 KiB (a Digest challenge is about 200).
        package static let maxFieldLength = 16 * 1024
        /// Most challenges taken from all fields together.
        package static let maxChallenges = 16
        /// Most parameters in one challenge.
        package static let maxParameters = 32
    }

    /// The challenges in the values of every `WWW-Authenticate` field of a response.
    /// - Parameter fields: The field values, in order.
    /// - Returns: The challenges; `nil` when any value is malformed or over a limit.
    package static func parse(fields: [String]) -> [AuthenticationChallenge]? {
        var all: [AuthenticationChallenge] = []
        for field in fields {
            guard let challenges = parse(field) else { return nil }
            all += challenges
            guard all.count <= Limits.maxChallenges else { return nil }
        }
        return all
    }

    /// The challenges in one field value.
    /// - Parameter field: The value.
    /// - Returns: The challenges; `nil` when malformed or over a limit.
    package static func parse(_ field: String) -> [AuthenticationChallenge]? {
        let bytes = Array(field.utf8)
        guard bytes.count <= Limits.maxFieldLength else { return nil }
        var parser = Parser(bytes: bytes)
        return parser.challenges()
    }
}

/// A cursor over one field value.
private struct Parser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[index] }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// RFC 9110 §11.2 token68 characters before the `=` padding.
    private static func isToken68Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~+/".utf8).contains(byte)
        }
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Skips whitespace and empty list elements (`, ,`), as RFC 9110 §5.6.1 asks of recipients.
    /// Returns whether at least one comma was skipped.
    private mutating func skipSeparators() -> Bool {
        var sawComma = false
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: ",") else { return sawComma }
            sawComma = true
            index += 1
        }
    }

    private mutating func token() -> String? {
        let start = index
        while let byte = current, Self.isTokenByte(byte) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted-string (RFC 9110 §5.6.4), unescaped; the cursor is on its opening quote.
    private mutating func quotedString() -> String? {
        index += 1
        var value: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current, escaped == 0x09 || escaped >= 0x20, escaped != 0x7F else { return nil }
                value.append(escaped)
                index += 1
            case 0x09, 0x20...0x7E, 0x80...0xFF:
                value.append(byte)
            default:
                return nil  // a control byte
            }
        }
        return nil  // unterminated
    }

    /// Whether a token68 starts here: token68 bytes, `=` padding, then the end or a comma.
    private func token68Length() -> Int? {
        var probe = index
        while probe < bytes.count, Self.isToken68Byte(bytes[probe]) { probe += 1 }
        guard probe > index else { return nil }
        while probe < bytes.count, bytes[probe] == UInt8(ascii: "=") { probe += 1 }
        var end = probe
        while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        return end == bytes.count || bytes[end] == UInt8(ascii: ",") ? probe - index : nil
    }

    mutating func challenges() -> [AuthenticationChallenge]? {
        var result: [AuthenticationChallenge] = []
        _ = skipSeparators()
        while !atEnd {
            guard let scheme = token() else { return nil }
            var challenge = AuthenticationChallenge(scheme: scheme.lowercased(), token68: nil, parameters: [])
            let hadSpace = current == UInt8(ascii: " ") || current == UInt8(ascii: "\t")
            skipWhitespace()
            if hadSpace, !atEnd, current != UInt8(ascii: ",") {
                // token68 (bytes, `=` padding, then the end or a comma), else `name=value` pairs:
                // `realm=x` is not token68 because `x` follows the `=`.
                if let length = token68Length() {
                    challenge.token68 = String(decoding: bytes[index..<index + length], as: UTF8.self)
                    index += length
                } else {
                    guard parameters(into: &challenge) else { return nil }
                }
            }
            result.append(challenge)
            guard result.count <= AuthenticationChallenge.Limits.maxChallenges else { return nil }
            let sawComma = skipSeparators()
            guard atEnd || sawComma else { return nil }
        }
        return result
    }

    /// Reads `name = value` pairs until the next challenge's scheme or the end.
    private mutating func parameters(into challenge: inout AuthenticationChallenge) -> Bool {
        while true {
            guard let name = token() else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: "=") else { return false }
            index += 1
            skipWhitespace()
            let value: String
            if current == UInt8(ascii: "\"") {
                guard let quoted = quotedString() else { return false }
                value = quoted
            } else {
                guard let plain = token() else { return false }
                value = plain
            }
            challenge.parameters.append((name.lowercased(), value))
            guard challenge.parameters.count <= AuthenticationChallenge.Limits.maxParameters else { return false }
            // After a comma: `name =` continues; anything else is the next challenge.
            let save = index
            guard skipSeparators() else {
                index = save
                skipWhitespace()
                return atEnd
            }
            if atEnd { return true }
            let next = index
            _ = token()
            skipWhitespace()
            let continues = current == UInt8(ascii: "=")
            index = continues ? next : save
            if !continues { return true }
        }
    }
}
