/// HTTP caching rules for a private cache (RFC 9111), as pure functions over headers and clock
/// readings, table-tested in `CacheFreshnessTests`:
///
/// - ``isStorable(method:status:requestHeaders:responseHeaders:)``: may the response be stored?
/// - ``evaluate(requestHeaders:responseHeaders:requestTime:responseTime:now:)``: is a stored
///   response fresh, or must it be revalidated?
///
/// Times are seconds since 1970. `s-maxage` and `proxy-revalidate` are for shared caches and are
/// ignored; `private` is allowed (this cache is private).

import Transport
enum CacheFreshness {
    /// A stored response's state for a new request.
    enum Verdict: Equatable, Sendable {
        /// Fresh: serve it without contacting the server.
        case fresh
        /// Stale, or the request or response demands validation: send a conditional request
        /// (when the response has a validator) or an ordinary one.
        case stale
    }

    /// Statuses a cache may store with heuristic freshness (RFC 9110 §15.1 "heuristically
    /// cacheable"); 206 is left out: this cache does not combine partial responses.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The cap on heuristic freshness: 24 hours. RFC 9111 §4.2.2 suggests 10% of the time since
    /// Last-Modified and warns about heuristic lifetimes over 24 hours (its predecessor's
    /// Warning 113); capping there keeps a years-old file from being trusted for months.
    static let maxHeuristicLifetime: Double = 24 * 60 * 60

    /// Whether a response may be stored (RFC 9111 §3, for a private cache).
    ///
    /// Stored: GET responses with a final status this cache understands, without `no-store` in
    /// the request or response, that either have explicit freshness (`max-age`, `Expires`) or a
    /// heuristically cacheable status. A request with `Authorization` or `Cookie` is stored only
    /// when the response says `public`, `must-revalidate` or `s-maxage` (§3.5's rule for shared
    /// caches, `Cookie` included: a server process's cache serves many users).
    static func isStorable(method: String, status: Int, requestHeaders: HTTPHeaders, responseHeaders: HTTPHeaders) -> Bool {
        guard method == "GET", (200...599).contains(status), status != 206 else { return false }
        let request = CacheControl(requestHeaders)
        let response = CacheControl(responseHeaders)
        guard !request.noStore, !response.noStore else { return false }
        if requestHeaders.value(for: "Authorization") != nil || requestHeaders.value(for: "Cookie") != nil,
           !(response.isPublic || response.mustRevalidate || response.hasSharedMaxAge) { return false }
        // Vary: * can never match a later request.
        if responseHeaders.value(for: "Vary")?.contains("*") == true { return false }
        let explicit = response.maxAge != nil || responseHeaders.value(for: "Expires") != nil
        return explicit || heuristicallyCacheable.contains(status) || response.isPublic
    }

    /// Whether the stored response is fresh for a request with `requestHeaders` at `now`.
    /// - Parameters:
    ///   - requestHeaders: The new request's headers (`Cache-Control: no-cache`, `max-age`).
    ///   - responseHeaders: The stored response's headers.
    ///   - requestTime: When the request that got it was sent.
    ///   - responseTime: When its response arrived.
    ///   - now: The current time.
    static func evaluate(requestHeaders: HTTPHeaders, responseHeaders: HTTPHeaders,
                         requestTime: Double, responseTime: Double, now: Double) -> Verdict {
        let request = CacheControl(requestHeaders)
        let response = CacheControl(responseHeaders)
        // §5.2.1.4 and §5.2.2.4: no-cache means validate every time; a pragma from HTTP/1.0 too.
        if request.noCache || response.noCache { return .stale }
        if request.cacheControl == nil, requestHeaders.value(for: "Pragma")?.lowercased().containsText("no-cache") == true { return .stale }
        let lifetime = freshnessLifetime(responseHeaders, response, responseTime: responseTime)
        let age = currentAge(responseHeaders, requestTime: requestTime, responseTime: responseTime, now: now)
        var fresh = age < lifetime
        // §5.2.1.1: a request max-age caps the age it accepts.
        if let maxAge = request.maxAge, age > Double(maxAge) { fresh = false }
        if let minFresh = request.minFresh, lifetime - age < Double(minFresh) { fresh = false }
        return fresh ? .fresh : .stale
    }

    /// §4.2.1: max-age, else Expires minus Date, else heuristic (10% of Date minus
    /// Last-Modified, at most ``maxHeuristicLifetime``), else 0.
    static func freshnessLifetime(_ headers: HTTPHeaders, _ control: CacheControl, responseTime: Double) -> Double {
        if let maxAge = control.maxAge { return Double(maxAge) }
        let date = headers.value(for: "Date").flatMap(RFC9110Date.parse) ?? responseTime
        if let expiresText = headers.value(for: "Expires") {
            // §5.3: an invalid Expires (such as "0") means already expired.
            guard let expires = RFC9110Date.parse(expiresText) else { return 0 }
            return max(0, expires - date)
        }
        if let lastModified = headers.value(for: "Last-Modified").flatMap(RFC9110Date.parse), lastModified < date {
            return min(maxHeuristicLifetime, (date - lastModified) / 10)
        }
        return 0
    }

    /// §4.2.3: the response's current age.
    static func currentAge(_ headers: HTTPHeaders, requestTime: Double, responseTime: Double, now: Double) -> Double {
        let date = headers.value(for: "Date").flatMap(RFC9110Date.parse) ?? responseTime
        let ageValue = headers.value(for: "Age").flatMap { Int($0.trimmingSpaces()) }.map { Double(max(0, $0)) } ?? 0
        let apparentAge = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now - responseTime)
    }
}

/// The `Cache-Control` directives this cache acts on (RFC 9111 §5.2), parsed leniently: unknown
/// directives are ignored, a malformed number makes the directive absent (`max-age=abc`) except
/// where §4.2.1 says otherwise.
struct CacheControl: Equatable, Sendable {
    /// The raw header, nil when absent.
    var cacheControl: String?
    var maxAge: Int?
    var minFresh: Int?
    var noCache = false
    var noStore = false
    var mustRevalidate = false
    var isPublic = false
    var hasSharedMaxAge = false

    init(_ headers: HTTPHeaders) {
        let values = headers.values(for: "Cache-Control")
        guard !values.isEmpty else { return }
        cacheControl = values.joined(separator: ",")
        for directive in cacheControl!.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts.first.map { $0.trimmingSpaces().lowercased() } ?? ""
            let argument = parts.count > 1 ? parts[1].trimmingSpaces().filter { $0 != "\"" } : nil
            // Limits on what a server controls: ages beyond 2^31 s are clamped (§1.2.2).
            let seconds = argument.flatMap { text -> Int? in
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return text.count > 10 ? Int(Int32.max) : min(Int(text) ?? Int(Int32.max), Int(Int32.max))
            }
            switch name {
            case "max-age": maxAge = maxAge.map { min($0, seconds ?? 0) } ?? (seconds ?? 0)
            case "min-fresh": minFresh = seconds
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            case "public": isPublic = true
            case "s-maxage": hasSharedMaxAge = true
            default: break
            }
        }
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a
/// recipient must accept. Returns seconds since 1970, or nil.
enum RFC9110Date {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Double? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT → [Sun, 06, Nov, 1994, 08:49:37, GMT]
        if words.count == 6, words[5] == "GMT" {
            return make(day: words[1], month: words[2], year: words[3], time: words[4])
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        if words.count == 4, words[3] == "GMT" {
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let short = Int(parts[2]), parts[2].count == 2 else { return nil }
            // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
            return make(day: parts[0], month: parts[1], year: String(short < 70 ? 2000 + short : 1900 + short), time: words[2])
        }
        // asctime: Sun Nov  6 08:49:37 1994
        if words.count == 5 {
            return make(day: words[2], month: words[1], year: words[4], time: words[3])
        }
        return nil
    }

    private static func make(day: String, month: String, year: String, time: String) -> Double? {
        guard let d = Int(day), (1...31).contains(d), day.count <= 2,
              let m = months.firstIndex(of: month.lowercased()), let y = Int(year), year.count == 4, y >= 1900 else { return nil }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        return Double(daysFromCivil(y, m + 1, d)) * 86_400 + Double(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
