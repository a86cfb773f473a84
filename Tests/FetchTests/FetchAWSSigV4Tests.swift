// `--aws-sigv4`: the signer against AWS's published Signature Version 4 test suite, curl 7.88's
// parsing of the provider spec, and curl and fetch on the wire (the signature of each captured
// request recomputed from that request: curl takes its date from the clock).
//
// Vectors: AWS's "Signature Version 4 Test Suite" (docs.aws.amazon.com/general/latest/gr/
// signature-v4-test-suite.html, as carried by aws/aws-sdk-js-v3
// packages/signature-v4/src/suite.fixture.ts): credentials AKIDEXAMPLE /
// wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, us-east-1, service "service", 2015-08-30T12:36:00Z,
// host example.amazonaws.com. Only cases whose query is already canonical (curl 7.88 signs the
// query as sent, unsorted).
@testable import fetch
import TLS
import Testing

@Suite("fetch --aws-sigv4")
struct FetchAWSSigV4Tests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let suiteTime = 1_440_938_160  // 2015-08-30T12:36:00Z

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path = "/"
        var query = ""
        var lines: [String] = []
        var body = ""
        var signedHeaders = "host;x-amz-date"
        var signature: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "get-vanilla", method: "GET", signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(name: "get-vanilla-empty-query-key", method: "GET", query: "Param1=value1",
               signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        Vector(name: "get-vanilla-query-unreserved", method: "GET",
               query: "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
               signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
               signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(name: "get-header-value-trim", method: "GET", lines: ["My-Header1: value1", "My-Header2:   \"a   b   c\"  "],
               signedHeaders: "host;my-header1;my-header2;x-amz-date", signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "post-vanilla", method: "POST", signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(name: "post-vanilla-query", method: "POST", query: "Param1=value1",
               signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Vector(name: "post-header-key-sort", method: "POST", lines: ["my-header1:value1"], signedHeaders: "host;my-header1;x-amz-date",
               signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        Vector(name: "post-header-value-case", method: "POST", lines: ["My-Header1: VALUE1"], signedHeaders: "host;my-header1;x-amz-date",
               signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        Vector(name: "post-x-www-form-urlencoded", method: "POST", lines: ["Content-Type: application/x-www-form-urlencoded"],
               body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
               signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        Vector(name: "post-x-www-form-urlencoded-parameters", method: "POST",
               lines: ["Content-Type: application/x-www-form-urlencoded; charset=utf8"], body: "Param1=value1",
               signedHeaders: "content-type;host;x-amz-date", signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
    ]

    @Test("AWS's test suite", arguments: vectors)
    func vector(_ vector: Vector) throws {
        let signer = try AWSSigV4(spec: "aws:amz:us-east-1:service", host: "example.amazonaws.com")
        let request = AWSSigV4.Request(method: vector.method, path: vector.path, query: vector.query, host: "example.amazonaws.com",
                                       headerLines: vector.lines, payload: Array(vector.body.utf8))
        let fields = signer.sign(request, accessKey: "AKIDEXAMPLE", secret: Self.secret, now: Self.suiteTime)
        #expect(fields == [
            HeaderField(name: "Authorization", value: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                        + "SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)"),
            HeaderField(name: "X-Amz-Date", value: "20150830T123600Z"),
        ])
    }

    @Test("HMAC-SHA256: RFC 4231 test cases 1 and 2")
    func hmac() {
        #expect(AWSSigV4.hex(MessageDigest.hmacSHA256(key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(AWSSigV4.hex(MessageDigest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("the spec as curl 7.88's sscanf reads it", arguments: [
        ("aws:amz:us-east-1:s3", "h", ["aws", "amz", "us-east-1", "s3"]),
        ("aws", "s3.eu-west-1.amazonaws.com", ["aws", "aws", "eu-west-1", "s3"]),
        ("aws:amz", "ec2.us-east-2.example.com", ["aws", "amz", "us-east-2", "ec2"]),
        ("aws:amz:r1", "svc.r2.example", ["aws", "amz", "r1", "svc"]),
        ("aws::r:s", "svc.r2.example", ["aws", "aws", "r2", "svc"]),  // %[^:] fails on an empty field: the rest is unread
        ("goog:goog:auto:storage extra", "h", ["goog", "goog", "auto", "storage"]),  // %s stops at a blank
    ])
    func spec(_ spec: String, _ host: String, _ expected: [String]) throws {
        let signer = try AWSSigV4(spec: spec, host: host)
        #expect([signer.provider0, signer.provider1, signer.region, signer.service] == expected)
    }

    @Test("curl 7.88's refusals", arguments: [
        ("", "a.b.c", TransferError(status: 43, message: "first provider can't be empty")),
        (":amz", "a.b.c", TransferError(status: 43, message: "first provider can't be empty")),
        ("aws", "localhost", TransferError(status: 3, message: "service missing in parameters and hostname")),
        ("aws", "svc.localhost", TransferError(status: 3, message: "region missing in parameters and hostname")),
        ("aws:amz:r", "localhost", TransferError(status: 3, message: "service missing in parameters and hostname")),
        ("aws", String(repeating: "s", count: 65) + ".r.x", TransferError(status: 3, message: "service too long in hostname")),
    ])
    func refusal(_ spec: String, _ host: String, _ error: TransferError) {
        #expect(throws: error) { try AWSSigV4(spec: spec, host: host) }
    }

    @Test("-H rules: Authorization turns signing off, a given X-Amz-Date is the timestamp, x-amz-content-sha256 is the payload hash")
    func headerRules() throws {
        let signer = try AWSSigV4(spec: "aws:amz:us-east-1:service", host: "example.amazonaws.com")
        var request = AWSSigV4.Request(method: "GET", path: "/", query: "", host: "example.amazonaws.com", headerLines: ["authorization: x"], payload: [])
        #expect(signer.sign(request, accessKey: "AKIDEXAMPLE", secret: Self.secret, now: 0).isEmpty)
        // get-vanilla's own date given as a header: the same signature, no second date header.
        request.headerLines = ["X-Amz-Date: 20150830T123600Z"]
        #expect(signer.sign(request, accessKey: "AKIDEXAMPLE", secret: Self.secret, now: 0) == [HeaderField(
            name: "Authorization", value: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")])
        // post-x-www-form-urlencoded with its payload hash given instead of its body (and signed as a header).
        request = AWSSigV4.Request(method: "POST", path: "/", query: "", host: "example.amazonaws.com",
                                   headerLines: ["X-Amz-Content-Sha256: 9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e "], payload: [])
        let signed = signer.sign(request, accessKey: "AKIDEXAMPLE", secret: Self.secret, now: Self.suiteTime)
        #expect(signed.first?.value.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                                               + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=") == true)
    }

    @Test("the URL's parts as curl signs them", arguments: [
        ("http://h.example/", "h.example", "h.example", "/", ""),
        ("http://h.example", "h.example", "h.example", "/", ""),
        ("http://h.example:80/a?b=1#f", "h.example", "h.example", "/a", "b=1"),
        ("https://h.example:8443/a/b?", "h.example", "h.example:8443", "/a/b", ""),
        ("http://[::1]:8080/x?y", "::1", "[::1]:8080", "/x", "y"),
    ])
    func urlParts(_ url: String, _ host: String, _ hostHeader: String, _ path: String, _ query: String) {
        let parts = AWSSigV4.URLParts(url)
        #expect([parts.host, parts.hostHeader, parts.path, parts.query] == [host, hostHeader, path, query])
    }

    @Test("RequestBuilder: the signature replaces Basic, first in the headers; none without -u")
    func builder() throws {
        guard case .run(let options) = try ArgumentWalker.parse(["--aws-sigv4", "aws:amz:us-east-1:service", "-u", "AKIDEXAMPLE:" + Self.secret,
                                                                  "-d", "Param1=value1", "http://example.amazonaws.com/"]) else { Issue.record(); return }
        let request = try RequestBuilder().request("http://example.amazonaws.com/", options: options)
        #expect(request.headers.map(\.name).prefix(2) == ["Authorization", "X-Amz-Date"])
        #expect(request.headers[0].value.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
        #expect(!request.headers.contains { $0.value.hasPrefix("Basic ") })
        guard case .run(let anonymous) = try ArgumentWalker.parse(["--aws-sigv4", "aws", "http://example.amazonaws.com/"]) else { Issue.record(); return }
        #expect(try RequestBuilder().request("http://example.amazonaws.com/", options: anonymous).headers.allSatisfy { $0.name != "Authorization" })
    }
}
