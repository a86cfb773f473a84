// curl's URL globbing (tool_urlglob.c in 7.88, re-implemented): `{one,two}` sets, `[1-10]`,
// `[001-100:10]` (leading zeros pad every value), `[a-z:2]` ranges; `\` escapes `[ ] { }`; an
// IPv6 literal (`[::1]`) and `[]` stay as written. URLs come out with the last pattern changing
// fastest. `#N` in `-o` names the Nth pattern's current value. Errors carry curl's wording and
// 1-based position, printed with the URL and a caret under the position (exit 3).
//
// Bounds: at most 100 pieces per URL (curl's GLOB_PATTERN_NUM) and, ours, at most 1,000,000
// URLs per glob: a typed error instead of an unbounded list.

/// One URL pattern, parsed.
struct URLGlob: Equatable {
    /// A piece of the URL: fixed text or a list of values.
    enum Piece: Equatable {
        /// Text as written.
        case fixed(String)
        /// A set or range: its values in order.
        case values([String])
    }

    /// Why a URL is not a valid glob (curl's CURLE_URL_MALFORMAT, exit 3).
    struct Failure: Error, Equatable {
        /// curl's reason ("bad range", "unmatched brace", …).
        var reason: String
        /// 1-based column in the URL, 0 when curl names none.
        var position: Int
        /// curl's message: the reason, and with a position the URL and a caret line.
        func message(url: String) -> String {
            guard position > 0 else { return reason }
            return "\(reason) in URL position \(position):\n\(url)\n\(String(repeating: " ", count: position - 1))^"
        }
    }

    /// The pieces in order.
    var pieces: [Piece]

    /// Most URLs one glob may produce.
    static let maxURLs = 1_000_000

    /// Parses `url`.
    ///
    /// - Throws: ``Failure`` for malformed sets and ranges.
    init(_ url: String) throws(Failure) {
        let characters = Array(url)
        var pieces: [Piece] = []
        var index = 0
        var literal = ""
        var total = 1
        func flush() {
            if !literal.isEmpty { pieces.append(.fixed(literal)); literal = "" }
        }
        while index < characters.count {
            let character = characters[index]
            if character == "[" {
                if let skip = Self.literalBracket(characters, index) {
                    literal += String(characters[index..<index + skip])
                    index += skip
                    continue
                }
                flush()
                let (values, next) = try Self.range(characters, from: index + 1)
                pieces.append(.values(values))
                total = try Self.multiplied(total, values.count, position: next)
                index = next
            } else if character == "{" {
                flush()
                let (values, next) = try Self.set(characters, from: index + 1)
                pieces.append(.values(values))
                total = try Self.multiplied(total, values.count, position: 0)
                index = next
            } else if character == "}" || character == "]" {
                throw Failure(reason: "unmatched close brace/bracket", position: index + 1)
            } else {
                if character == "\\", index + 1 < characters.count, "[]{}".contains(characters[index + 1]) { index += 1 }
                literal.append(characters[index])
                index += 1
            }
            if pieces.count >= 100 { throw Failure(reason: "too many globs", position: index + 1) }
        }
        flush()
        self.pieces = pieces
    }

    /// Every URL, last pattern fastest, with the values of its patterns (for `#N`).
    var expansions: [(url: String, values: [String])] {
        var results: [(String, [String])] = [("", [])]
        for piece in pieces {
            switch piece {
            case .fixed(let text): results = results.map { ($0.0 + text, $0.1) }
            case .values(let values): results = results.flatMap { prefix in values.map { (prefix.0 + $0, prefix.1 + [$0]) } }
            }
        }
        return results.map { (url: $0.0, values: $0.1) }
    }

    /// `-o NAME` with `#N` replaced by pattern N's value (1-based); an `#N` past the patterns
    /// stays as written (curl).
    static func outputName(_ template: String, values: [String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let hash = rest.firstIndex(of: "#") {
            result += rest[..<hash]
            let digits = rest[rest.index(after: hash)...].prefix(while: \.isASCII).prefix(while: \.isNumber)
            if let number = Int(digits), number >= 1, number <= values.count {
                result += values[number - 1]
            } else {
                result += "#" + digits
            }
            rest = rest[digits.endIndex...]
        }
        return result + rest
    }

    /// `[` at `index` that is not a range: `[]`, or an IPv6 literal (hex digits, `:` and `.`
    /// with at least two colons, no `-`); returns how many characters to copy.
    private static func literalBracket(_ characters: [Character], _ index: Int) -> Int? {
        guard let close = characters[index...].firstIndex(of: "]") else { return nil }
        if close == index + 1 { return 2 }
        let inside = characters[(index + 1)..<close]
        let colons = inside.filter { $0 == ":" }.count
        let allowed = inside.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" || $0.isLetter || $0.isNumber }
        guard colons >= 2, allowed, !inside.contains("-") else { return nil }
        return close - index + 1
    }

    /// A `{a,b}` set starting after the brace; returns its values and the index after `}`.
    private static func set(_ characters: [Character], from start: Int) throws(Failure) -> ([String], Int) {
        var values: [String] = []
        var current = ""
        var index = start
        while true {
            guard index < characters.count else { throw Failure(reason: "unmatched brace", position: start) }
            let character = characters[index]
            switch character {
            case "{", "[": throw Failure(reason: "nested brace", position: index + 1)
            case "]": throw Failure(reason: "unexpected close bracket", position: index + 1)
            case "}":
                if index == start { throw Failure(reason: "empty string within braces", position: index + 1) }
                values.append(current)
                return (values, index + 1)
            case ",":
                values.append(current)
                current = ""
                index += 1
            case "\\" where index + 1 < characters.count:
                current.append(characters[index + 1])
                index += 2
            default:
                current.append(character)
                index += 1
            }
        }
    }

    /// A `[x-y(:step)]` range starting after the bracket; returns its values and the index after
    /// `]`. Scanned as curl scans it, so that a failure names curl's position: one past where
    /// the scan stopped.
    private static func range(_ characters: [Character], from start: Int) throws(Failure) -> ([String], Int) {
        func at(_ index: Int) -> Character? { index < characters.count ? characters[index] : nil }
        func isDigit(_ index: Int) -> Bool { at(index).map { $0.isASCII && $0.isNumber } ?? false }
        /// Digits from `index`: their value (nil on overflow or none) and the index after them.
        func number(_ index: Int) -> (Int?, Int) {
            var end = index
            while isDigit(end) { end += 1 }
            return (end > index ? Int(String(characters[index..<end])) : nil, end)
        }
        guard let first = at(start), first.isASCII, first.isLetter || first.isNumber else {
            throw Failure(reason: "bad range specification", position: start + 1)
        }
        if first.isLetter {
            // curl: sscanf("%c-%c%c"), then an optional ":step" before the `]`.
            var cursor = start
            var step = 1
            let scanned = at(start + 1) == "-" && at(start + 2) != nil && at(start + 3) != nil
            var wellFormed = scanned
            if scanned, at(start + 3) == ":" {
                let (value, end) = number(start + 4)
                if let value, at(end) == "]" { step = value; cursor = end + 1 } else { step = 0 }
            } else if scanned, at(start + 3) == "]" {
                cursor = start + 4
            } else {
                wellFormed = false
            }
            let low = Int(first.asciiValue ?? 0), high = Int(at(start + 2)?.asciiValue ?? 0)
            guard wellFormed, step > 0, low == high ? step == 1 : (low < high && step <= high - low && high - low <= 25) else {
                throw Failure(reason: "bad range", position: cursor + 1)
            }
            return (stride(from: low, through: high, by: step).map { String(UnicodeScalar(UInt8($0))) }, cursor)
        }
        // Numeric: digits, `-`, blanks, digits, optional `:step`, `]`.
        let width = first == "0" ? number(start).1 - start : 0
        let (low, afterLow) = number(start)
        var cursor = start
        var high: Int?
        var step: Int?
        var closed = false
        if low != nil, at(afterLow) == "-" {
            cursor = afterLow + 1
            while at(cursor) == " " || at(cursor) == "\t" { cursor += 1 }
            if isDigit(cursor) {
                let (value, afterHigh) = number(cursor)
                high = value
                var end = afterHigh
                if value != nil, at(afterHigh) == ":" {
                    cursor = afterHigh + 1
                    let (stepValue, afterStep) = number(cursor)
                    step = stepValue ?? 0
                    end = afterStep
                } else {
                    step = 1
                }
                if value != nil, at(end) == "]" { cursor = end + 1; closed = true }
            }
        }
        guard closed, let low, let high, let step, step > 0, low == high ? step == 1 : (low < high && step <= high - low) else {
            throw Failure(reason: "bad range", position: cursor + 1)
        }
        guard (high - low) / step < maxURLs else { throw Failure(reason: "range overflow", position: cursor + 1) }
        let values = stride(from: low, through: high, by: step).map { value in
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return (values, cursor)
    }

    /// `total × count`, or curl's "range overflow" past ``maxURLs``.
    private static func multiplied(_ total: Int, _ count: Int, position: Int) throws(Failure) -> Int {
        let (product, overflow) = total.multipliedReportingOverflow(by: count)
        guard !overflow, product <= maxURLs else { throw Failure(reason: "range overflow", position: position) }
        return product
    }
}
