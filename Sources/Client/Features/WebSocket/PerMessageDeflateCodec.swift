// permessage-deflate's data path (RFC 7692 §7.2) for one client connection, sans I/O, over the
// system zlib (the CZlib shim the HTTP content decoder uses). The negotiation is
// PerMessageDeflateNegotiation.swift; the connection calls this with whole outgoing messages and
// with the payload ranges of incoming compressed ones.
//
// Sending (§7.2.1): the message goes through `deflate` with Z_SYNC_FLUSH, which ends the output
// on an empty stored block, 00 00 FF FF; those four bytes are removed and the rest is the payload
// of one frame with RSV1 set. The deflater's window is the negotiated `client_max_window_bits`;
// with `client_no_context_takeover` it is reset after each message, otherwise the next message
// may refer back into this one (the shared window of §7.2.3.2).
//
// Receiving (§7.2.2): each payload range is inflated as it arrives, then 00 00 FF FF is appended
// at the message's end. A stream ending in a BFINAL block (§7.2.3.4) resets the inflater, as
// does `server_no_context_takeover`. The inflater always has a 32 KiB window (a larger window
// than the server's is always correct). Limits are those of the HTTP decoder, per message: the
// inflated size may not pass `maxMessageSize` (close 1009), checked after every 64 KiB of output
// before it is handed on, so a bomb costs at most one output buffer past the limit. Text is
// validated as UTF-8 as it is inflated (close 1007); corrupt DEFLATE data is close 1002.
//
//   idle ──beginMessage──▶ inflating ──inflate(bytes)──▶ inflating ──endMessage──▶ idle
//     any ──error──▶ failed (terminal: the connection is failed with the error's code)

internal import CZlib
import Wire

/// permessage-deflate's compressor and decompressor for one connection; see the file comment.
///
/// Not Sendable: owned by one `WebSocketConnection` and used only on its loop.
final class PerMessageDeflateCodec {
    /// Output is produced (and checked against the limit) in runs of this size.
    static let outputCapacity = 64 * 1024
    /// The tail a sync flush ends with, removed before sending and appended before inflating.
    static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// What was negotiated.
    let parameters: PerMessageDeflate.Parameters
    /// The largest inflated message, in bytes (`maximumMessageSize`).
    let maxMessageSize: Int
    /// zlib's level for outgoing messages (6, zlib's default).
    let level: Int32

    private let deflater: UnsafeMutablePointer<z_stream>
    private let inflater: UnsafeMutablePointer<z_stream>
    private var deflaterReady = false
    private var inflaterReady = false
    private let output: UnsafeMutableRawBufferPointer

    /// The incoming message being inflated: its size so far and, for text, its UTF-8 state.
    private struct Inbound {
        var produced = 0
        var utf8: WebSocketUTF8Validator?
    }
    private var inbound: Inbound?
    private var failure: WebSocketError?

    /// - Parameters:
    ///   - parameters: the negotiated parameters.
    ///   - maxMessageSize: the largest inflated message accepted.
    ///   - level: zlib's compression level, 0–9; 6 by default.
    init(parameters: PerMessageDeflate.Parameters, maxMessageSize: Int, level: Int32 = 6) {
        self.parameters = parameters
        self.maxMessageSize = maxMessageSize
        self.level = level
        deflater = .allocate(capacity: 1)
        deflater.initialize(to: z_stream())
        inflater = .allocate(capacity: 1)
        inflater.initialize(to: z_stream())
        output = .allocate(byteCount: Self.outputCapacity, alignment: 16)
        // Bound once, so zlib's `Bytef *next_out` names memory bound to UInt8.
        _ = output.bindMemory(to: UInt8.self)
    }

    deinit {
        if deflaterReady { deflateEnd(deflater) }
        if inflaterReady { inflateEnd(inflater) }
        deflater.deinitialize(count: 1)
        deflater.deallocate()
        inflater.deinitialize(count: 1)
        inflater.deallocate()
        output.deallocate()
    }

    // MARK: Sending

    /// One outgoing message's frame payload: deflated with a sync flush, the tail removed.
    /// - Throws: ``WebSocketError`` with code ``WebSocketError/Code/compressedData`` when zlib
    ///   fails (out of memory).
    func compress(_ message: UnsafeRawBufferPointer) throws(WebSocketError) -> [UInt8] {
        if !deflaterReady {
            // Raw deflate (negative window bits); 8 is refused at negotiation (zlib cannot use it).
            let status = lariat_deflateInit2(deflater, level, -Int32(parameters.clientMaxWindowBits), 8, Z_DEFAULT_STRATEGY)
            guard status == Z_OK else { throw Self.zlibError("deflateInit2", status) }
            deflaterReady = true
        }
        var result: [UInt8] = []
        result.reserveCapacity(Int(deflateBound(deflater, UInt(message.count))) + 8)
        var next = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var remaining = message.count
        while true {
            // zlib's counters are 32-bit: at most 1 GiB per call.
            let chunk = min(remaining, 1 << 30)
            deflater.pointee.next_in = next.map { UnsafeMutablePointer(mutating: $0) }
            deflater.pointee.avail_in = UInt32(chunk)
            deflater.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            deflater.pointee.avail_out = UInt32(Self.outputCapacity)
            let last = chunk == remaining
            let status = deflate(deflater, last ? Z_SYNC_FLUSH : Z_NO_FLUSH)
            guard status == Z_OK || status == Z_BUF_ERROR else { throw Self.zlibError("deflate", status) }
            let consumed = chunk - Int(deflater.pointee.avail_in)
            next = next.map { $0 + consumed }
            remaining -= consumed
            let produced = Self.outputCapacity - Int(deflater.pointee.avail_out)
            result.append(contentsOf: UnsafeRawBufferPointer(start: output.baseAddress, count: produced))
            // zlib.h: a flush is complete once deflate returns with output space left over.
            if last && remaining == 0 && deflater.pointee.avail_out != 0 { break }
        }
        // An empty message right after another's flush: zlib refuses a second flush with no
        // input in between (deflate.c, "avoid duplicate consecutive flushes") and writes nothing.
        // One 0x00 byte is the empty message of RFC 7692 §7.2.3.6: with the tail appended, an
        // empty stored block, at the byte boundary the previous flush left.
        if result.isEmpty && message.isEmpty { return [0x00] }
        guard result.count >= 4, Array(result.suffix(4)) == Self.tail else {
            throw WebSocketError(.compressedData, "zlib's sync flush did not end with 00 00 FF FF")
        }
        result.removeLast(4)
        if parameters.clientNoContextTakeover { deflateReset(deflater) }
        return result
    }

    // MARK: Receiving

    /// A compressed message begins; `text` turns on UTF-8 validation of its inflated bytes.
    func beginMessage(text: Bool) {
        inbound = Inbound(utf8: text ? WebSocketUTF8Validator() : nil)
    }

    /// Inflates a run of the message's payload.
    /// - Returns: the inflated bytes (possibly none).
    /// - Throws: ``WebSocketError``: `messageTooLarge` (1009) past `maxMessageSize`,
    ///   `invalidUTF8` (1007), `compressedData` (1002) for corrupt data.
    func inflate(_ payload: UnsafeRawBufferPointer) throws(WebSocketError) -> [UInt8] {
        var result: [UInt8] = []
        try inflate(payload, into: &result)
        return result
    }

    /// Ends the message: inflates the tail and checks that text ended on a whole character.
    /// - Returns: the last inflated bytes.
    /// - Throws: as ``inflate(_:)``.
    func endMessage() throws(WebSocketError) -> [UInt8] {
        var result: [UInt8] = []
        let tailResult: Result<Void, WebSocketError> = Self.tail.withUnsafeBytes { raw in
            do throws(WebSocketError) { try inflate(raw, into: &result); return .success(()) } catch { return .failure(error) }
        }
        try tailResult.get()
        if let utf8 = inbound?.utf8, !utf8.isComplete {
            throw fail(WebSocketError(.invalidUTF8, "the inflated text message ends inside a UTF-8 sequence"))
        }
        inbound = nil
        if parameters.serverNoContextTakeover { inflateReset(inflater) }
        return result
    }

    private func inflate(_ payload: UnsafeRawBufferPointer, into result: inout [UInt8]) throws(WebSocketError) {
        if let failure { throw failure }
        guard var message = inbound else { preconditionFailure("inflate outside a compressed message") }
        defer { inbound = message }
        if !inflaterReady {
            let status = lariat_inflateInit2(inflater, -15)
            guard status == Z_OK else { throw fail(Self.zlibError("inflateInit2", status)) }
            inflaterReady = true
        }
        guard var next = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = payload.count
        while true {
            let chunk = min(remaining, 1 << 30)
            inflater.pointee.next_in = UnsafeMutablePointer(mutating: next)
            inflater.pointee.avail_in = UInt32(chunk)
            inflater.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            inflater.pointee.avail_out = UInt32(Self.outputCapacity)
            let status = CZlib.inflate(inflater, Z_SYNC_FLUSH)
            let consumed = chunk - Int(inflater.pointee.avail_in)
            let produced = Self.outputCapacity - Int(inflater.pointee.avail_out)
            next += consumed
            remaining -= consumed
            if produced > 0 {
                guard message.produced + produced <= maxMessageSize else {
                    throw fail(WebSocketError(.messageTooLarge, "the message inflates past \(maxMessageSize) bytes (maximumMessageSize)"))
                }
                message.produced += produced
                let run = UnsafeRawBufferPointer(start: output.baseAddress, count: produced)
                if let bad = message.utf8?.validate(run) {
                    throw fail(WebSocketError(.invalidUTF8, "inflated text is not UTF-8 at inflated byte \(message.produced - produced + bad)"))
                }
                result.append(contentsOf: run)
            }
            switch status {
            case Z_OK:
                if remaining == 0 && produced < Self.outputCapacity { return }
            case Z_BUF_ERROR:
                // No progress possible: everything given was consumed and no output is pending.
                if remaining == 0 { return }
                throw fail(WebSocketError(.compressedData, "zlib made no progress"))
            case Z_STREAM_END:
                // A BFINAL block ended the stream (§7.2.3.4): what follows starts a new one.
                inflateReset(inflater)
                if remaining == 0 { return }
            default:
                throw fail(Self.zlibError("inflate", status, inflater.pointee.msg))
            }
        }
    }

    private func fail(_ error: WebSocketError) -> WebSocketError {
        failure = error
        return error
    }

    private static func zlibError(_ call: String, _ status: Int32, _ msg: UnsafeMutablePointer<CChar>? = nil) -> WebSocketError {
        let text = msg.map { String(cString: $0) } ?? "status \(status)"
        return WebSocketError(.compressedData, "permessage-deflate: \(call) failed: \(text)")
    }
}
