// Streaming decoder of one response body's content coding, over the system zlib.
//
// States (one per body; a retry's exchange gets a new decoder):
//
//   awaitingHeader ──first bytes──▶ inflating ──stream end──▶ streamEnded
//        │                             │  ▲                     │  │
//        │                             │  └──gzip: more bytes───┘  │ deflate: more bytes
//        └──── corrupt input, a limit passed, trailing bytes ──────┴──────────▶ failed
//
// - `awaitingHeader`: nothing decoded yet. For `deflate` the first two bytes decide between the
//   zlib wrapper (RFC 1950, what the RFC 9110 §8.4.1.2 coding means) and raw deflate (RFC 1951,
//   which some servers send and browsers accept): a zlib header's compression method is 8 and
//   its first two bytes, read as a big-endian number, are a multiple of 31. One byte alone is
//   kept until the second arrives. Exits: inflating, failed; `finish` with no byte at all is an
//   empty body (a HEAD, a 204, or `Content-Length: 0`).
// - `inflating`: inside a gzip member or deflate stream. zlib checks gzip's CRC-32 and ISIZE
//   trailer and zlib's Adler-32 before it reports the stream's end. Exits: streamEnded, failed;
//   `finish` here is a truncated body.
// - `streamEnded`: a whole stream was decoded. gzip: bytes that follow start another member
//   (RFC 1952 §2.2: a file is a series of members; `inflateReset` keeps the gzip header mode, so
//   anything but a member header is corrupt). deflate: any further byte is trailing data.
// - `failed`: terminal. The first error was thrown to the caller, which stops the exchange;
//   bytes still in flight are dropped.
//
// Memory is constant: zlib's state and 32 KiB window, and one 64 KiB output buffer whose
// contents are lent to the sink one run at a time. Limits (`ContentDecoding`) are checked before
// each run reaches the sink, so a bomb's excess is never delivered.

internal import CZlib

/// Decodes one `gzip` or `deflate` response body as it arrives; see the file comment.
///
/// `@unchecked Sendable`: used by one thread at a time. The exchange delivers the head, every
/// body run and the end from its connection's loop, in order (`Exchange.swift`); the request
/// keeps the decoder in a mutex only to hand it from the head to the body runs.
final class ContentDecoder: @unchecked Sendable {
    /// The codings decoded.
    enum Coding: Equatable, Sendable {
        /// RFC 1952 gzip, one or more members (`gzip`, `x-gzip`).
        case gzip
        /// zlib-wrapped deflate, or raw deflate, told apart by the first two bytes (`deflate`).
        case deflate
    }

    private enum State {
        case awaitingHeader
        case inflating
        case streamEnded
        case failed
    }

    /// Size of the output buffer lent to the sink: 64 KiB, large enough that zlib's call
    /// overhead is small next to the copying and small enough to stay in L2.
    static let outputCapacity = 64 * 1024

    let coding: Coding
    /// The coding's name as the response gave it, for errors.
    let codingName: String
    private let limits: ContentDecoding
    private var state = State.awaitingHeader
    /// zlib's stream, at a stable heap address (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    private var streamInitialized = false
    private let output: UnsafeMutableRawBufferPointer
    /// deflate's first byte, held until the second tells zlib from raw deflate.
    private var heldByte: UInt8?
    /// Encoded bytes consumed.
    private(set) var encodedCount = 0
    /// Decoded bytes delivered.
    private(set) var decodedCount = 0

    /// - Parameters:
    ///   - coding: The coding to decode.
    ///   - name: Its name in the response (`x-gzip`), for errors; the coding's own by default.
    ///   - limits: Expansion limits; ``ContentDecoding/automatic``'s by default.
    init(coding: Coding, name: String? = nil, limits: ContentDecoding = .automatic) {
        self.coding = coding
        self.codingName = name ?? (coding == .gzip ? "gzip" : "deflate")
        self.limits = limits
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: Self.outputCapacity, alignment: 16)
        // Bound to UInt8 once, so `inflate`'s assumingMemoryBound(to: UInt8.self) (zlib's
        // `Bytef *next_out`) names memory bound to that type; the sink reads it raw.
        _ = output.bindMemory(to: UInt8.self)
    }

    deinit {
        if streamInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// The decoder for a response's `Content-Encoding` field values, or `nil` when the body is
    /// passed through: decoding disabled, no coding or only `identity`, a coding Lariat does not
    /// decode, more than one coding, or a `206` (a range of the coded bytes cannot be decoded alone).
    /// - Parameters:
    ///   - contentEncoding: Every `Content-Encoding` field value, in order.
    ///   - status: The response's status code.
    ///   - configuration: The session's ``ContentDecoding``.
    static func make(contentEncoding: [String], status: Int, configuration: ContentDecoding) -> ContentDecoder? {
        guard configuration.isEnabled, status != 206, !contentEncoding.isEmpty else { return nil }
        var codings: [Substring] = []
        for value in contentEncoding {
            for item in value.split(separator: ",") {
                let token = item.trimmingASCIIWhitespace()
                if token.isEmpty || token.lowercased() == "identity" { continue }
                codings.append(token)
            }
        }
        guard codings.count == 1, let only = codings.first else { return nil }
        switch only.lowercased() {
        case "gzip", "x-gzip": return ContentDecoder(coding: .gzip, name: String(only), limits: configuration)
        case "deflate": return ContentDecoder(coding: .deflate, name: String(only), limits: configuration)
        default: return nil
        }
    }

    /// Decodes a run of encoded bytes, lending each decoded run to `sink` (borrowed for the call).
    /// After a failure, further input is ignored.
    /// - Throws: ``ContentDecodingError`` for corrupt input, bytes after a deflate stream, or a
    ///   passed limit; the decoder is then failed.
    func decode(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> Void) throws(ContentDecodingError) {
        guard !input.isEmpty, let base = input.baseAddress else { return }
        var input = UnsafeRawBufferPointer(start: base, count: input.count)
        switch state {
        case .failed:
            return
        case .awaitingHeader:
            if coding == .gzip {
                try start(windowBits: 15 + 16)  // 16: gzip wrapper only (zlib.h, inflateInit2)
            } else {
                guard let first = heldByte ?? input.first else { return }
                guard heldByte != nil || input.count >= 2 else {
                    heldByte = first
                    return
                }
                let second = heldByte == nil ? input[1] : input[0]
                try start(windowBits: Self.isZlibHeader(first, second) ? 15 : -15)
                if let held = heldByte {
                    heldByte = nil
                    try withUnsafeBytes(of: held) { byte throws(ContentDecodingError) in try inflate(byte, sink: sink) }
                    if case .failed = state { return }
                }
            }
        case .inflating:
            break
        case .streamEnded:
            try nextStream(after: &input)
        }
        try inflate(input, sink: sink)
    }

    /// Ends the body.
    /// - Throws: ``ContentDecodingError/Kind-swift.struct/truncated`` when the body ended inside a
    ///   stream (or after deflate's first byte). Nothing for an empty body or after a failure
    ///   (already thrown).
    func finish() throws(ContentDecodingError) {
        switch state {
        case .awaitingHeader:
            if heldByte != nil { throw fail(.truncated, "the body ended after one byte") }
        case .inflating:
            throw fail(.truncated, "the body ended before the end of the compressed stream")
        case .streamEnded, .failed:
            break
        }
    }

    // MARK: Driving zlib

    /// RFC 1950 §2.2: CM (low nibble of CMF) is 8, CINFO at most 7, and CMF·256 + FLG is a
    /// multiple of 31.
    static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
    }

    private func start(windowBits: Int32) throws(ContentDecodingError) {
        let status = lariat_inflateInit2(stream, windowBits)
        guard status == Z_OK else { throw fail(.corrupt, "inflateInit2 failed (\(status))") }
        streamInitialized = true
        state = .inflating
    }

    /// A stream ended and `input` follows it: gzip starts the next member; deflate fails.
    private func nextStream(after input: inout UnsafeRawBufferPointer) throws(ContentDecodingError) {
        guard coding == .gzip else {
            throw fail(.trailingData, "\(input.count) bytes after the end of the deflate stream")
        }
        guard inflateReset(stream) == Z_OK else { throw fail(.corrupt, "inflateReset failed") }
        state = .inflating
    }

    /// Feeds `input` to zlib until it is consumed, lending each output run to `sink`.
    private func inflate(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) -> Void) throws(ContentDecodingError) {
        guard var next = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = input.count
        while true {
            // zlib's counters are 32-bit: feed at most 1 GiB per call.
            let chunk = min(remaining, 1 << 30)
            // zlib never writes through next_in; its type is not const only for old compilers.
            stream.pointee.next_in = UnsafeMutablePointer(mutating: next)
            stream.pointee.avail_in = UInt32(chunk)
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(Self.outputCapacity)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let consumed = chunk - Int(stream.pointee.avail_in)
            let produced = Self.outputCapacity - Int(stream.pointee.avail_out)
            next += consumed
            remaining -= consumed
            encodedCount += consumed
            if produced > 0 {
                if let limit = limits.exceededLimit(decoded: decodedCount + produced, encoded: encodedCount) {
                    throw fail(.expansionLimitExceeded, limit)
                }
                decodedCount += produced
                sink(UnsafeRawBufferPointer(start: output.baseAddress, count: produced))
            }
            switch status {
            case Z_OK:
                // More output may be pending (the buffer filled) or more input remains.
                if remaining == 0 && produced < Self.outputCapacity { return }
            case Z_BUF_ERROR:
                // No progress was possible: zlib wants more input than this run had.
                if remaining == 0 { return }
                throw fail(.corrupt, "zlib made no progress")
            case Z_STREAM_END:
                state = .streamEnded
                guard remaining > 0 else { return }
                var rest = UnsafeRawBufferPointer(start: next, count: remaining)
                try nextStream(after: &rest)
            case Z_NEED_DICT:
                throw fail(.corrupt, "the stream needs a preset dictionary")
            default:
                throw fail(.corrupt, Self.message(stream.pointee.msg, status: status))
            }
        }
    }

    private static func message(_ msg: UnsafeMutablePointer<CChar>?, status: Int32) -> String {
        guard let msg else { return "zlib error \(status)" }
        return String(cString: msg)
    }

    /// Moves to `failed` and makes the error to throw.
    private func fail(_ kind: ContentDecodingError.Kind, _ detail: String) -> ContentDecodingError {
        state = .failed
        return ContentDecodingError(kind, coding: codingName, encodedOffset: encodedCount, decodedCount: decodedCount, detail: detail)
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs (HTTP's OWS).
    func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
