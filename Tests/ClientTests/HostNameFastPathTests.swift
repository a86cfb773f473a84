// HostName.plainASCIIName: the allocation-free path of `wireForm` (issue 9) takes only hosts the
// full path returns unchanged, and leaves every other host (and every error) to the full path.
import Testing
@testable import Client

@Suite("Host name fast path")
struct HostNameFastPathTests {
    @Test("plain ASCII names and IPv4 addresses take the fast path unchanged", arguments: [
        "127.0.0.1", "example.com", "Example.COM", "a.b.", "my_host~1", "x-n--.example",
        String(repeating: "a", count: 63) + ".example",
        Array(repeating: String(repeating: "a", count: 49), count: 5).joined(separator: ".") + "abcd",  // 253 bytes
    ])
    func fast(_ host: String) throws {
        #expect(HostName.plainASCIIName(host) == host)
        #expect(try HostName.wireForm(of: host) == host)
    }

    @Test("everything else is left to the full path", arguments: [
        "", ".", ".a", "a..b", "::1", "[::1]", "bücher.example", "xn--bcher-kva.example", "XN--bcher-kva.example",
        "a.xn--bcher-kva", "host%00", "a b", "a/b", "a@b",
        String(repeating: "a", count: 64) + ".example",
        Array(repeating: String(repeating: "a", count: 49), count: 5).joined(separator: ".") + "abcde",  // 254 bytes
    ])
    func slow(_ host: String) {
        #expect(HostName.plainASCIIName(host) == nil)
    }

    @Test("a 253-byte name with a final dot is still plain")
    func trailingDot() throws {
        let host = Array(repeating: String(repeating: "a", count: 49), count: 5).joined(separator: ".") + "abcd."
        #expect(HostName.plainASCIIName(host) == host)
        #expect(try HostName.wireForm(of: host) == host)
    }
}
