// ContentDecoder without sockets: known gzip bytes fed whole and in runs of every size, multiple
// members, trailer mismatches, truncation at every offset, garbage, trailing bytes, zlib and raw
// deflate, and the expansion limits. Fixtures made by `gzip -9n` are literal bytes; larger ones
// come from zlib's deflate (`ZlibCompression`), whose output the decoder must round-trip.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import LariatTestSupport
import Testing
@testable import Client

/// `printf 'hello, lariat\n' | gzip -9n`.
private let helloGzip: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51,
    0xc8, 0x49, 0x2c, 0xca, 0x4c, 0x2c, 0xe1, 0x02, 0x00, 0x4c, 0xed, 0x3b, 0x1f, 0x0e, 0x00, 0x00, 0x00,
]
private let hello = Array("hello, lariat\n".utf8)

/// Decodes `input` fed in runs of `run` bytes, then finishes.
private func decode(_ input: [UInt8], coding: ContentDecoder.Coding = .gzip, run: Int? = nil,
                    limits: ContentDecoding = .automatic) -> Result<[UInt8], ContentDecodingError> {
    let decoder = ContentDecoder(coding: coding, limits: limits)
    var output: [UInt8] = []
    let step = max(1, run ?? input.count)
    do {
        var start = 0
        while start < input.count {
            let end = min(start + step, input.count)
            try input[start..<end].withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> Void in
                try decoder.decode(bytes) { output.append(contentsOf: $0) }
            }
            start = end
        }
        try decoder.finish()
        return .success(output)
    } catch {
        return .failure(error as! ContentDecodingError)  // the decoder throws only its own error
    }
}

private func compressed(_ bytes: [UInt8], _ format: ZlibCompression.Format) -> [UInt8] {
    try! bytes.withUnsafeBytes { try ZlibCompression.compress($0, format: format) }
}

/// Text that compresses but not trivially, larger than the decoder's 64 KiB output buffer.
private let text: [UInt8] = {
    var generator = SplitMix(seed: 12)
    let words = ["swift", "lariat", "gzip", "deflate", "body", "stream", "window", "crc"]
    var out: [UInt8] = []
    while out.count < 300_000 { out += Array(words[Int(generator.next() % 8)].utf8) + [0x20] }
    return out
}()


@Suite("Content decoder")
struct ContentDecoderTests {
    @Test("gzip -9n fixture, whole and in runs of every size 1...n")
    func knownGzipEverySplit() throws {
        for run in 1...helloGzip.count {
            #expect(sameBytes(try decode(helloGzip, run: run).get(), hello), "run \(run)")
        }
    }

    @Test("two gzip members decode as their concatenation, at every run size")
    func multiMember() throws {
        let twice = helloGzip + compressed(Array("second member\n".utf8), .gzip)
        for run in 1...twice.count {
            #expect(sameBytes(try decode(twice, run: run).get(), hello + Array("second member\n".utf8)), "run \(run)")
        }
    }

    @Test("gzip trailer: CRC-32 or ISIZE mismatch is corrupt, never a success",
          arguments: [
              (index: helloGzip.count - 8, name: "CRC-32"),
              (index: helloGzip.count - 1, name: "ISIZE"),
          ])
    func trailerMismatch(index: Int, name: String) throws {
        var bad = helloGzip
        bad[index] ^= 0x01
        for run in [1, 5, bad.count] {
            #expect(throws: ContentDecodingError.self) { try decode(bad, run: run).get() }
            if case .failure(let error) = decode(bad, run: run) { #expect(error.kind == .corrupt, "\(name)") }
        }
    }

    @Test("every proper prefix of a gzip body is truncated")
    func truncatedAtEveryOffset() throws {
        for length in 1..<helloGzip.count {
            guard case .failure(let error) = decode(Array(helloGzip.prefix(length))) else {
                Issue.record("prefix \(length) decoded as a success")
                continue
            }
            #expect(error.kind == .truncated, "prefix \(length): \(error)")
        }
    }

    @Test("garbage and bad headers are corrupt",
          arguments: [
              (name: "plain text", bytes: Array("this is not gzip".utf8), coding: ContentDecoder.Coding.gzip),
              (name: "gzip magic, bad method", bytes: [0x1f, 0x8b, 0x07, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3], coding: .gzip),
              (name: "gzip, then zero padding", bytes: helloGzip + [0, 0, 0, 0], coding: .gzip),
              (name: "gzip, then text", bytes: helloGzip + Array("junk".utf8), coding: .gzip),
              (name: "raw deflate: reserved block type 3", bytes: [0xff, 0xff, 0xff, 0xff], coding: .deflate),
          ])
    func garbage(name: String, bytes: [UInt8], coding: ContentDecoder.Coding) throws {
        for run in [1, 3, bytes.count] {
            guard case .failure(let error) = decode(bytes, coding: coding, run: run) else {
                Issue.record("\(name) decoded as a success (run \(run))")
                continue
            }
            #expect(error.kind == .corrupt, "\(name) run \(run): \(error)")
        }
    }

    @Test("deflate: zlib-wrapped and raw deflate both decode, at several run sizes",
          arguments: [ZlibCompression.Format.zlib, .raw])
    func deflateForms(format: ZlibCompression.Format) throws {
        let body = compressed(text, format)
        for run in [1, 2, 3, 1000, 65_537, body.count] {
            #expect(sameBytes(try decode(body, coding: .deflate, run: run).get(), text), "run \(run)")
        }
        let small = compressed(hello, format)
        for run in 1...small.count {
            #expect(sameBytes(try decode(small, coding: .deflate, run: run).get(), hello), "run \(run)")
        }
    }

    @Test("deflate: a byte after the stream is trailing data; a bad Adler-32 is corrupt")
    func deflateTrailer() throws {
        let zlib = compressed(hello, .zlib)
        #expect(throws: ContentDecodingError.self) { try decode(zlib + [0], coding: .deflate).get() }
        if case .failure(let error) = decode(zlib + [0], coding: .deflate) { #expect(error.kind == .trailingData) }
        var bad = zlib
        bad[bad.count - 1] ^= 0x10
        if case .failure(let error) = decode(bad, coding: .deflate) { #expect(error.kind == .corrupt) } else {
            Issue.record("a bad Adler-32 decoded as a success")
        }
        if case .failure(let error) = decode([0x78], coding: .deflate) { #expect(error.kind == .truncated) } else {
            Issue.record("one byte of deflate decoded as a success")
        }
    }

    @Test("large gzip body across the output buffer, at several run sizes")
    func largeRoundTrip() throws {
        let body = compressed(text, .gzip)
        for run in [1, 4096, 65_536, 65_537, body.count] {
            #expect(sameBytes(try decode(body, run: run).get(), text), "run \(run)")
        }
    }

    @Test("an empty body is an empty success (HEAD, 204, Content-Length: 0)")
    func emptyBody() throws {
        #expect(try decode([]).get() == [])
        #expect(try decode([], coding: .deflate).get() == [])
    }

    @Test("a bomb stops at the ratio limit; nothing past the limit reaches the sink")
    func bombRatio() throws {
        let zeros = [UInt8](repeating: 0, count: 32 << 20)
        let bomb = compressed(zeros, .gzip)  // about 32 KiB: a ratio near 1,000
        let decoder = ContentDecoder(coding: .gzip, limits: ContentDecoding())
        var delivered = 0
        var thrown: ContentDecodingError?
        do {
            try bomb.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> Void in try decoder.decode(bytes) { delivered += $0.count } }
        } catch {
            thrown = error as? ContentDecodingError
        }
        #expect(thrown?.kind == .expansionLimitExceeded)
        #expect(thrown?.urlErrorCode == URLError.Code.dataLengthExceedsMaximum)
        // The ratio is checked once 1 MiB was decoded; then at most 100 decoded per encoded byte.
        #expect(delivered <= max(1 << 20, 100 * decoder.encodedCount) + ContentDecoder.outputCapacity)
        #expect(delivered < 4 << 20)
    }

    @Test("absolute limit: maxDecodedBytes, and no limit at all when both are nil")
    func absoluteLimit() throws {
        let body = compressed(text, .gzip)
        let limited = ContentDecoding(maxExpansionRatio: nil, maxDecodedBytes: 100_000)
        guard case .failure(let error) = decode(body, limits: limited) else {
            Issue.record("limit not enforced")
            return
        }
        #expect(error.kind == .expansionLimitExceeded)
        #expect(error.decodedCount <= 100_000)
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let unlimited = ContentDecoding(maxExpansionRatio: nil, maxDecodedBytes: nil)
        #expect(try decode(compressed(zeros, .gzip), limits: unlimited).get().count == zeros.count)
    }

    @Test("Content-Encoding values choose the decoder",
          arguments: [
              (values: ["gzip"], status: 200, expected: ContentDecoder.Coding?.some(.gzip)),
              (values: ["x-gzip"], status: 200, expected: .gzip),
              (values: ["GZip"], status: 200, expected: .gzip),
              (values: ["deflate"], status: 200, expected: .deflate),
              (values: [" gzip , identity "], status: 200, expected: .gzip),
              (values: ["identity", "deflate"], status: 200, expected: .deflate),
              (values: ["identity"], status: 200, expected: nil),
              (values: ["br"], status: 200, expected: nil),
              (values: ["gzip, gzip"], status: 200, expected: nil),
              (values: ["deflate", "gzip"], status: 200, expected: nil),
              (values: [""], status: 200, expected: nil),
              (values: ["gzip"], status: 206, expected: nil),
          ])
    func chooseDecoder(values: [String], status: Int, expected: ContentDecoder.Coding?) throws {
        #expect(ContentDecoder.make(contentEncoding: values, status: status, configuration: .automatic)?.coding == expected)
        #expect(ContentDecoder.make(contentEncoding: values, status: status, configuration: .disabled) == nil)
    }

    @Test("the zlib header test follows RFC 1950 (every first byte, with a valid check byte)")
    func zlibHeaderSniff() throws {
        for cmf in UInt8.min...UInt8.max {
            let check = UInt8((31 - (UInt16(cmf) << 8) % 31) % 31)
            let expected = cmf & 0x0F == 8 && cmf >> 4 <= 7
            #expect(ContentDecoder.isZlibHeader(cmf, check) == expected, "CMF \(cmf)")
        }
    }
}

/// Whether `actual` holds exactly `expected`'s bytes: a plain Bool, so a failure does not make
/// the testing library diff two large arrays element by element.
func sameBytes(_ actual: (some Sequence<UInt8>)?, _ expected: [UInt8]) -> Bool {
    guard let actual else { return false }
    return actual.elementsEqual(expected)
}
