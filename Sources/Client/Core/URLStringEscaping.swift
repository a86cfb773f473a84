// A URL string's path, query and fragment made valid without touching the escapes already in
// it, so `URL(string:)` has nothing left to encode. Foundation's `URL(string:)` (swift-foundation,
// `encodingInvalidCharacters`) re-encodes a whole component once any character in it is invalid,
// `%` included: `http://h/a|b%3D` became `/a%7Cb%253D`, a different resource. curl sends the escapes
// it was given; so does Lariat (issue 25, item 7).

/// Percent-encodes what may not appear in a URL's path, query or fragment, keeping `%XX`.
enum URLStringEscaping {
    /// `text` with every byte after the authority that RFC 3986 does not allow there written
    /// `%XX` (upper-case), a `%` not followed by two hex digits written `%25`, and a second `#`
    /// written `%23`. The scheme and authority are left to `URL` and ``HostName``. A string without
    /// `://`, or with nothing to escape, is returned as it is.
    static func escapingInvalidCharacters(_ text: String) -> String {
        // Scanned in place: a URL with nothing to escape (every request made from a string)
        // costs no allocation here (the round-trip allocation benchmark counts them).
        if let result = text.utf8.withContiguousStorageIfAvailable({ escaping($0, original: text) }) { return result }
        return Array(text.utf8).withUnsafeBufferPointer { escaping($0, original: text) }
    }

    private static func escaping(_ bytes: UnsafeBufferPointer<UInt8>, original text: String) -> String {
        var schemeEnd: Int? = nil
        if bytes.count >= 3 {
            for position in 0...(bytes.count - 3)
            where bytes[position] == UInt8(ascii: ":") && bytes[position + 1] == UInt8(ascii: "/") && bytes[position + 2] == UInt8(ascii: "/") {
                schemeEnd = position + 3
                break
            }
        }
        guard var index = schemeEnd else { return text }
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            index += 1
        }
        var hashes = 0
        var needed = false
        for position in index..<bytes.count {
            if bytes[position] == UInt8(ascii: "#") { hashes += 1 }
            if needsEscape(bytes, at: position, fragmentSeen: false) {
                needed = true
                break
            }
        }
        guard needed || hashes > 1 else { return text }
        var output = Array(bytes[..<index])
        var fragmentSeen = false
        let hex = Array("0123456789ABCDEF".utf8)
        for position in index..<bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "#") && !fragmentSeen {
                fragmentSeen = true
                output.append(byte)
            } else if needsEscape(bytes, at: position, fragmentSeen: fragmentSeen) {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether the byte at `position` must be escaped: not unreserved, not a sub-delimiter, not
    /// `:` `@` `/` `?`, not the first `#`, and not the `%` of a valid escape.
    private static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, fragmentSeen: Bool) -> Bool {
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return false
        case UInt8(ascii: "#"):
            return fragmentSeen
        case UInt8(ascii: "%"):
            return !(position + 2 < bytes.count && isHex(bytes[position + 1]) && isHex(bytes[position + 2]))
        default:
            return true
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
