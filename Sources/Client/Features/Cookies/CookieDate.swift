#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// RFC 6265 §5.1.1's cookie-date algorithm: the one parser for `Expires`, which servers send in
// three shapes (RFC 1123 `Wed, 21 Oct 2015 07:28:00 GMT`, RFC 850 `Wednesday, 21-Oct-15
// 07:28:00 GMT`, asctime `Wed Oct 21 07:28:00 2015`). The algorithm is deliberately shape-blind:
// it splits on delimiters and takes the first time, day, month and year tokens it finds, so all
// three (and the sloppy variants browsers accept) come out the same. No DateFormatter, no
// Calendar: the arithmetic is done here, so it behaves the same in the FoundationEssentials build.

/// RFC 6265 §5.1.1 cookie dates.
enum CookieDate {
    /// Parses a cookie date.
    ///
    /// - Parameter text: The `Expires` attribute's value.
    /// - Returns: The date, or `nil` when the algorithm fails (the attribute is then ignored,
    ///   as §5.2.1 says).
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        // Bounded by the attribute limit the parser applies (1024 bytes), so the token walk is small.
        for token in tokens(of: Array(text.utf8)) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let parsed = leadingDigits(token, min: 1, max: 2) {
                day = parsed
            } else if month == nil, let parsed = parseMonth(token) {
                month = parsed
            } else if year == nil, let parsed = leadingDigits(token, min: 2, max: 4) {
                year = parsed
            }
        }
        guard let time, let day, let month, var year else { return nil }
        // §5.1.1 steps 3 and 4: two-digit years.
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        guard day <= daysIn(month: month, year: year) else { return nil }  // "Feb 31": step 5
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The delimiter class of §5.1.1: `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `min*max DIGIT` followed by nothing or a non-digit (the rest is ignored, as the grammar's
    /// `( non-digit *OCTET )` allows).
    private static func leadingDigits(_ token: ArraySlice<UInt8>, min: Int, max: Int) -> Int? {
        var value = 0
        var count = 0
        for byte in token {
            guard isDigit(byte) else { break }
            count += 1
            guard count <= max else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return count >= min ? value : nil
    }

    /// `hms-time = time-field ":" time-field ":" time-field`, each `1*2DIGIT`.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var current = 0
        var digits = 0
        var index = token.startIndex
        while index < token.endIndex {
            let byte = token[index]
            if isDigit(byte) {
                digits += 1
                guard digits <= 2 else { return nil }
                current = current * 10 + Int(byte - 0x30)
            } else if byte == UInt8(ascii: ":"), fields.count < 2, digits > 0 {
                fields.append(current)
                current = 0
                digits = 0
            } else {
                break
            }
            index += 1
        }
        guard fields.count == 2, digits > 0 else { return nil }
        return (fields[0], fields[1], current)
    }

    private static let months: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { Array($0.utf8) }

    /// A token whose first three letters name a month, case-insensitively.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { $0 | 0x20 }  // ASCII lowercase; non-letters never match
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse:
    /// eras of 400 years, March-based years so the leap day falls last).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
