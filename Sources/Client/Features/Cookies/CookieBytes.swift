#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// A cookie's name and value are bytes (RFC 6265bis §5.6: cookie-octets and, as browsers and
// curl keep them, obs-text 0x80-0xFF). The rule: what a server set is what goes back, byte for
// byte, in the `Cookie` field and in a jar file (curl 7.88 does the same). `HTTPCookie.name` and
// `.value` are `String`s, so each cookie also carries a text view of its bytes:
// - UTF-8 when the bytes are valid UTF-8 (nearly always; nothing else is stored then);
// - otherwise one ISO-8859-1 character per byte (0xE9 reads "é"), the bytes kept beside it.
//   Latin-1 rather than U+FFFD: the view stays one-to-one with the bytes, so two cookies whose
//   bytes differ never read alike, and a user who copies `value` into a field by hand can map it
//   back.
// A cookie made from strings (`init(properties:)`, a header field a user set) is its UTF-8.

/// The conversions between a cookie's bytes and its text view.
enum CookieBytes {
    /// The text view of `bytes`: UTF-8 where valid as a whole, else ISO-8859-1, one character per byte.
    ///
    /// - Parameter bytes: A name's or value's bytes.
    /// - Returns: The text.
    static func text(of bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return latin1Text(of: bytes)
    }

    /// `bytes` as ISO-8859-1 text: each byte the character with its code point.
    ///
    /// - Parameter bytes: Any bytes.
    /// - Returns: The text.
    static func latin1Text(of bytes: some Sequence<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// The bytes of ISO-8859-1 text made by ``latin1Text(of:)``.
    ///
    /// - Parameter text: Text whose characters are all U+0000...U+00FF.
    /// - Returns: One byte per character.
    static func latin1Bytes(of text: some StringProtocol) -> [UInt8] {
        text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    }

    /// `bytes` when `text` (their view) does not spell them in UTF-8, else `nil`: what a cookie
    /// stores beside its string.
    ///
    /// - Parameters:
    ///   - bytes: The bytes received.
    ///   - text: Their text view.
    /// - Returns: The bytes to keep, or `nil`.
    static func received(_ bytes: [UInt8], shownAs text: String) -> [UInt8]? {
        text.utf8.elementsEqual(bytes) ? nil : bytes
    }
}

/// A `Cookie` field's value: text when every cookie is its strings' UTF-8 (the usual case, no
/// copy), the bytes otherwise.
enum CookieFieldValue: Sendable, Equatable {
    /// The value as text.
    case text(String)
    /// The value as bytes, some of them not UTF-8.
    case bytes([UInt8])

    /// `a=1; b=2` for `cookies` (RFC 6265 §5.4 step 4), as the bytes each cookie received.
    ///
    /// - Parameter cookies: The cookies to send, in order.
    init(_ cookies: [HTTPCookie]) {
        guard !cookies.allSatisfy(\.isUTF8) else {
            self = .text(HTTPCookie.cookieFieldValue(cookies))
            return
        }
        var bytes: [UInt8] = []
        for cookie in cookies {
            if !bytes.isEmpty { bytes.append(contentsOf: "; ".utf8) }
            bytes.append(contentsOf: cookie.nameBytes)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: cookie.valueBytes)
        }
        self = .bytes(bytes)
    }
}
