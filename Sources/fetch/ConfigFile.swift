// curl's -K/--config files, read as curl 7.88 reads them (src/tool_parsecfg.c): one option per
// line; a line whose first non-blank character is `#`, `/`, `*` or nothing is skipped; a name
// without a leading `-` is a long option and may be followed by `=` or `:`; the value is
// double-quoted (with \" \\ \t \n \r \v escapes) or runs to the next white space (anything after
// it draws curl's "unquoted whitespace" warning). A bad line is a warning naming the file and
// line, never the end of the run. Without `-q` first, `.curlrc` is read before the command
// line from $CURL_HOME, $XDG_CONFIG_HOME, $HOME, then $CURL_HOME/.config and $HOME/.config
// (the last two without the dot), as curl's findfile does.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// curl's config-file syntax.
enum ConfigFile {
    /// One option line.
    struct Line: Equatable {
        /// 1-based line number.
        var number: Int
        /// The option as written (`--long`, `-x`, or a bare long name).
        var option: String
        /// The value, nil when the line has none.
        var value: String?
        /// Text after an unquoted value (curl warns about it).
        var trailingText = false

        /// The option as a command-line argument (`url` becomes `--url`).
        var argument: String { option.hasPrefix("-") ? option : "--" + option }
    }

    /// The file's text (`-` is standard input), or nil when it cannot be read.
    static func readText(_ path: String) -> String? {
        readFile(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The `.curlrc` curl would read, given the environment `variable` (nil if none exists).
    static func defaultPath(_ variable: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String? {
        let xdg = variable("XDG_CONFIG_HOME").map { !$0.isEmpty } ?? false
        var candidates: [String] = []
        for name in ["CURL_HOME", "XDG_CONFIG_HOME", "HOME"] {
            if let home = variable(name), !home.isEmpty { candidates.append(home + "/.curlrc") }
        }
        if !xdg {
            for name in ["CURL_HOME", "HOME"] {
                if let home = variable(name), !home.isEmpty { candidates.append(home + "/.config/curlrc") }
            }
        }
        return candidates.first { access($0, R_OK) == 0 }
    }

    /// The option lines of `text`.
    static func lines(_ text: String) -> [Line] {
        var result: [Line] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.drop(while: { $0.isWhitespace })
            if line.last == "\r" { line = line.dropLast() }
            guard let first = line.first, !"#/*".contains(first) else { continue }
            let dashed = first == "-"
            let isSeparator = { (character: Character) in character.isWhitespace || (!dashed && (character == "=" || character == ":")) }
            let nameEnd = line.firstIndex(where: isSeparator) ?? line.endIndex
            let option = String(line[..<nameEnd])
            var rest = line[nameEnd...].drop(while: isSeparator)
            var parsed = Line(number: index + 1, option: option, value: nil)
            if rest.first == "\"" {
                parsed.value = unquoted(rest.dropFirst())
            } else {
                let value = rest.prefix { !$0.isWhitespace }
                rest = rest[value.endIndex...].drop(while: { $0.isWhitespace })
                parsed.trailingText = !(rest.isEmpty || rest.first == "#")
                parsed.value = value.isEmpty ? nil : String(value)
            }
            result.append(parsed)
        }
        return result
    }

    /// A quoted value after its opening quote, escapes processed, up to the closing quote (or
    /// the end of the line, as curl).
    private static func unquoted(_ text: Substring) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "t": result.append("\t")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "v": result.append("\u{0B}")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                result.append(character)
            }
        }
        return result
    }
}
