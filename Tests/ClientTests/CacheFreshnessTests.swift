// RFC 9111 for a private cache, without sockets: headers and clock readings in, fresh or stale
// out; which responses may be stored; HTTP date forms.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

/// 2015-10-21 07:28:00 GMT, the responses' Date.
private let date = 1_445_412_480.0
private let dateText = "Wed, 21 Oct 2015 07:28:00 GMT"

/// One stored response checked `elapsed` seconds after it arrived (sent and received at `date`).
struct FreshnessFixture: Sendable, CustomStringConvertible {
    let name: String
    let response: [String: String]
    let request: [String: String]
    let elapsed: Double
    let expected: CacheFreshness.Verdict

    var description: String { name }
}

let freshnessFixtures: [FreshnessFixture] = [
    .init(name: "max-age, young", response: ["Cache-Control": "max-age=60", "Date": dateText], request: [:], elapsed: 59, expected: .fresh),
    .init(name: "max-age, at the limit", response: ["Cache-Control": "max-age=60", "Date": dateText], request: [:], elapsed: 60, expected: .stale),
    .init(name: "max-age wins over Expires", response: ["Cache-Control": "max-age=10", "Expires": "Wed, 21 Oct 2015 08:28:00 GMT", "Date": dateText],
          request: [:], elapsed: 20, expected: .stale),
    .init(name: "s-maxage ignored by a private cache", response: ["Cache-Control": "s-maxage=600", "Date": dateText], request: [:], elapsed: 1, expected: .stale),
    .init(name: "Expires an hour after Date", response: ["Expires": "Wed, 21 Oct 2015 08:28:00 GMT", "Date": dateText], request: [:], elapsed: 3599, expected: .fresh),
    .init(name: "Expires passed", response: ["Expires": "Wed, 21 Oct 2015 08:28:00 GMT", "Date": dateText], request: [:], elapsed: 3601, expected: .stale),
    .init(name: "Expires: 0 is already expired", response: ["Expires": "0", "Date": dateText], request: [:], elapsed: 0, expected: .stale),
    .init(name: "Age counts against max-age", response: ["Cache-Control": "max-age=60", "Age": "50", "Date": dateText], request: [:], elapsed: 11, expected: .stale),
    .init(name: "Age under max-age", response: ["Cache-Control": "max-age=60", "Age": "50", "Date": dateText], request: [:], elapsed: 9, expected: .fresh),
    // Last-Modified 10 days before Date: 1 day heuristic lifetime, capped at 24 h.
    .init(name: "heuristic: 10% of Last-Modified age", response: ["Last-Modified": "Sun, 18 Oct 2015 07:28:00 GMT", "Date": dateText],
          request: [:], elapsed: 25_000, expected: .fresh),
    .init(name: "heuristic: past 10%", response: ["Last-Modified": "Sun, 18 Oct 2015 07:28:00 GMT", "Date": dateText],
          request: [:], elapsed: 26_000, expected: .stale),
    .init(name: "heuristic capped at 24 h", response: ["Last-Modified": "Thu, 01 Jan 2015 00:00:00 GMT", "Date": dateText],
          request: [:], elapsed: 86_401, expected: .stale),
    .init(name: "no freshness information", response: ["Date": dateText], request: [:], elapsed: 0, expected: .stale),
    .init(name: "no-cache in the response", response: ["Cache-Control": "max-age=600, no-cache", "Date": dateText], request: [:], elapsed: 1, expected: .stale),
    .init(name: "no-cache in the request", response: ["Cache-Control": "max-age=600", "Date": dateText], request: ["Cache-Control": "no-cache"],
          elapsed: 1, expected: .stale),
    .init(name: "Pragma: no-cache in the request", response: ["Cache-Control": "max-age=600", "Date": dateText], request: ["Pragma": "no-cache"],
          elapsed: 1, expected: .stale),
    .init(name: "request max-age=0", response: ["Cache-Control": "max-age=600", "Date": dateText], request: ["Cache-Control": "max-age=0"],
          elapsed: 1, expected: .stale),
    .init(name: "request min-fresh beyond what is left", response: ["Cache-Control": "max-age=600", "Date": dateText],
          request: ["Cache-Control": "min-fresh=590"], elapsed: 20, expected: .stale),
    .init(name: "must-revalidate while fresh", response: ["Cache-Control": "max-age=600, must-revalidate", "Date": dateText], request: [:],
          elapsed: 1, expected: .fresh),
    .init(name: "malformed max-age counts as 0", response: ["Cache-Control": "max-age=abc", "Date": dateText], request: [:], elapsed: 0, expected: .stale),
    .init(name: "huge max-age clamped, still fresh", response: ["Cache-Control": "max-age=99999999999999999999", "Date": dateText], request: [:],
          elapsed: 1_000_000, expected: .fresh),
    .init(name: "Date in the future: apparent age 0", response: ["Cache-Control": "max-age=60", "Date": "Wed, 21 Oct 2015 09:28:00 GMT"],
          request: [:], elapsed: 30, expected: .fresh),
]

/// A response and whether it may be stored.
struct StorableFixture: Sendable, CustomStringConvertible {
    let name: String
    let method: String
    let status: Int
    let request: [String: String]
    let response: [String: String]
    let storable: Bool

    var description: String { name }
}

let storableFixtures: [StorableFixture] = [
    .init(name: "200 with max-age", method: "GET", status: 200, request: [:], response: ["Cache-Control": "max-age=60"], storable: true),
    .init(name: "200 without anything (heuristic status)", method: "GET", status: 200, request: [:], response: [:], storable: true),
    .init(name: "404 heuristic", method: "GET", status: 404, request: [:], response: [:], storable: true),
    .init(name: "500 without explicit freshness", method: "GET", status: 500, request: [:], response: [:], storable: false),
    .init(name: "500 with max-age", method: "GET", status: 500, request: [:], response: ["Cache-Control": "max-age=5"], storable: true),
    .init(name: "206 never", method: "GET", status: 206, request: [:], response: ["Cache-Control": "max-age=60"], storable: false),
    .init(name: "POST never", method: "POST", status: 200, request: [:], response: ["Cache-Control": "max-age=60"], storable: false),
    .init(name: "no-store in the response", method: "GET", status: 200, request: [:], response: ["Cache-Control": "no-store"], storable: false),
    .init(name: "no-store in the request", method: "GET", status: 200, request: ["Cache-Control": "no-store"], response: [:], storable: false),
    .init(name: "private is fine here", method: "GET", status: 200, request: [:], response: ["Cache-Control": "private, max-age=60"], storable: true),
    .init(name: "Authorization without permission", method: "GET", status: 200, request: ["Authorization": "Basic eA=="],
          response: ["Cache-Control": "max-age=60"], storable: false),
    .init(name: "Authorization with public", method: "GET", status: 200, request: ["Authorization": "Basic eA=="],
          response: ["Cache-Control": "public, max-age=60"], storable: true),
    .init(name: "Authorization with must-revalidate", method: "GET", status: 200, request: ["Authorization": "Basic eA=="],
          response: ["Cache-Control": "must-revalidate"], storable: true),
    .init(name: "Authorization with s-maxage", method: "GET", status: 200, request: ["Authorization": "Basic eA=="],
          response: ["Cache-Control": "s-maxage=60"], storable: true),
    .init(name: "Vary: *", method: "GET", status: 200, request: [:], response: ["Vary": "*", "Cache-Control": "max-age=60"], storable: false),
]

@Suite("Cache freshness")
struct CacheFreshnessTests {
    @Test("fresh or stale", arguments: freshnessFixtures)
    func freshness(_ fixture: FreshnessFixture) {
        let verdict = CacheFreshness.evaluate(requestHeaders: HTTPHeaders(fixture.request), responseHeaders: HTTPHeaders(fixture.response),
                                              requestTime: date, responseTime: date, now: date + fixture.elapsed)
        #expect(verdict == fixture.expected)
    }

    @Test("storable or not", arguments: storableFixtures)
    func storable(_ fixture: StorableFixture) {
        #expect(CacheFreshness.isStorable(method: fixture.method, status: fixture.status, requestHeaders: HTTPHeaders(fixture.request),
                                          responseHeaders: HTTPHeaders(fixture.response)) == fixture.storable)
    }

    @Test("corrected initial age: the response delay counts (RFC 9111 §4.2.3)")
    func responseDelay() {
        // Sent at date, arrived 30 s later with Age: 10 → age 40 at arrival.
        let age = CacheFreshness.currentAge(HTTPHeaders(["Age": "10", "Date": dateText]), requestTime: date, responseTime: date + 30, now: date + 30)
        #expect(age == 40)
    }

    @Test("HTTP date forms", arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777.0),
        ("Sun Nov  6 08:49:37 1994", 784_111_777.0),
        ("Sun, 06 Nov 1994 08:49:37 UTC", nil),
        ("Sun, 32 Nov 1994 08:49:37 GMT", nil),
        ("Sun, 06 Foo 1994 08:49:37 GMT", nil),
        ("Sun, 06 Nov 1994 25:49:37 GMT", nil),
        ("0", nil),
        ("", nil),
    ] as [(String, Double?)])
    func dates(_ text: String, _ expected: Double?) {
        #expect(RFC9110Date.parse(text) == expected, "\(text)")
    }
}
