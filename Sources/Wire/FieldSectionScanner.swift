// A resumable scanner for a header section (status line + field lines) or a trailer section.
//
// Lines are handled whole: the scanner first finds a line's LF with a wide search, then validates
// the line in one pass. When a line is incomplete it remembers where the LF search stopped, so bytes
// that arrive one at a time are searched once and each line is validated once after it completes:
// O(n) in total however the input is split (picohttpparser's `last_len`, h11's receive buffer).
//
// Split invariance: a line is judged only when complete, limits are checked before a line's content
// (against the line's end, or against the bytes available for an incomplete line), and the one early
// check on an incomplete line (the `HTTP/` prefix) reports exactly what the full check would. So the
// first error, its rule and its offset do not depend on how the input was split.
//
// All offsets here are relative to the section start; the caller rebases them.

/// The parsed status line of a header section.
struct StatusLine: Sendable {
    var version: HTTPVersion
    var status: Int
    var reason: Range<Int>
}

/// Resumable state for scanning one field section.
struct FieldSectionScanner: Sendable {
    /// Header section (starts with a status line) or trailer section (fields only).
    enum Kind: Sendable { case header, trailer }

    let kind: Kind
    /// Where the next unprocessed line starts.
    private(set) var lineStart = 0
    /// Where to resume the search for the pending line's LF.
    private var searchFrom = 0
    /// The status line, once parsed (header sections only).
    private(set) var statusLine: StatusLine?

    init(kind: Kind) { self.kind = kind }

    /// Bytes of the section seen so far without completing it: how much of an unfinished section
    /// `finish()` must report as truncated.
    var hasPartialInput: Bool { searchFrom > 0 }

    /// Scans `p[0..<end]`, appending complete field lines to `fields`.
    ///
    /// - Returns: the section's length (through the empty line's LF) once it is complete, or `nil`
    ///   when more bytes are needed.
    /// - Throws: ``WireError`` with section-relative offsets.
    mutating func scan(
        _ p: UnsafeRawPointer, end: Int, fields: inout [FieldRange], limits: ParserLimits
    ) throws(WireError) -> Int? {
        let sectionLimit = kind == .header ? limits.maxHeaderSectionSize : limits.maxTrailerSectionSize
        if kind == .header && statusLine == nil && searchFrom == 0 {
            // Fast path for a complete, valid status line within both limits, the first time the
            // section is seen; anything else is left to the slow path, which alone decides errors.
            let limit = min(end, Self.statusLineLimit(limits, sectionLimit: sectionLimit))
            if let (line, lineEnd) = Self.fastStatusLine(p, end: limit) {
                statusLine = line
                lineStart = lineEnd
                searchFrom = lineEnd
            }
        }
        while true {
            if searchFrom <= lineStart && (kind == .trailer || statusLine != nil) {
                // Fast path: one pass over a complete, valid field line that ends within the
                // section limit. Anything else (an error, an incomplete line, obs-fold, the empty
                // line) falls through to the slow path, which alone decides errors, so the outcome
                // is the same however the input was split.
                // It stops before the field that would pass `maxFieldCount`: the slow path throws.
                lineStart = Self.fastFieldLines(
                    p, from: lineStart, end: min(end, sectionLimit), fields: &fields, maxCount: limits.maxFieldCount
                )
                searchFrom = lineStart
                // The empty line that ends the section, within the section limit.
                let limit = min(end, sectionLimit)
                if lineStart &+ 2 <= limit && Scan.byte(p, lineStart) == ASCII.cr && Scan.byte(p, lineStart &+ 1) == ASCII.lf {
                    lineStart &+= 2
                    searchFrom = lineStart
                    return lineStart
                }
            }
            guard let lf = Scan.lineFeed(p, from: max(searchFrom, lineStart), end: end) else {
                searchFrom = end
                try checkIncompleteLine(p, end: end, sectionLimit: sectionLimit, limits: limits)
                return nil
            }
            let lineEnd = lf + 1
            searchFrom = lineEnd
            if kind == .header && statusLine == nil {
                // Checked first, exactly as on an incomplete line (split invariance).
                try Self.checkVersionPrefix(p, lineStart..<lf)
            }
            try checkLimits(lineEnd: lineEnd, sectionLimit: sectionLimit, limits: limits)
            guard lf > lineStart, Scan.byte(p, lf - 1) == ASCII.cr else {
                throw WireError(.bareLF, "line ends in LF without CR", offset: lf)
            }
            let content = lineStart..<(lf - 1)
            defer { lineStart = lineEnd }
            if kind == .header && statusLine == nil {
                statusLine = try Self.parseStatusLine(p, content)
            } else if content.isEmpty {
                lineStart = lineEnd
                return lineEnd
            } else if Self.isWhitespace(Scan.byte(p, content.lowerBound)) {
                try Self.appendContinuation(p, content, to: &fields)
            } else {
                guard fields.count < limits.maxFieldCount else {
                    throw WireError(.tooManyFields, "more than \(limits.maxFieldCount) field lines", offset: content.lowerBound)
                }
                fields.append(try Self.parseFieldLine(p, content))
            }
        }
    }

    // MARK: Limits

    /// The limit a status line crosses first, in byte order, whichever of the two is smaller: the
    /// same verdict however the line arrived (found by the fuzzer:
    /// Fuzz/FailCases/parser-status-line-vs-section-limit).
    private static func statusLineLimit(_ limits: ParserLimits, sectionLimit: Int) -> Int {
        min(limits.maxStatusLineLength, sectionLimit)
    }

    /// The error for a status line past `statusLineLimit`; built only when thrown (building it
    /// formats strings, which allocates: measured by wire-bench).
    private static func statusLineLimitError(_ limits: ParserLimits, sectionLimit: Int) -> WireError {
        if limits.maxStatusLineLength <= sectionLimit {
            let limit = limits.maxStatusLineLength
            return WireError(.statusLineTooLong, "status line longer than \(limit) bytes", offset: limit)
        }
        return sectionTooLarge(.header, sectionLimit)
    }

    private func checkLimits(lineEnd: Int, sectionLimit: Int, limits: ParserLimits) throws(WireError) {
        if kind == .header && statusLine == nil {
            if lineEnd > Self.statusLineLimit(limits, sectionLimit: sectionLimit) {
                throw Self.statusLineLimitError(limits, sectionLimit: sectionLimit)
            }
        }
        if lineEnd > sectionLimit {
            throw Self.sectionTooLarge(kind, sectionLimit)
        }
    }

    private func checkIncompleteLine(_ p: UnsafeRawPointer, end: Int, sectionLimit: Int, limits: ParserLimits) throws(WireError) {
        if kind == .header && statusLine == nil {
            // Same verdict as the full status-line check would give on these bytes.
            try Self.checkVersionPrefix(p, lineStart..<end)
            if end > Self.statusLineLimit(limits, sectionLimit: sectionLimit) {
                throw Self.statusLineLimitError(limits, sectionLimit: sectionLimit)
            }
        }
        if end > sectionLimit {
            throw Self.sectionTooLarge(kind, sectionLimit)
        }
    }

    private static func sectionTooLarge(_ kind: Kind, _ limit: Int) -> WireError {
        kind == .header
            ? WireError(.headerSectionTooLarge, "header section larger than \(limit) bytes", offset: limit)
            : WireError(.trailerSectionTooLarge, "trailer section larger than \(limit) bytes", offset: limit)
    }

    // MARK: Status line (RFC 9112 §4)

    private static let httpSlash: StaticString = "HTTP/"

    /// Checks the bytes of `range` that are present against `HTTP/`.
    private static func checkVersionPrefix(_ p: UnsafeRawPointer, _ range: Range<Int>) throws(WireError) {
        let expected = httpSlash.utf8Start
        var i = 0
        while i < 5 && range.lowerBound + i < range.upperBound {
            if Scan.byte(p, range.lowerBound + i) != expected[i] {
                throw WireError(.version, "response does not start with HTTP/", offset: range.lowerBound + i)
            }
            i += 1
        }
    }

    /// Parses `HTTP/D.D SP DDD [SP reason]`.
    ///
    /// The reason phrase (and its SP) may be absent: RFC 9112 §4 makes the phrase optional, servers
    /// in the field omit the SP too, and accepting it has no bearing on framing.
    static func parseStatusLine(_ p: UnsafeRawPointer, _ line: Range<Int>) throws(WireError) -> StatusLine {
        let s = line.lowerBound
        try checkVersionPrefix(p, line)
        guard line.count >= 8 else {
            throw WireError(.version, "incomplete HTTP version", offset: line.upperBound)
        }
        let major = Scan.byte(p, s + 5), dot = Scan.byte(p, s + 6), minor = Scan.byte(p, s + 7)
        guard isDigit(major) else { throw WireError(.version, "major version is not a digit", offset: s + 5) }
        guard dot == 0x2E else { throw WireError(.version, "expected '.' in version", offset: s + 6) }
        guard isDigit(minor) else { throw WireError(.version, "minor version is not a digit", offset: s + 7) }
        guard line.count > 8, Scan.byte(p, s + 8) == ASCII.space else {
            throw WireError(.statusLine, "expected a single SP after the version", offset: s + 8)
        }
        guard major == 0x31 else {
            throw WireError(.unsupportedVersion, "HTTP major version \(major - 0x30) is not 1", offset: s + 5)
        }
        var status = 0
        for i in 9..<12 {
            guard s + i < line.upperBound, isDigit(Scan.byte(p, s + i)) else {
                throw WireError(.statusCode, "status code is not three digits", offset: min(s + i, line.upperBound))
            }
            status = status * 10 + Int(Scan.byte(p, s + i) - 0x30)
        }
        guard status >= 100 else {
            throw WireError(.statusCode, "status code \(status) is below 100", offset: s + 9)
        }
        var reason = line.upperBound..<line.upperBound
        if line.count > 12 {
            guard Scan.byte(p, s + 12) == ASCII.space else {
                throw WireError(.statusCode, "status code is not three digits", offset: s + 12)
            }
            reason = (s + 13)..<line.upperBound
            if let bad = firstInvalidValueByte(p, reason) {
                let rule: WireError.Rule = Scan.byte(p, bad) == ASCII.cr ? .bareCR : .reasonPhrase
                throw WireError(rule, "control character in reason phrase", offset: bad)
            }
        }
        return StatusLine(version: HTTPVersion(major: 1, minor: Int(minor - 0x30)), status: status, reason: reason)
    }

    /// `HTTP/1.` as the first seven bytes of a little-endian word.
    private static let http1Prefix: UInt64 = 0x002E_312F_5054_5448

    /// Parses a complete, valid `HTTP/1.D SP DDD [SP reason] CRLF` at the start of `p[0..<end]`,
    /// with a status of 100 or more; returns `nil` for anything else, without judging it. Agrees
    /// with `parseStatusLine` on every line it accepts: every fixture runs whole (this path) and
    /// byte by byte (the slow path), and WideScanTests sweeps every byte of a status line.
    @inline(__always)
    private static func fastStatusLine(_ p: UnsafeRawPointer, end: Int) -> (StatusLine, Int)? {
        // The shortest line, `HTTP/1.1 200` CR LF, is 14 bytes.
        guard end >= 14, Scan.word(p, 0, end: end) & 0x00FF_FFFF_FFFF_FFFF == http1Prefix else { return nil }
        let minor = Scan.byte(p, 7), d0 = Scan.byte(p, 9), d1 = Scan.byte(p, 10), d2 = Scan.byte(p, 11)
        guard isDigit(minor), Scan.byte(p, 8) == ASCII.space, d0 >= 0x31 && d0 <= 0x39, isDigit(d1), isDigit(d2) else {
            return nil
        }
        let status = Int(d0 &- 0x30) &* 100 &+ Int(d1 &- 0x30) &* 10 &+ Int(d2 &- 0x30)
        let version = HTTPVersion(major: 1, minor: Int(minor &- 0x30))
        var i = 12
        var reasonStart = 12
        if Scan.byte(p, 12) == ASCII.space {
            reasonStart = 13
            i = 13
            while true {
                i = Scan.plainValueBytes(p, from: i, end: end)
                guard i < end else { return nil }
                guard Scan.byte(p, i) == ASCII.tab else { break }
                i &+= 1
            }
        }
        guard i &+ 1 < end, Scan.byte(p, i) == ASCII.cr, Scan.byte(p, i &+ 1) == ASCII.lf else { return nil }
        return (StatusLine(version: version, status: status, reason: reasonStart..<i), i &+ 2)
    }

    // MARK: Field lines (RFC 9112 §5)

    /// Parses `field-name ":" OWS field-value OWS`.
    static func parseFieldLine(_ p: UnsafeRawPointer, _ line: Range<Int>) throws(WireError) -> FieldRange {
        let nameEnd = Scan.tokenBytes(p, from: line.lowerBound, end: line.upperBound)
        guard nameEnd < line.upperBound else {
            throw WireError(.missingColon, "field line without a colon", offset: line.upperBound)
        }
        let stop = Scan.byte(p, nameEnd)
        if stop != ASCII.colon {
            if isWhitespace(stop) {
                var i = nameEnd
                while i < line.upperBound && isWhitespace(Scan.byte(p, i)) { i += 1 }
                if i < line.upperBound && Scan.byte(p, i) == ASCII.colon {
                    throw WireError(.whitespaceBeforeColon, "whitespace between field name and colon", offset: nameEnd)
                }
            }
            if stop == ASCII.cr { throw WireError(.bareCR, "CR not followed by LF", offset: nameEnd) }
            throw WireError(.fieldName, "invalid character 0x\(hex(stop)) in field name", offset: nameEnd)
        }
        guard nameEnd > line.lowerBound else {
            throw WireError(.fieldName, "empty field name", offset: nameEnd)
        }
        let value = try trimmedValue(p, (nameEnd + 1)..<line.upperBound)
        return FieldRange(name: line.lowerBound..<nameEnd, value: value)
    }

    /// Parses the complete, valid field lines that follow each other from `start`, each ending (LF
    /// included) at or before `end`, and appends them to `fields` while it holds fewer than
    /// `maxCount`. Returns where the first line it did not take starts; that line (an error, an
    /// incomplete line, obs-fold, the empty line, one field too many) is left to the slow path,
    /// without being judged here.
    ///
    /// One loop for all lines, so its constants stay in registers and a line costs no call; fields
    /// go to a stack batch and reach the array 16 at a time, because `Array.append` checks
    /// uniqueness through a runtime call that spills every vector register (measured under
    /// callgrind: about 150 instructions per field line less than a call and an append per line).
    private static func fastFieldLines(
        _ p: UnsafeRawPointer, from start: Int, end: Int, fields: inout [FieldRange], maxCount: Int
    ) -> Int {
        withUnsafeTemporaryAllocation(of: FieldRange.self, capacity: 16) { batch in
            // `batch[0..<pending]` holds the fields not yet appended (FieldRange is trivial, so
            // slots can be initialized again after they were copied out).
            var pending = 0
            var lineStart = start
            let room = maxCount &- fields.count
            var taken = 0
            lines: while taken < room {
                // The line's end first: from the line start, the first byte that is a control
                // character other than HTAB must be a CR followed by LF. Names are tchars, never
                // control characters, so this scan need not wait for the name's end, and the next
                // line's start depends on it alone: the name scan below is off that dependency
                // chain and overlaps it on an out-of-order CPU (measured: user CPU time per head
                // down by about a fifth for a few instructions more).
                var cr = lineStart
                while true {
                    cr = Scan.plainValueBytes(p, from: cr, end: end)
                    guard cr < end else { break lines }
                    let b = Scan.byte(p, cr)
                    if b == ASCII.tab {
                        cr &+= 1
                        continue
                    }
                    guard b == ASCII.cr, cr &+ 1 < end, Scan.byte(p, cr &+ 1) == ASCII.lf else { break lines }
                    break
                }
                // The name stops at the first non-tchar, at or before the CR.
                let nameEnd = Scan.tokenBytes(p, from: lineStart, end: end)
                guard nameEnd > lineStart, nameEnd < cr, Scan.byte(p, nameEnd) == ASCII.colon else { break }
                var valueStart = nameEnd &+ 1
                while valueStart < cr && isWhitespace(Scan.byte(p, valueStart)) { valueStart &+= 1 }
                var valueEnd = cr
                while valueEnd > valueStart && isWhitespace(Scan.byte(p, valueEnd &- 1)) { valueEnd &-= 1 }
                // A following line that starts with whitespace is an obs-fold continuation: the
                // slow path appends it to this field, so this one is fine as it is.
                if pending == batch.count {
                    fields.append(contentsOf: batch)
                    pending = 0
                }
                batch.initializeElement(at: pending, to: FieldRange(name: lineStart..<nameEnd, value: valueStart..<valueEnd))
                pending &+= 1
                taken &+= 1
                lineStart = cr &+ 2
            }
            if pending > 0 { fields.append(contentsOf: UnsafeBufferPointer(rebasing: batch[0..<pending])) }
            return lineStart
        }
    }

    /// Appends an obs-fold continuation line to the previous field (RFC 9112 §5.2).
    private static func appendContinuation(_ p: UnsafeRawPointer, _ line: Range<Int>, to fields: inout [FieldRange]) throws(WireError) {
        guard var last = fields.popLast() else {
            throw WireError(.leadingWhitespace, "whitespace before the first field line", offset: line.lowerBound)
        }
        let more = try trimmedValue(p, line)
        if !more.isEmpty {
            last.value = last.value.isEmpty ? more : last.value.lowerBound..<more.upperBound
        }
        // Marked even when the first line's value was empty, so a folded framing field is always
        // caught (`Content-Length:\r\n 5`).
        last.isFolded = true
        fields.append(last)
    }

    /// Validates a value's bytes and returns them without leading and trailing OWS.
    private static func trimmedValue(_ p: UnsafeRawPointer, _ range: Range<Int>) throws(WireError) -> Range<Int> {
        if let bad = firstInvalidValueByte(p, range) {
            let byte = Scan.byte(p, bad)
            if byte == ASCII.cr { throw WireError(.bareCR, "CR not followed by LF in field value", offset: bad) }
            throw WireError(.fieldValue, "control character 0x\(hex(byte)) in field value", offset: bad)
        }
        var start = range.lowerBound, end = range.upperBound
        while start < end && isWhitespace(Scan.byte(p, start)) { start += 1 }
        while end > start && isWhitespace(Scan.byte(p, end - 1)) { end -= 1 }
        return start..<end
    }

    /// The first byte in `range` that is not HTAB, SP, VCHAR or obs-text, or `nil`.
    @inline(__always)
    static func firstInvalidValueByte(_ p: UnsafeRawPointer, _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while true {
            i = Scan.plainValueBytes(p, from: i, end: range.upperBound)
            if i == range.upperBound { return nil }
            if Scan.byte(p, i) != ASCII.tab { return i }
            i += 1
        }
    }

    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == ASCII.space || b == ASCII.tab }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}

/// Two uppercase hex digits for a byte, for error messages.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
