// What issue 21's options do to a request before it is sent: --proto-default, --proto,
// --disallow-username-in-url, dot segments (--path-as-is), --url-query, .netrc credentials,
// --oauth2-bearer, -z/--time-cond and --etag-compare. Called by RequestBuilder; no I/O but
// reading the files the options name.
import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Transport

/// Request-side effects of ``FetchExtras``.
enum RequestExtras {
    /// The URL as typed with `--proto-default`'s scheme when it has none.
    static func withDefaultScheme(_ raw: String, _ extras: FetchExtras) -> String {
        guard let scheme = extras.defaultProtocol, raw.firstOccurrence(of: "://") == nil else { return raw }
        return scheme + "://" + raw
    }

    /// Checks the normalized `url` (its URL credentials `hadUserInfo`) against `--proto` and
    /// `--disallow-username-in-url`, then applies `--path-as-is` and `--url-query`.
    static func adjust(_ url: String, hadUserInfo: Bool, options: FetchOptions) throws(TransferError) -> String {
        let extras = options.extras
        let scheme = String(url.prefix { $0 != ":" }).lowercased()
        if let allowed = extras.protocols, !allowed.contains(scheme) {
            throw TransferError(status: 1, message: "Protocol \"\(scheme)\" not supported")
        }
        if extras.disallowUsernameInURL && hadUserInfo { throw TransferError(status: 67, message: "Login denied") }
        var url = extras.pathAsIs ? url : removingDotSegments(url)
        // curl: -G's data replaces --url-query (tool_operate uses one or the other).
        let queries = extras.urlQueries.map { $0.hasPrefix("+") ? String($0.dropFirst()) : encodedQuery($0) }
        if !queries.isEmpty && !options.dataInQuery {
            let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
            let base = url[..<fragmentStart]
            let separator = base.contains("?") ? "&" : "?"
            url = String(base) + separator + appendedQuery(queries.joined(separator: "&"))
        }
        return url
    }

    /// A query part as curl 7.88 appends it (-G data, --url-query): its URL API writes the hex
    /// digits of every `%XX` in lower case (`%0a`, `%c3%a9`), verbatim parts included.
    static func appendedQuery(_ query: String) -> String {
        var bytes = Array(query.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit {
                for offset in 1...2 where bytes[index + offset] >= UInt8(ascii: "A") && bytes[index + offset] <= UInt8(ascii: "F") {
                    bytes[index + offset] += 32
                }
                index += 3
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `--url-query`'s encoding: `--data-urlencode`'s, an unreadable `@file` as empty (curl 7.88).
    static func encodedQuery(_ text: String) -> String {
        (try? BodyBuilder().urlencoded(text)) ?? ""
    }

    /// curl's default: `.` and `..` segments of the path resolved (RFC 3986 §5.2.4) before
    /// sending; `--path-as-is` keeps them.
    static func removingDotSegments(_ url: String) -> String {
        guard let schemeEnd = url.firstOccurrence(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        guard let pathStart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }), url[pathStart] == "/" else { return url }
        let pathEnd = url[pathStart...].firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        let path = url[pathStart..<pathEnd]
        guard path.containsText("/.") else { return url }
        var output: [Substring] = []
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        return String(url[..<pathStart]) + "/" + output.joined(separator: "/") + String(url[pathEnd...])
    }

    /// Headers the options add before `-H` edits: `--oauth2-bearer` (unless `-u` or URL
    /// credentials already authorize), `-z`, `--etag-compare`.
    ///
    /// - Throws: 26 when the `--etag-compare` file cannot be read.
    static func headers(_ options: FetchOptions, hasCredentials: Bool) throws(TransferError) -> [HeaderField] {
        var fields: [HeaderField] = []
        let extras = options.extras
        if let token = extras.bearer, !hasCredentials { fields.append(HeaderField(name: "Authorization", value: "Bearer " + token)) }
        if let condition = extras.timeCondition, let field = timeConditionField(condition, silent: options.silent) { fields.append(field) }
        if let path = extras.etagCompare {
            guard let data = readFile(path) else {
                if !options.silent { printError("fetch: Failed to open \(path)") }
                throw TransferError(status: 26, message: "")
            }
            // curl reads the file without its line breaks.
            let value = String(decoding: data.filter { $0 != 10 && $0 != 13 }, as: UTF8.self)
            fields.append(HeaderField(name: "If-None-Match", value: value))
        }
        return fields
    }

    /// `-z [-]DATE|FILE`: If-Modified-Since (If-Unmodified-Since with `-`) with the date, or
    /// the file's modification time; nil with curl's warning when it is neither.
    static func timeConditionField(_ condition: String, silent: Bool) -> HeaderField? {
        var text = Substring(condition)
        var name = "If-Modified-Since"
        switch text.first {
        case "-": name = "If-Unmodified-Since"; text = text.dropFirst()
        case "+": text = text.dropFirst()
        case "=": return nil  // curl's "last modified" condition: no header, a local comparison fetch does not make
        default: break
        }
        var time: time_t?
        var info = stat()
        if stat(String(text), &info) == 0 {
            time = info.st_mtim.tv_sec
        } else {
            time = HTTPDate.parse(String(text))
        }
        guard let time else {
            if !silent {
                printError("Warning: Illegal date format for -z, --time-cond (and not a file name). ")
                printError("Warning: Disabling time condition. See curl_getdate(3) for valid date syntax.")
            }
            return nil
        }
        return HeaderField(name: name, value: HTTPDate.format(time))
    }
}

/// Dates as HTTP writes them (RFC 9110 §5.6.7), and the spellings of curl_getdate fetch reads:
/// words in any order, separated by spaces, commas or dashes: a weekday (ignored), a month name,
/// `HH:MM[:SS]`, a 4-digit year, a day, `YYYYMMDD`, a 2-digit year after the day (RFC 850),
/// `GMT`/`UTC`. Always UTC (curl assumes GMT without a zone too).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Seconds since 1970 for `text`, or nil.
    static func parse(_ text: String) -> time_t? {
        var year: Int?, month: Int?, day: Int?, hour = 0, minute = 0, second = 0
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }) {
            let lowered = word.lowercased()
            if lowered.count >= 3, let index = months.firstIndex(of: String(lowered.prefix(3))), lowered.allSatisfy(\.isLetter) {
                guard month == nil else { return nil }
                month = index + 1
            } else if lowered.count >= 3, weekdays.contains(String(lowered.prefix(3))), lowered.allSatisfy(\.isLetter) {
                continue
            } else if lowered == "gmt" || lowered == "utc" || lowered == "z" {
                continue
            } else if word.contains(":") {
                let parts = word.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
                guard parts.count >= 2, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
                hour = parts[0]!; minute = parts[1]!; second = parts.count == 3 ? parts[2]! : 0
            } else if let number = Int(word), word.allSatisfy(\.isNumber) {
                switch word.count {
                case 8 where year == nil && day == nil && month == nil:
                    year = number / 10000; month = (number / 100) % 100; day = number % 100
                case 4 where year == nil: year = number
                case 1...2 where day == nil: day = number
                case 2 where year == nil: year = number + (number < 70 ? 2000 : 1900)
                default: return nil
                }
            } else {
                return nil
            }
        }
        guard let year, let month, let day, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else {
            return nil
        }
        return time_t(daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second)
    }

    /// Days from 1970-01-01 to the given date (proleptic Gregorian; H. Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `time` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func format(_ time: time_t) -> String {
        let seconds = Int(time)
        let days = Int((Double(seconds) / 86400).rounded(.down))
        let secondOfDay = seconds - days * 86400
        // Civil from days (the inverse of daysFromCivil).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3 from Monday)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(names[weekday]), \(two(day)) \(monthNames[month - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hex digit.
    fileprivate var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
