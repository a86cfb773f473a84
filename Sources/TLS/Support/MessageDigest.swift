internal import COpenSSL

/// One-shot message digests through OpenSSL's EVP interface, for HTTP Digest authentication
/// (RFC 7616 §3.2: MD5 and SHA-256) and the WebSocket handshake (RFC 6455 §4.2.2: SHA-1) in
/// Client, which must not see a C type; and HMAC-SHA256 (RFC 2104) for AWS Signature Version 4
/// in fetch's `--aws-sigv4`.
package enum MessageDigest {
    /// The hash functions Digest authentication names in its `algorithm` parameter.
    package enum Algorithm: Sendable {
        /// MD5 (RFC 1321): 16 bytes. Broken for signatures, still the Digest default.
        case md5
        /// SHA-256 (FIPS 180-4): 32 bytes.
        case sha256
        /// SHA-1 (FIPS 180-4): 20 bytes. Only for `Sec-WebSocket-Accept`, where it is a fixed
        /// transform of a nonce, not a security property (RFC 6455 §10.8 is explicit about that).
        case sha1
    }

    /// The digest of `bytes`.
    /// - Parameters:
    ///   - algorithm: The hash function.
    ///   - bytes: The input; may be empty.
    /// - Returns: 16 bytes for MD5, 32 for SHA-256, 20 for SHA-1.
    package static func hash(_ algorithm: Algorithm, _ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md: OpaquePointer?
        switch algorithm {
        case .md5: md = EVP_md5()
        case .sha256: md = EVP_sha256()
        case .sha1: md = EVP_sha1()
        }
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, md, nil)
        }
        // EVP_Digest with a built-in algorithm only fails on allocation failure.
        precondition(ok == 1, "EVP_Digest(\(algorithm)) failed: \(OpenSSLError.drain())")
        return Array(digest.prefix(Int(length)))
    }

    /// HMAC-SHA256 (RFC 2104, FIPS 198-1) of `message` under `key`.
    /// - Parameters:
    ///   - key: The key, any length (longer than the 64-byte block is hashed first, as RFC 2104 says).
    ///   - message: The input; may be empty.
    /// - Returns: 32 bytes.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // HMAC() reads key_len as an int: a key past Int32.max cannot be passed.
        precondition(key.count <= Int(Int32.max), "HMAC key longer than Int32.max bytes")
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { input in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), input.baseAddress, input.count, &mac, &length)
            }
        }
        // HMAC with a built-in digest only fails on allocation failure.
        precondition(result != nil && length == 32, "HMAC(SHA-256) failed: \(OpenSSLError.drain())")
        return Array(mac.prefix(Int(length)))
    }
}
