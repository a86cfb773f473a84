// The URL's host after percent-decoding: refused when it could smuggle a different host past an
// allow-list (`localhost%00.evil.example`), converted to A-labels when it is Unicode. Punycode
// against RFC 3492's sample strings; HostName and Session.transportRequest as tables; one run on
// loopback proving a refused host never connects.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
import Wire
import LariatTestSupport
@testable import Client
@testable import Transport

@Suite("Host validation")
struct HostValidationTests {
    /// RFC 3492 §7.1 sample strings (A-G, J-S; H and I are Korean and Russian, the latter given
    /// with an uppercase D to show case is kept) as code points, and their Punycode.
    static let samples: [(String, [UInt32], String)] = [
        ("A Arabic (Egyptian)", [0x0644, 0x064A, 0x0647, 0x0645, 0x0627, 0x0628, 0x062A, 0x0643, 0x0644, 0x0645, 0x0648, 0x0634, 0x0639, 0x0631, 0x0628, 0x064A, 0x061F], "egbpdaj6bu4bxfgehfvwxn"),
        ("B Chinese (simplified)", [0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48, 0x4E0D, 0x8BF4, 0x4E2D, 0x6587], "ihqwcrb4cv8a8dqg056pqjye"),
        ("C Chinese (traditional)", [0x4ED6, 0x5011, 0x7232, 0x4EC0, 0x9EBD, 0x4E0D, 0x8AAA, 0x4E2D, 0x6587], "ihqwctvzc91f659drss3x8bo0yb"),
        ("D Czech", [0x50, 0x72, 0x6F, 0x010D, 0x70, 0x72, 0x6F, 0x73, 0x74, 0x011B, 0x6E, 0x65, 0x6D, 0x6C, 0x75, 0x76, 0xED, 0x010D, 0x65, 0x73, 0x6B, 0x79], "Proprostnemluvesky-uyb24dma41a"),
        ("E Hebrew", [0x05DC, 0x05DE, 0x05D4, 0x05D4, 0x05DD, 0x05E4, 0x05E9, 0x05D5, 0x05D8, 0x05DC, 0x05D0, 0x05DE, 0x05D3, 0x05D1, 0x05E8, 0x05D9, 0x05DD, 0x05E2, 0x05D1, 0x05E8, 0x05D9, 0x05EA], "4dbcagdahymbxekheh6e0a7fei0b"),
        ("F Hindi (Devanagari)", [0x092F, 0x0939, 0x0932, 0x094B, 0x0917, 0x0939, 0x093F, 0x0928, 0x094D, 0x0926, 0x0940, 0x0915, 0x094D, 0x092F, 0x094B, 0x0902, 0x0928, 0x0939, 0x0940, 0x0902, 0x092C, 0x094B, 0x0932, 0x0938, 0x0915, 0x0924, 0x0947, 0x0939, 0x0948, 0x0902], "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd"),
        ("G Japanese", [0x306A, 0x305C, 0x307F, 0x3093, 0x306A, 0x65E5, 0x672C, 0x8A9E, 0x3092, 0x8A71, 0x3057, 0x3066, 0x304F, 0x308C, 0x306A, 0x3044, 0x306E, 0x304B], "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa"),
        ("L 3<nen>B<gumi><kinpachi><sensei>", [0x33, 0x5E74, 0x42, 0x7D44, 0x91D1, 0x516B, 0x5148, 0x751F], "3B-ww4c5e180e575a65lsy2b"),
        ("M <amuro><namie>-with-SUPER-MONKEYS", [0x5B89, 0x5BA4, 0x5948, 0x7F8E, 0x6075, 0x2D, 0x77, 0x69, 0x74, 0x68, 0x2D, 0x53, 0x55, 0x50, 0x45, 0x52, 0x2D, 0x4D, 0x4F, 0x4E, 0x4B, 0x45, 0x59, 0x53], "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"),
        ("N Hello-Another-Way-<sorezore><no><basho>", [0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x2D, 0x41, 0x6E, 0x6F, 0x74, 0x68, 0x65, 0x72, 0x2D, 0x57, 0x61, 0x79, 0x2D, 0x305D, 0x308C, 0x305E, 0x308C, 0x306E, 0x5834, 0x6240], "Hello-Another-Way--fc4qua05auwb3674vfr0b"),
        ("O <hitotsu><yane><no><shita>2", [0x3072, 0x3068, 0x3064, 0x5C4B, 0x6839, 0x306E, 0x4E0B, 0x32], "2-u9tlzr9756bt3uc0v"),
        ("P Maji<de>Koi<suru>5<byou><mae>", [0x4D, 0x61, 0x6A, 0x69, 0x3067, 0x4B, 0x6F, 0x69, 0x3059, 0x308B, 0x35, 0x79D2, 0x524D], "MajiKoi5-783gue6qz075azm5e"),
        ("Q <pafii>de<runba>", [0x30D1, 0x30D5, 0x30A3, 0x30FC, 0x64, 0x65, 0x30EB, 0x30F3, 0x30D0], "de-jg4avhby1noc0d"),
        ("R <sono><supiido><de>", [0x305D, 0x306E, 0x30B9, 0x30D4, 0x30FC, 0x30C9, 0x3067], "d9juau41awczczp"),
        ("S -> $1.00 <-", [0x2D, 0x3E, 0x20, 0x24, 0x31, 0x2E, 0x30, 0x30, 0x20, 0x3C, 0x2D], "-> $1.00 <--"),
        ("bücher", [0x62, 0xFC, 0x63, 0x68, 0x65, 0x72], "bcher-kva"),
    ]

    @Test("Punycode: RFC 3492 samples encode and decode", arguments: samples)
    func punycode(_ name: String, _ codePoints: [UInt32], _ encoded: String) throws {
        let scalars = codePoints.map { Unicode.Scalar($0)! }
        #expect(Punycode.encode(scalars) == encoded)
        #expect(Punycode.decode(encoded) == scalars)
    }

    @Test("Punycode: malformed input is refused, not trapped", arguments: [
        "99999999999999999999", "a-é", "!", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "a-9", "-",
        String(repeating: "a", count: 1_001),
    ])
    func malformedPunycode(_ text: String) {
        // "-" alone decodes to nothing (no basic code points, no deltas): allowed by the RFC.
        if text == "-" { #expect(Punycode.decode(text) == []); return }
        #expect(Punycode.decode(text) == nil)
    }

    @Test("hosts accepted, in wire form", arguments: [
        // ASCII names keep their case (HostResolver overrides match exactly)
        ("example.com", "example.com"),
        ("Example.COM", "Example.COM"),
        ("example.com.", "example.com."),
        ("my_host-1.example", "my_host-1.example"),
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
        // IPv6, as URL reports it (no brackets) or bracketed
        ("::1", "::1"),
        ("[::1]", "::1"),
        ("2001:db8::7", "2001:db8::7"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
        // Unicode → A-labels: lowercased, NFC, Punycode
        ("bücher.example", "xn--bcher-kva.example"),
        ("BÜCHER.example", "xn--bcher-kva.example"),
        ("bu\u{0308}cher.example", "xn--bcher-kva.example"),
        ("münchen.de", "xn--mnchen-3ya.de"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        ("bücher。example", "xn--bcher-kva.example"),
        ("ü.ü.", "xn--tda.xn--tda."),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        // an A-label with ß (PVALID in IDNA 2008), as Foundation's ICU parser makes for straße.de
        ("xn--strae-oqa.de", "xn--strae-oqa.de"),
    ] as [(String, String)])
    func accepted(_ host: String, _ wire: String) throws {
        #expect(try HostName.wireForm(of: host) == wire)
    }

    @Test("hosts refused", arguments: [
        // what percent-decoding can smuggle in
        ("localhost\u{0}.evil.example", HostName.Rejection.forbidden("\u{0}")),
        ("evil.example/.good.example", .forbidden("/")),
        ("evil.example\\.good.example", .forbidden("\\")),
        ("user@good.example", .forbidden("@")),
        ("good.example%2e", .forbidden("%")),
        ("a b", .forbidden(" ")),
        ("tab\there", .forbidden("\t")),
        ("crlf\r\nHost: x", .forbidden("\r")),
        ("del\u{7F}", .forbidden("\u{7F}")),
        ("a#b", .forbidden("#")),
        ("a?b", .forbidden("?")),
        ("a&b", .forbidden("&")),
        // structure
        ("a..b", .emptyLabel),
        (".a", .emptyLabel),
        ("a.b..", .emptyLabel),
        (String(repeating: "a", count: 64) + ".example", .labelTooLong),
        (Array(repeating: String(repeating: "a", count: 50), count: 6).joined(separator: "."), .nameTooLong),
        // IPv6
        ("[::1", .invalidIPv6),
        ("::g", .invalidIPv6),
        ("1:2:3:4:5:6:7:8:9", .invalidIPv6),
        ("fe80::1%eth0", .zoneIdentifier),
        ("[v1.fe]", .invalidIPv6),
        ("[]", .empty),
        // Unicode labels: what IDNA does not allow, or Lariat does not map
        ("\u{202E}moc.example", .forbidden("\u{202E}")),
        ("a\u{200D}b.example", .forbidden("\u{200D}")),
        ("☃.example", .forbidden("☃")),
        ("ab\u{00A0}c.example", .forbidden("\u{00A0}")),
        ("\u{0301}a.example", .invalidLabel("it starts with a combining mark")),
        ("-ü.example", .invalidLabel("it starts or ends with a hyphen")),
        ("ab--ü.example", .invalidLabel("it has hyphens in its third and fourth places")),
        // … which UTS 46 would map and Lariat refuses instead: fullwidth, ligature, ß, final sigma
        ("ｅｘａｍｐｌｅ.com", .forbidden("ｅ")),
        ("ﬁ.example", .forbidden("ﬁ")),
        ("straße.de", .forbidden("ß")),
        ("σας.gr", .forbidden("ς")),
        // A-labels that are not
        ("xn--.example", .invalidALabel("xn--")),
        ("xn--abc-.example", .invalidALabel("xn--abc-")),
        ("xn--99999999999999.example", .invalidALabel("xn--99999999999999")),
        ("xn--ls8h.la", .invalidALabel("xn--ls8h")),
    ] as [(String, HostName.Rejection)])
    func refused(_ host: String, _ rejection: HostName.Rejection) {
        #expect(throws: rejection) { try HostName.wireForm(of: host) }
    }

    @Test("transportRequest: the A-label goes to the key (resolution, SNI, trust) and Host", arguments: [
        ("https://bücher.example/", "xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("http://B%C3%BCcher.example:8080/x", "xn--bcher-kva.example", "xn--bcher-kva.example:8080"),
        ("http://[::1]:8080/", "::1", "[::1]:8080"),
        ("http://Example.test/", "Example.test", "Example.test"),
    ] as [(String, String, String)])
    func mapped(_ url: String, _ host: String, _ authority: String) throws {
        let transport = try Session().transportRequest(for: URLRequest(url: URL(string: url)!))
        #expect(transport.key.host == host)
        #expect(transport.head.authority == authority)
    }

    @Test("transportRequest: a host that fails validation is AFError.invalidURL", arguments: [
        "http://localhost%00.evil.example:8080/",
        "http://evil.example%2F.good.example/",
        "http://good.example%40evil.example/",
        "http://%E2%80%AE.example/",
        "http://a%20b/",
    ])
    func refusedURL(_ url: String) throws {
        #expect {
            _ = try Session().transportRequest(for: URLRequest(url: URL(string: url)!))
        } throws: { error in
            (error as? AFError)?.isInvalidURLError == true
        }
    }
}

extension ClientIntegrationTests {
    @Suite("Host validation on loopback")
    struct HostValidationIntegrationTests {
        @Test("localhost%00.evil.example with a Host header: refused, nothing connects")
        func nulInHost() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse()])
            defer { server.stop() }
            let response = await retained(Session()).request(
                "http://localhost%00.evil.example:\(server.port)/", headers: ["Host": "x"]
            ).serializingData().response
            guard case .failure(let error) = response.result else {
                Issue.record("the request went out: \(response.result)")
                return
            }
            #expect(error.isInvalidURLError, "\(error)")
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.connectionCount == 0)
        }
    }
}
