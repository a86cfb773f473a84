// Resumable downloads without sockets: which responses can be resumed (and with which If-Range
// validator), what a resumed request's answer means (append, start over, refuse), Content-Range
// parsing, and resume data that was tampered with.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

/// One response to a first (not resumed) request, and the validator it allows resuming with.
struct ResumableFixture: Sendable, CustomStringConvertible {
    let name: String
    let method: String
    let status: Int
    let headers: [String: String]
    let etag: String?
    let lastModified: String?
    let resumable: Bool

    var description: String { name }
}

private let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

let resumableFixtures: [ResumableFixture] = [
    // A strong ETag and Accept-Ranges: the ETag is the validator.
    .init(name: "strong etag", method: "GET", status: 200, headers: ["Accept-Ranges": "bytes", "ETag": "\"v1\""],
          etag: "\"v1\"", lastModified: nil, resumable: true),
    // Both: both kept, the ETag is sent.
    .init(name: "etag and last-modified", method: "GET", status: 200,
          headers: ["Accept-Ranges": "bytes", "ETag": "\"v1\"", "Last-Modified": lastModified],
          etag: "\"v1\"", lastModified: lastModified, resumable: true),
    // RFC 9110 §13.1.5: a weak ETag is never an If-Range; Last-Modified stands in.
    .init(name: "weak etag falls back to last-modified", method: "GET", status: 200,
          headers: ["Accept-Ranges": "bytes", "ETag": "W/\"v1\"", "Last-Modified": lastModified],
          etag: nil, lastModified: lastModified, resumable: true),
    .init(name: "weak etag alone", method: "GET", status: 200, headers: ["Accept-Ranges": "bytes", "ETag": "W/\"v1\""],
          etag: nil, lastModified: nil, resumable: false),
    .init(name: "no validator", method: "GET", status: 200, headers: ["Accept-Ranges": "bytes"],
          etag: nil, lastModified: nil, resumable: false),
    .init(name: "no Accept-Ranges", method: "GET", status: 200, headers: ["ETag": "\"v1\""],
          etag: nil, lastModified: nil, resumable: false),
    .init(name: "Accept-Ranges: none", method: "GET", status: 200, headers: ["Accept-Ranges": "none", "ETag": "\"v1\""],
          etag: nil, lastModified: nil, resumable: false),
    .init(name: "Accept-Ranges list with bytes", method: "GET", status: 200, headers: ["Accept-Ranges": "none, Bytes", "ETag": "\"v1\""],
          etag: "\"v1\"", lastModified: nil, resumable: true),
    // A 206 shows range support by itself.
    .init(name: "206 without Accept-Ranges", method: "GET", status: 206, headers: ["ETag": "\"v1\""],
          etag: "\"v1\"", lastModified: nil, resumable: true),
    .init(name: "POST", method: "POST", status: 200, headers: ["Accept-Ranges": "bytes", "ETag": "\"v1\""],
          etag: nil, lastModified: nil, resumable: false),
    .init(name: "404", method: "GET", status: 404, headers: ["Accept-Ranges": "bytes", "ETag": "\"v1\""],
          etag: nil, lastModified: nil, resumable: false),
]

/// The answer to a resumed request (sent for offset 100 with `If-Range: "v1"`) and what it means.
struct ResumeAnswerFixture: Sendable, CustomStringConvertible {
    let name: String
    let status: Int
    let headers: [String: String]
    let expected: ResumeDecision

    var description: String { name }
}

let resumeAnswerFixtures: [ResumeAnswerFixture] = [
    .init(name: "206 from the offset", status: 206, headers: ["Content-Range": "bytes 100-199/200", "ETag": "\"v1\""], expected: .append),
    .init(name: "206 of unknown length", status: 206, headers: ["Content-Range": "bytes 100-149/*"], expected: .append),
    .init(name: "206 without ETag", status: 206, headers: ["Content-Range": "bytes 100-199/200"], expected: .append),
    // If-Range failed: the server sends the whole (changed) resource.
    .init(name: "200: the resource changed", status: 200, headers: ["ETag": "\"v2\""], expected: .restart),
    .init(name: "200 without range support", status: 200, headers: [:], expected: .restart),
    .init(name: "404: an error page replaces the file", status: 404, headers: [:], expected: .restart),
    .init(name: "206 from another offset", status: 206, headers: ["Content-Range": "bytes 0-199/200"], expected: .fail(.contentRangeMismatch)),
    .init(name: "206 without Content-Range", status: 206, headers: [:], expected: .fail(.contentRangeMismatch)),
    .init(name: "206 unsatisfied-range form", status: 206, headers: ["Content-Range": "bytes */200"], expected: .fail(.contentRangeMismatch)),
    .init(name: "206 other unit", status: 206, headers: ["Content-Range": "items 100-199/200"], expected: .fail(.contentRangeMismatch)),
    .init(name: "206 with a changed ETag", status: 206, headers: ["Content-Range": "bytes 100-199/200", "ETag": "\"v2\""],
          expected: .fail(.validatorChanged)),
]

/// Content-Range values and what they parse to (nil: refused).
let contentRangeFixtures: [(String, ContentRange?)] = [
    ("bytes 0-0/1", ContentRange(first: 0, last: 0, length: 1)),
    ("bytes 100-199/200", ContentRange(first: 100, last: 199, length: 200)),
    ("BYTES 5-9/*", ContentRange(first: 5, last: 9, length: nil)),
    ("  bytes 5-9/10  ", ContentRange(first: 5, last: 9, length: 10)),
    ("bytes 9-5/10", nil),  // last before first
    ("bytes 5-9/9", nil),  // length not past last
    ("bytes -5-9/10", nil),
    ("bytes 5-+9/10", nil),
    ("bytes 5 -9/10", nil),
    ("bytes 5-9", nil),
    ("bytes */10", nil),
    ("bytes 99999999999999999999-99999999999999999999/*", nil),  // overflow
    ("bytes=5-9/10", nil),
    ("", nil),
]

extension ContentRange {
    init(first: Int, last: Int, length: Int?) {
        self = ContentRange(parsing: "bytes \(first)-\(last)/\(length.map(String.init) ?? "*")")!
    }
}

@Suite("Resume decisions")
struct ResumeDecisionTests {
    @Test("which responses can be resumed, and with which validator", arguments: resumableFixtures)
    func resumable(_ fixture: ResumableFixture) {
        let validator = ResumeDecision.validator(method: fixture.method, status: fixture.status, headers: HTTPHeaders(fixture.headers))
        #expect((validator != nil) == fixture.resumable)
        if let validator {
            #expect(validator.etag == fixture.etag)
            #expect(validator.lastModified == fixture.lastModified)
        }
    }

    @Test("the answer to a resumed request", arguments: resumeAnswerFixtures)
    func answer(_ fixture: ResumeAnswerFixture) {
        let decision = ResumeDecision.decide(offset: 100, etag: "\"v1\"", status: fixture.status, headers: HTTPHeaders(fixture.headers))
        #expect(decision == fixture.expected)
    }

    @Test("Content-Range parsing", arguments: contentRangeFixtures.indices)
    func contentRange(_ index: Int) {
        let (text, expected) = contentRangeFixtures[index]
        #expect(ContentRange(parsing: text) == expected, "\(text)")
    }
}

/// A valid blob's fields, changed one way each.
private func blob(_ change: (inout DownloadResumeData) -> Void = { _ in }) -> Data {
    var value = DownloadResumeData(url: "http://127.0.0.1:1/file", method: "GET", headers: [["Accept", "*/*"]],
                                   file: "Lariat_3F2504E0-4F89-11D3-9A0C-0305E82C3301.download",
                                   device: 1, inode: 2, offset: 100, etag: "\"v1\"", lastModified: nil)
    change(&value)
    return value.encoded()
}

/// Tampered resume data and the error it must give.
let tamperedBlobs: [(String, Data, ResumeDataError.Kind)] = [
    ("not JSON", Data("hello".utf8), .malformed),
    ("JSON of another shape", Data("{\"a\":1}".utf8), .malformed),
    ("another format", blob { $0.format = "com.apple.resume" }, .malformed),
    ("version 2", blob { $0.version = 2 }, .unsupportedVersion),
    ("absolute path", blob { $0.file = "/etc/passwd" }, .fileOutsideTemporaryDirectory),
    ("parent directory", blob { $0.file = "../Lariat_3F2504E0-4F89-11D3-9A0C-0305E82C3301.download" }, .fileOutsideTemporaryDirectory),
    ("another name", blob { $0.file = "Lariat_x.download" }, .fileOutsideTemporaryDirectory),
    ("separator inside", blob { $0.file = "Lariat_3F2504E0-4F89-11D3-9A0C/0305E82C3301.download" }, .fileOutsideTemporaryDirectory),
    ("negative offset", blob { $0.offset = -1 }, .malformed),
    ("no validator", blob { $0.etag = nil }, .malformed),
    ("file URL", blob { $0.url = "file:///etc/passwd" }, .malformed),
    ("too large", Data(repeating: 32, count: DownloadResumeData.maxEncodedSize + 1), .tooLarge),
]

@Suite("Resume data")
struct ResumeDataFormatTests {
    @Test("a valid blob round-trips")
    func roundTrip() throws {
        let decoded = try DownloadResumeData.decode(blob())
        #expect(decoded.offset == 100)
        #expect(decoded.encoded() == blob())
        let request = try decoded.resumedRequest()
        #expect(request.headers.value(for: "Range") == "bytes=100-")
        #expect(request.headers.value(for: "If-Range") == "\"v1\"")
        #expect(request.headers.value(for: "Accept") == "*/*")
    }

    @Test("tampered resume data is refused with its reason", arguments: tamperedBlobs.indices)
    func tampered(_ index: Int) {
        let (name, data, kind) = tamperedBlobs[index]
        #expect(throws: ResumeDataError(kind), "\(name)") { try DownloadResumeData.decode(data) }
    }
}
