// One-shot compression with the system zlib: the body of DeflateRequestCompressor, and the
// fixtures of the decoding tests (gzip and raw deflate as well as zlib's own format).

internal import CZlib

/// Compresses whole buffers with zlib.
enum ZlibCompression {
    /// The container around the deflate data.
    enum Format: Sendable {
        /// RFC 1950: a two-byte header, deflate data, Adler-32 (HTTP's `deflate` coding).
        case zlib
        /// RFC 1952: gzip header, deflate data, CRC-32 and length (HTTP's `gzip` coding).
        case gzip
        /// RFC 1951 deflate data with no container.
        case raw

        var windowBits: Int32 {
            switch self {
            case .zlib: 15
            case .gzip: 15 + 16
            case .raw: -15
            }
        }
    }

    /// Why compression failed: zlib refused to start (out of memory) or reported an error.
    struct Failure: Error, Sendable, CustomStringConvertible {
        /// zlib's status code.
        let status: Int32
        /// What failed.
        var description: String { "zlib compression failed (\(status))" }
    }

    /// Compresses `input` into `format`.
    /// - Parameters:
    ///   - input: The bytes.
    ///   - format: The container; `.zlib` by default.
    ///   - level: 0 (store) to 9 (smallest); `Z_DEFAULT_COMPRESSION` (6) by default.
    /// - Returns: The compressed bytes.
    /// - Throws: ``Failure`` when zlib fails (out of memory).
    static func compress(_ input: UnsafeRawBufferPointer, format: Format = .zlib, level: Int32 = -1) throws(Failure) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        // memLevel 8 and the default strategy: zlib's own defaults (zlib.h, deflateInit2).
        let initStatus = lariat_deflateInit2(stream, level, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        guard initStatus == Z_OK else { throw Failure(status: initStatus) }
        defer { deflateEnd(stream) }
        // deflateBound: the most the output can be, so one call with Z_FINISH completes.
        let bound = Int(deflateBound(stream, UInt(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var status: Int32 = Z_OK
        let produced = output.withUnsafeMutableBytes { out -> Int in
            var offset = 0
            var next = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var remaining = input.count
            repeat {
                // zlib's counters are 32-bit: at most 1 GiB in and out per call.
                let chunkIn = min(remaining, 1 << 30)
                let chunkOut = min(out.count - offset, 1 << 30)
                stream.pointee.next_in = next.map { UnsafeMutablePointer(mutating: $0) }
                stream.pointee.avail_in = UInt32(chunkIn)
                stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
                stream.pointee.avail_out = UInt32(chunkOut)
                status = deflate(stream, chunkIn == remaining ? Z_FINISH : Z_NO_FLUSH)
                let consumed = chunkIn - Int(stream.pointee.avail_in)
                next = next.map { $0 + consumed }
                remaining -= consumed
                offset += chunkOut - Int(stream.pointee.avail_out)
            } while status == Z_OK || (status == Z_BUF_ERROR && remaining > 0)
            return offset
        }
        guard status == Z_STREAM_END else { throw Failure(status: status) }
        output.removeSubrange(produced...)
        return output
    }
}
