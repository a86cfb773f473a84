// `-n/--netrc`, `--netrc-optional`, `--netrc-file`: credentials from a .netrc file for the
// URL's host, as curl 7.88 reads them (lib/netrc.c): tokens separated by white space,
// `machine NAME` (exact, case-insensitive host match) or `default`, then `login` and
// `password`; `macdef` skips to the next blank line; a missing file means no credentials.
//
// Security: the credentials are for that host only. They go out as the first request's Basic
// Authorization, which Client's redirect rules drop for any other host (as `-u`'s), so a
// redirect never carries them elsewhere; `-u` and URL credentials win over the file.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A parsed .netrc file.
struct Netrc: Equatable {
    /// One `machine` (or `default`, with a nil host) entry.
    struct Entry: Equatable {
        var host: String?
        var login: String?
        var password: String?
    }

    /// The entries in file order.
    var entries: [Entry] = []

    /// Parses the file's text.
    init(_ text: String) {
        var tokens = Self.tokens(text)[...]
        var current: Entry?
        while let token = tokens.popFirst() {
            switch token {
            case "machine":
                if let current { entries.append(current) }
                current = Entry(host: tokens.popFirst())
            case "default":
                if let current { entries.append(current) }
                current = Entry(host: nil)
            case "login": current?.login = tokens.popFirst()
            case "password": current?.password = tokens.popFirst()
            case "account": _ = tokens.popFirst()
            default: break
            }
        }
        if let current { entries.append(current) }
    }

    /// The words of the file, `macdef` bodies left out, quoted words unquoted.
    static func tokens(_ text: String) -> [String] {
        var words: [String] = []
        var inMacro = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if inMacro {
                if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { inMacro = false }
                continue
            }
            let lineWords = Self.words(of: line)
            if let macro = lineWords.firstIndex(of: "macdef") {
                words += lineWords[..<macro]
                inMacro = true
            } else {
                words += lineWords
            }
        }
        return words
    }

    /// The words of one line: separated by white space; a word in double quotes may hold
    /// spaces and `\"`, `\\` escapes (curl 7.84 and later).
    static func words(of line: Substring) -> [String] {
        var words: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        var started = false
        for character in line {
            if inQuotes {
                if escaped { current.append(character); escaped = false }
                else if character == "\\" { escaped = true }
                else if character == "\"" { inQuotes = false }
                else { current.append(character) }
            } else if character == " " || character == "\t" || character == "\r" {
                if started { words.append(current); current = ""; started = false }
            } else if character == "\"" && !started {
                inQuotes = true
                started = true
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    /// `login:password` for `host` (with `user`, only that login's entry): the first machine
    /// entry naming the host, else `default`.
    func credentials(host: String, user: String? = nil) -> String? {
        let lowered = host.lowercased()
        let candidates = entries.filter { $0.host?.lowercased() == lowered } + entries.filter { $0.host == nil }
        for entry in candidates {
            guard let login = entry.login else { continue }
            if let user, user != login { continue }
            return login + ":" + (entry.password ?? "")
        }
        return nil
    }

    /// The file `--netrc-file` names, or `$HOME/.netrc`; nil when it cannot be read.
    static func load(_ extras: FetchExtras) -> Netrc? {
        let path = extras.netrcFile ?? (getenv("HOME").map { String(cString: $0) + "/.netrc" } ?? ".netrc")
        guard let data = readFile(path) else { return nil }
        return Netrc(String(decoding: data, as: UTF8.self))
    }
}
