// firstOccurrence(of:) and containsText(_:) (Client's substring search without the regex
// engine) against the standard library's firstRange(of:), which they replace in Client and
// fetch: the same range for every row, in Strings and in Substrings that do not start at 0.
import Testing
@testable import Transport

@Suite("Text search without the regex engine")
struct TextSearchTests {
    /// (haystack, needle): the scheme separators, header tokens and edge cases the callers see.
    static let rows: [(String, String)] = [
        ("http://h/", "://"), ("socks5h://u:p@h:1", "://"), ("h:80", "://"), ("", "://"), (":/", "://"),
        ("a:/:://b", "://"), ("://", "://"), ("x://y://z", "://"),
        ("attachment; filename=\"a.txt\"", "filename="), ("filename", "filename="), ("ffilename=x", "filename="),
        ("no-cache", "no-cache"), ("x, no-cachy, no-cache", "no-cache"), ("NO-CACHE", "no-cache"),
        ("abc", ""), ("", ""), ("aab", "ab"), ("aaab", "aab"), ("abab", "bab"), ("short", "longer than it"),
        ("caf\u{E9}://x", "://"), ("e\u{301}://", "://"), ("\u{1F1EB}\u{1F1F7}://", "://"), ("a\r\nb", "\r\n"),
    ]

    @Test(arguments: rows)
    func agreesWithFirstRange(haystack: String, needle: String) {
        #expect(haystack.firstOccurrence(of: needle) == haystack.firstRange(of: needle), "\(haystack) / \(needle)")
        #expect(haystack.containsText(needle) == (haystack.firstRange(of: needle) != nil))
        // In a Substring that starts past index 0: the range is in the base string's indices.
        let shifted = "zz" + haystack
        let tail = shifted.dropFirst(2)
        #expect(tail.firstOccurrence(of: needle) == tail.firstRange(of: needle), "shifted \(haystack) / \(needle)")
    }
}
