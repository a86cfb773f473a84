// The `Sec-WebSocket-Extensions` field's grammar (RFC 6455 §9.1), read strictly:
//
//   extension-list  = 1#extension
//   extension       = extension-token *( ";" extension-param )
//   extension-param = token [ "=" ( token / quoted-string ) ]
//
// with optional whitespace around `,`, `;` and `=` (RFC 6455 §2.1 keeps RFC 2616's implied LWS),
// empty list elements skipped (RFC 9110 §5.6.1: a recipient MUST accept them), and a quoted value
// unescaped and then required to be a token (RFC 6455 §9.1: "the value after quoted-string
// unescaping MUST conform to the 'token' ABNF"). Several fields combine as one list, in order.
//
// A pure function of the field values, so `WebSocketExtensionListTests` covers it without a server.

/// One element of a `Sec-WebSocket-Extensions` list: a name and its parameters, in order.
struct WebSocketExtension: Equatable, Sendable {
    /// A parameter: a name and an optional value (already unquoted).
    struct Parameter: Equatable, Sendable {
        var name: String
        var value: String?
    }

    /// The extension's token, as sent (compare case-insensitively: tokens are).
    var name: String
    /// Its parameters, in the order sent.
    var parameters: [Parameter]

    /// The parsed list of all `values` (each one field's value), or `nil` when any is off the grammar.
    static func parseList(_ values: [String]) -> [WebSocketExtension]? {
        var result: [WebSocketExtension] = []
        for value in values {
            var cursor = Cursor(Array(value.utf8))
            guard let list = cursor.extensionList() else { return nil }
            result += list
        }
        return result
    }

    /// The element as it is written in a field: `name; p1; p2=v`.
    var fieldValue: String {
        ([name] + parameters.map { p in p.value.map { "\(p.name)=\($0)" } ?? p.name }).joined(separator: "; ")
    }
}

/// A byte cursor over one field value.
private struct Cursor {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { i == bytes.count }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
    }

    mutating func take(_ b: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == b else { return false }
        i += 1
        return true
    }

    /// A token (RFC 9110 §5.6.2), or `nil` when none starts here.
    mutating func token() -> String? {
        let start = i
        while i < bytes.count, Self.isTokenByte(bytes[i]) { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    /// A quoted-string's content, unescaped (RFC 9110 §5.6.4), or `nil` when malformed.
    mutating func quotedString() -> String? {
        guard take(0x22) else { return nil }
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case 0x22: return String(decoding: out, as: UTF8.self)
            case 0x5C:
                guard i < bytes.count, Self.isQuotedTextByte(bytes[i]) || bytes[i] == 0x22 || bytes[i] == 0x5C else { return nil }
                out.append(bytes[i])
                i += 1
            default:
                guard Self.isQuotedTextByte(b) else { return nil }
                out.append(b)
            }
        }
        return nil
    }

    /// `1#extension` up to the end of the value.
    mutating func extensionList() -> [WebSocketExtension]? {
        var list: [WebSocketExtension] = []
        while true {
            skipWhitespace()
            if atEnd { break }
            if take(0x2C) { continue }  // an empty element
            guard let name = token() else { return nil }
            var parameters: [WebSocketExtension.Parameter] = []
            skipWhitespace()
            while take(0x3B) {
                skipWhitespace()
                guard let parameter = token() else { return nil }
                skipWhitespace()
                var value: String?
                if take(0x3D) {
                    skipWhitespace()
                    if i < bytes.count, bytes[i] == 0x22 {
                        guard let quoted = quotedString(), !quoted.isEmpty, quoted.utf8.allSatisfy(Self.isTokenByte) else { return nil }
                        value = quoted
                    } else {
                        guard let plain = token() else { return nil }
                        value = plain
                    }
                    skipWhitespace()
                }
                parameters.append(.init(name: parameter, value: value))
            }
            list.append(WebSocketExtension(name: name, parameters: parameters))
            guard atEnd || take(0x2C) else { return nil }
        }
        return list.isEmpty ? nil : list
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// qdtext (RFC 9110 §5.6.4): HTAB, SP, VCHAR but `"` and `\`, obs-text.
    static func isQuotedTextByte(_ b: UInt8) -> Bool {
        b == 0x09 || b == 0x20 || (b >= 0x21 && b != 0x22 && b != 0x5C && b != 0x7F)
    }
}
