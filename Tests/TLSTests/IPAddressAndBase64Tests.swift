import Testing
import TLS

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("127.0.0.1", [127, 0, 0, 1] as [UInt8]),
        ("0.0.0.0", [0, 0, 0, 0]),
        ("255.255.255.255", [255, 255, 255, 255]),
        ("::1", [UInt8](repeating: 0, count: 15) + [1]),
        ("[::1]", [UInt8](repeating: 0, count: 15) + [1]),
        ("::", [UInt8](repeating: 0, count: 16)),
        ("2001:db8::8:800:200c:417a", [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0x08, 0x08, 0, 0x20, 0x0c, 0x41, 0x7a]),
        ("::ffff:192.0.2.1", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1]),
        ("1:2:3:4:5:6:7:8", [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]),
    ])
    func parses(_ text: String, _ bytes: [UInt8]) {
        #expect(IPAddress(text)?.bytes == bytes)
    }

    @Test(arguments: [
        "localhost", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1.2.3.-4", " 1.2.3.4", "1:2:3:4:5:6:7:8:9",
        "1::2::3", "12345::", "fe80::1%eth0", ":::", "1:2:3:4:5:6:7", "::1.2.3", "example.com", "",
    ])
    func refuses(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [("::1", "::1"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("1:0:0:0:0:0:0:0", "1::"), ("10.0.0.1", "10.0.0.1")])
    func rendersRFC5952(_ text: String, _ expected: String) {
        #expect(IPAddress(text)?.description == expected)
    }
}

@Suite struct Base64Tests {
    // RFC 4648 section 10 test vectors.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func rfc4648Vectors(_ plain: String, _ encoded: String) throws {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func allByteValuesRoundTrip() throws {
        let bytes = (0...255).map(UInt8.init)
        for length in 0...bytes.count {
            #expect(try Base64.decode(Base64.encode(bytes.prefix(length))) == Array(bytes.prefix(length)))
        }
    }

    @Test(arguments: ["Zg=", "Zg", "Z===", "Zm9v\n", "Zm-v", "Zm_v", "=Zm9", "Zh==", "Zm9=Zm9v", "Zm9vY==="])
    func refusesMalformed(_ text: String) {
        #expect(throws: TLSError.self) { try Base64.decode(text) }
    }
}
