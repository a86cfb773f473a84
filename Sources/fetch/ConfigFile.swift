// curl's -K/--config files: one option per line, `--` optional, the value after whitespace, `=`
// or `:`; double-quoted values with \" \\ \t \n \r \v escapes; `#` lines are comments; a line
// `url = X` gives a URL. Read into an argument vector that ArgumentWalker walks like argv.
import FoundationEssentials

/// curl's config-file syntax.
enum ConfigFile {
    /// The file's text (`-` is standard input), or nil when it cannot be read.
    static func readText(_ path: String) -> String? {
        readFile(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The argument vector the file's lines stand for.
    ///
    /// - Throws: ``FetchUsageError`` for an unterminated quoted value.
    static func arguments(_ text: String, path: String) throws(FetchUsageError) -> [String] {
        var arguments: [String] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.drop(while: { $0 == " " || $0 == "\t" })
            if line.last == "\r" { line = line.dropLast() }
            if line.isEmpty || line.first == "#" { continue }
            let nameEnd = line.firstIndex(where: { $0 == " " || $0 == "\t" || $0 == "=" || $0 == ":" }) ?? line.endIndex
            var name = String(line[..<nameEnd])
            if !name.hasPrefix("-") { name = "--" + name }
            // Separators: spaces, then at most one `=` or `:`, then spaces.
            var rest = line[nameEnd...].drop(while: { $0 == " " || $0 == "\t" })
            if rest.first == "=" || rest.first == ":" { rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" }) }
            arguments.append(name)
            if takesValue(name) {
                guard let value = try value(rest) else {
                    throw FetchUsageError(description: "\(path):\(number + 1): unterminated quoted value")
                }
                arguments.append(value)
            }
        }
        return arguments
    }

    /// Whether the option named `name` (`--long` or `-x`) takes a value in the table.
    private static func takesValue(_ name: String) -> Bool {
        if name == "--config" || name == "-K" { return true }
        if name.hasPrefix("--") { return OptionTable.long(String(name.dropFirst(2)))?.takesValue ?? false }
        if name.count == 2, let letter = name.last { return OptionTable.short(letter)?.takesValue ?? false }
        return false
    }

    /// A value: quoted (escapes processed) or up to the first whitespace. Nil if a quote is open.
    private static func value(_ text: Substring) throws(FetchUsageError) -> String? {
        guard text.first == "\"" else {
            return String(text.prefix(while: { $0 != " " && $0 != "\t" }))
        }
        var result = ""
        var escaped = false
        for character in text.dropFirst() {
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
                return result
            } else {
                result.append(character)
            }
        }
        return nil
    }
}
