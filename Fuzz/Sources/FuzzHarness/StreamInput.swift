// How a fuzz input becomes a response stream: which requests it answers, under which limits, and
// where it is split. The decoding is deliberately trivial so a crasher can be read by eye and so
// `Tests/WireTests/FuzzReplayTests.swift` can decode the same files the same way.
//
//   parser input:  [methods] [options] stream…
//   chunked input: [options] body…   (stream = `chunkedHead` + body)
//
//   methods byte:  bits 0-1: count - 1 (3 means 1); bits 2-3, 4-5, 6-7: one method each,
//                  0 = GET, 1 = OPTIONS (the one request that offers `Upgrade`, as in RFC 2817's
//                  `OPTIONS *` upgrade), 2 = HEAD, 3 = CONNECT
//   options byte:  bits 0-1: limits (0 `.default`, 1 and 3 `smallLimits`, 2 `edgeLimits`);
//                  bits 2-7: the split seed

import Wire

/// A response stream to parse, with everything the oracles need to know about it.
public struct StreamCase: Sendable {
    /// The requests the stream answers, in order.
    public var methods: [RequestMethod]
    /// The limits to parse with.
    public var limits: ParserLimits
    /// Seeds the pseudo-random split (``Splits/seeded(count:seed:)``).
    public var splitSeed: UInt64
    /// The response bytes.
    public var stream: [UInt8]

    /// Limits small enough for the fuzzer to reach every one of them.
    public static let smallLimits = ParserLimits(
        maxStatusLineLength: 64, maxHeaderSectionSize: 256, maxFieldCount: 8, maxChunkSizeDigits: 4,
        maxChunkExtensionLength: 16, maxTrailerSectionSize: 128, maxInterimResponses: 3, maxChunkedOverhead: 64
    )

    /// Limits at their edges: zero where zero means something (no interim response, no chunk
    /// extension, no trailer field), and a header section limit below the status line limit.
    public static let edgeLimits = ParserLimits(
        maxStatusLineLength: 200, maxHeaderSectionSize: 100, maxFieldCount: 1, maxChunkSizeDigits: 1,
        maxChunkExtensionLength: 0, maxTrailerSectionSize: 2, maxInterimResponses: 0
    )

    /// The limits an options byte names.
    public static func limits(_ options: UInt8) -> ParserLimits {
        switch options & 3 {
        case 0: return .default
        case 2: return edgeLimits
        default: return smallLimits
        }
    }

    /// The head in front of every `chunked` input: one chunked response to the first of two GETs.
    public static let chunkedHead: [UInt8] = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

    /// Decodes a `parser` input: methods byte, options byte, stream.
    public init(parserInput data: UnsafeRawBufferPointer) {
        let methodsByte = data.count > 0 ? data[0] : 0
        let options = data.count > 1 ? data[1] : 0
        self.methods = Self.methods(methodsByte)
        self.limits = Self.limits(options)
        self.splitSeed = UInt64(options >> 2)
        self.stream = data.count > 2 ? Array(data[2...]) : []
    }

    /// Decodes a `chunked` input: options byte, then body bytes after ``chunkedHead``.
    public init(chunkedInput data: UnsafeRawBufferPointer) {
        let options = data.count > 0 ? data[0] : 0
        self.methods = [.get, .get]
        self.limits = Self.limits(options)
        self.splitSeed = UInt64(options >> 2)
        self.stream = Self.chunkedHead + (data.count > 1 ? Array(data[1...]) : [])
    }

    /// The methods a methods byte names (see the table at the top of this file).
    public static func methods(_ byte: UInt8) -> [RequestMethod] {
        let count = Int(byte & 3) % 3 + 1
        return (0..<count).map { index in
            switch (byte >> (2 + 2 * UInt8(index))) & 3 {
            case 1: return .options
            case 2: return .head
            case 3: return .connect
            default: return .get
            }
        }
    }
}

/// Ways to cut a stream into the pieces a connection might deliver, as piece lengths.
public enum Splits {
    /// One piece.
    public static func whole(count: Int) -> [Int] { count == 0 ? [] : [count] }

    /// One byte per piece.
    public static func byteByByte(count: Int) -> [Int] { Array(repeating: 1, count: count) }

    /// Pieces of 1 to 17 bytes from an xorshift generator: the same algorithm and seed handling as
    /// `Splits.random` in `Tests/WireTests/Support/Transcript.swift`, so a replay cuts identically.
    public static func seeded(count: Int, seed: UInt64) -> [Int] {
        var state = seed | 1
        var pieces: [Int] = []
        var i = 0
        while i < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let n = min(Int(state % 17) + 1, count - i)
            pieces.append(n)
            i += n
        }
        return pieces
    }
}
