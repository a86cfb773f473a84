internal import COpenSSL

/// One-shot message digests through OpenSSL's EVP interface, for HTTP Digest authentication
/// (RFC 7616 §3.2: MD5 and SHA-256) in Client, which must not see a C type.
package enum MessageDigest {
    /// The hash functions Digest authentication names in its `algorithm` parameter.
    package enum Algorithm: Sendable {
        /// MD5 (RFC 1321): 16 bytes. Broken for signatures, still the Digest default.
        case md5
        /// SHA-256 (FIPS 180-4): 32 bytes.
        case sha256
    }

    /// The digest of `bytes`.
    /// - Parameters:
    ///   - algorithm: The hash function.
    ///   - bytes: The input; may be empty.
    /// - Returns: 16 bytes for MD5, 32 for SHA-256.
    package static func hash(_ algorithm: Algorithm, _ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md = algorithm == .md5 ? EVP_md5() : EVP_sha256()
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, md, nil)
        }
        // EVP_Digest with a built-in algorithm only fails on allocation failure.
        precondition(ok == 1, "EVP_Digest(\(algorithm)) failed: \(OpenSSLError.drain())")
        return Array(digest.prefix(Int(length)))
    }
}
