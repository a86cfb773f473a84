#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

extension String.Encoding {
    /// The encoding for an IANA charset name, as found in a `Content-Type` `charset` parameter.
    ///
    /// Names are case-insensitive and may be quoted. Covers the UTF family, US-ASCII, ISO-8859-1,
    /// Windows-1252 and Mac Roman; others give `nil`. Which encodings can actually decode depends
    /// on the build: FoundationEssentials decodes UTF-8/16/32, ASCII, ISO-8859-1 and Mac Roman.
    ///
    /// - Parameter name: The charset name, for example `UTF-8` or `"iso-8859-1"`.
    init?(ianaCharsetName name: String) {
        switch HeaderValueParameters.unquoted(trimmedWhitespace(Substring(name))).lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "us-ascii", "ascii": self = .ascii
        case "iso-8859-1", "iso_8859-1", "latin1", "l1": self = .isoLatin1
        case "windows-1252", "cp1252": self = .windowsCP1252
        case "macintosh", "mac", "x-mac-roman": self = .macOSRoman
        case "utf-16", "unicode-1-1", "iso-10646-ucs-2": self = .utf16
        case "utf-16be": self = .utf16BigEndian
        case "utf-16le": self = .utf16LittleEndian
        case "utf-32": self = .utf32
        case "utf-32be": self = .utf32BigEndian
        case "utf-32le": self = .utf32LittleEndian
        default: return nil
        }
    }
}
