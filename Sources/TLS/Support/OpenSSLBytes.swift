internal import COpenSSL

/// Small helpers that move bytes between Swift arrays and OpenSSL objects.
/// Every pointer handed to OpenSSL lives only inside the closure that created it.
enum OpenSSLBytes {
    /// SHA-256 of `bytes` through OpenSSL's EVP interface.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest with a built-in algorithm only fails on allocation failure.
        precondition(ok == 1, "EVP_Digest(SHA-256) failed: \(OpenSSLError.drain())")
        return Array(digest.prefix(Int(length)))
    }

    /// Creates a read-only memory BIO over a copy of `bytes` and passes it to `body`.
    static func withReadBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws(TLSError) -> R) throws(TLSError) -> R {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.drainingQueue(.configuration, "BIO_new failed") }
        defer { BIO_free(bio) }
        if !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
            guard written == Int32(bytes.count) else { throw TLSError.drainingQueue(.configuration, "BIO_write failed") }
        }
        return try body(bio)
    }

    /// Reads every PEM block `read` recognizes from `pemBytes`, in order, until the input ends.
    ///
    /// The end of the input is OpenSSL's "no start line" error, so the thread's error queue is
    /// emptied first: errors left on it by earlier calls (the application's own, another
    /// library's) would otherwise read as a malformed block.
    ///
    /// - Parameters:
    ///   - pemBytes: PEM text; blocks `read` skips (other types) are passed over by OpenSSL.
    ///   - what: the block's name in the error message ("certificate", "CRL").
    ///   - read: one `PEM_read_bio_*` call; nil when no further block could be read.
    /// - Throws: ``TLSError/Kind/decoding`` when a block is malformed.
    static func readPEMBlocks<T>(_ pemBytes: [UInt8], what: String, _ read: (OpaquePointer) -> T?) throws(TLSError) -> [T] {
        try withReadBIO(pemBytes) { bio throws(TLSError) in
            ERR_clear_error()
            var result: [T] = []
            while true {
                if let block = read(bio) {
                    result.append(block)
                    continue
                }
                let errors = OpenSSLError.drain()
                if errors.allSatisfy({ $0.library == ERR_LIB_PEM && $0.reason == PEM_R_NO_START_LINE }) { break }
                throw TLSError(.decoding, "malformed PEM \(what) block", openSSLErrors: errors)
            }
            return result
        }
    }

    /// Runs `body` with a fresh memory BIO and returns everything it wrote to it.
    static func collectingBIO(_ body: (OpaquePointer) -> Void) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        body(bio)
        return OpenSSLAccessors.memoryBIOContents(bio)
    }

    /// Serializes an object with one of OpenSSL's `i2d_*` functions.
    static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return encode(&cursor)
        }
        return written == length ? output : []
    }

    /// Parses DER with one of OpenSSL's `d2i_*` functions; `nil` when the bytes are malformed
    /// or have trailing data (the object is then released with `free`).
    static func parseDER(
        _ bytes: [UInt8],
        _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
        free: (OpaquePointer) -> Void
    ) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let object = decode(&cursor, buffer.count) else { return nil }
            guard cursor == base + buffer.count else {
                free(object)
                return nil
            }
            return object
        }
    }
}
