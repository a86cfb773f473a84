// The WWW-Authenticate parser (RFC 9110 §11) and Digest answers (RFC 7616) as tables; no sockets.
import Testing
@testable import Client
@testable import Transport

@Suite("Authentication challenges")
struct AuthenticationChallengeTests {
    typealias Challenge = AuthenticationChallenge

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var field: String
        var expected: [Challenge]?
        var description: String { name }
    }

    static func c(_ scheme: String, _ parameters: [(String, String)] = [], token68: String? = nil) -> Challenge {
        Challenge(scheme: scheme, token68: token68, parameters: parameters.map { (name: $0.0, value: $0.1) })
    }

    static let rows: [Row] = [
        Row(name: "Basic with a quoted realm", field: #"Basic realm="Fake Realm""#, expected: [c("basic", [("realm", "Fake Realm")])]),
        Row(name: "scheme and names are case-insensitive", field: #"BASIC Realm="r", CharSet="UTF-8""#,
            expected: [c("basic", [("realm", "r"), ("charset", "UTF-8")])]),
        Row(name: "a bare scheme", field: "Negotiate", expected: [c("negotiate")]),
        Row(name: "token68", field: "Negotiate YWJjZA==", expected: [c("negotiate", token68: "YWJjZA==")]),
        Row(name: "token68 then another challenge", field: #"Negotiate abc, Basic realm="x""#,
            expected: [c("negotiate", token68: "abc"), c("basic", [("realm", "x")])]),
        Row(name: "a Digest challenge (httpbin's)", field: #"Digest realm="me@kennethreitz.com", nonce="abc", qop="auth", opaque="o", algorithm=MD5, stale=FALSE"#,
            expected: [c("digest", [("realm", "me@kennethreitz.com"), ("nonce", "abc"), ("qop", "auth"), ("opaque", "o"), ("algorithm", "MD5"), ("stale", "FALSE")])]),
        Row(name: "two challenges in one field", field: #"Digest realm="a", nonce="n", algorithm=SHA-256, Basic realm="b""#,
            expected: [c("digest", [("realm", "a"), ("nonce", "n"), ("algorithm", "SHA-256")]), c("basic", [("realm", "b")])]),
        Row(name: "a comma inside a quoted string", field: #"Digest realm="a, b", qop="auth,auth-int", nonce="n""#,
            expected: [c("digest", [("realm", "a, b"), ("qop", "auth,auth-int"), ("nonce", "n")])]),
        Row(name: "escapes in a quoted string", field: #"Basic realm="say \"hi\" \\ bye""#, expected: [c("basic", [("realm", #"say "hi" \ bye"#)])]),
        Row(name: "spaces around = and empty list elements", field: #" , Basic realm = "r" , , "#, expected: [c("basic", [("realm", "r")])]),
        Row(name: "an empty quoted value", field: #"Basic realm="""#, expected: [c("basic", [("realm", "")])]),
        Row(name: "an empty field", field: "", expected: []),
        // Malformed: nil, never a trap.
        Row(name: "unterminated quote", field: #"Basic realm="x"#, expected: nil),
        Row(name: "a parameter without a value", field: "Basic realm=", expected: [c("basic", token68: "realm=")]),
        Row(name: "garbage after a value", field: #"Basic realm="x" y"#, expected: nil),
        Row(name: "a control byte in a quoted string", field: "Basic realm=\"a\u{1}b\"", expected: nil),
        Row(name: "a separator where a scheme goes", field: "=x", expected: nil),
        Row(name: "a backslash at the end", field: #"Basic realm="x\"#, expected: nil),
        Row(name: "too many parameters", field: "Digest " + (0..<33).map { "p\($0)=v" }.joined(separator: ", "), expected: nil),
        Row(name: "too many challenges", field: (0..<17).map { "S\($0)" }.joined(separator: ", "), expected: nil),
        Row(name: "an overlong field", field: "Basic realm=\"" + String(repeating: "x", count: 17_000) + "\"", expected: nil),
    ]

    @Test("parser", arguments: rows)
    func parse(_ row: Row) {
        #expect(Challenge.parse(row.field) == row.expected)
    }

    @Test("parser never traps on any single byte after a scheme")
    func everyByte() {
        for byte in UInt8(0)...UInt8(255) {
            let field = "Basic realm=" + String(decoding: [byte], as: UTF8.self) + "x"
            _ = Challenge.parse(field)
        }
    }

    @Test("parser never traps on random fields built from its delimiters")
    func randomFields() {
        let alphabet = Array(#"ab=,\" \t\"Basic Digest realm=x,"#.utf8) + [0x00, 0x01, 0x7F, 0xC3, 0xA9]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            let field = String(decoding: bytes, as: UTF8.self)
            if let challenges = Challenge.parse(field) {
                #expect(challenges.count <= Challenge.Limits.maxChallenges, "\(field.debugDescription)")
                #expect(challenges.allSatisfy { !$0.scheme.isEmpty && $0.parameters.count <= Challenge.Limits.maxParameters })
            }
        }
    }

    @Test("the strongest supported challenge is answered")
    func strongest() throws {
        let fields = [#"Basic realm="b""#, #"Digest realm="a", nonce="n", algorithm=MD5, Digest realm="a", nonce="n", algorithm=SHA-256"#]
        let challenges = try #require(Challenge.parse(fields: fields))
        #expect(HTTPAuthentication.strongest(challenges)?["algorithm"] == "SHA-256")
        #expect(HTTPAuthentication.strongest([Self.c("negotiate", token68: "x")]) == nil)
        #expect(HTTPAuthentication.strongest([Self.c("digest", [("nonce", "n"), ("qop", "auth-int")])]) == nil)
        #expect(HTTPAuthentication.strongest([Self.c("digest", [("nonce", "n"), ("algorithm", "SHA-512-256")])]) == nil)
    }

    // RFC 7616 §3.9.1: user "Mufasa", password "Circle of Life", GET /dir/index.html.
    static let rfcChallenge = #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=ALGO, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#

    @Test("RFC 7616 §3.9.1 example", arguments: [
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"),
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"),
    ])
    func rfcExample(algorithm: String, response: String, cnonce: String) throws {
        let field = Self.rfcChallenge.replacing("ALGO", with: algorithm)
        let challenge = try #require(Challenge.parse(field)?.first)
        let answer = try #require(HTTPAuthentication.answer(challenge, user: "Mufasa", password: "Circle of Life",
                                                            method: "GET", uri: "/dir/index.html", cnonce: cnonce))
        #expect(answer.authorization.hasPrefix("Digest "))
        let parsed = try #require(Challenge.parse(answer.authorization)?.first)
        #expect(parsed["response"] == response)
        #expect(parsed["username"] == "Mufasa")
        #expect(parsed["realm"] == "http-auth@example.org")
        #expect(parsed["uri"] == "/dir/index.html")
        #expect(parsed["qop"] == "auth")
        #expect(parsed["nc"] == "00000001")
        #expect(parsed["cnonce"] == cnonce)
        #expect(parsed["opaque"] == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
        #expect(parsed["algorithm"] == algorithm)
    }

    @Test("Digest without qop uses RFC 2069's response")
    func noQop() throws {
        // RFC 2069 §2.4's example: Mufasa / CircleOfLife, GET /dir/index.html.
        let challenge = try #require(Challenge.parse(#"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)?.first)
        let answer = try #require(HTTPAuthentication.answer(challenge, user: "Mufasa", password: "CircleOfLife", method: "GET", uri: "/dir/index.html"))
        let parsed = try #require(Challenge.parse(answer.authorization)?.first)
        #expect(parsed["response"] == "1949323746fe6a43ef61f9606e7febea")
        #expect(parsed["qop"] == nil)
        #expect(parsed["nc"] == nil)
    }

    @Test("Basic answer (RFC 7617 §2's example)")
    func basic() throws {
        let answer = HTTPAuthentication.answer(Self.c("basic", [("realm", "WallyWorld")]), user: "Aladdin", password: "open sesame", method: "GET", uri: "/")
        #expect(answer?.authorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("a user name with quotes is escaped")
    func escaping() {
        #expect(HTTPAuthentication.quoted(#"a"b\c"#) == #""a\"b\\c""#)
    }
}
