internal import COpenSSL

/// A public key: an owned reference to OpenSSL's `EVP_PKEY`.
///
/// Equality and hashing compare the DER SubjectPublicKeyInfo (algorithm identifier plus key
/// bits), which is also what public key pinning hashes: curl's `--pinnedpubkey sha256//...`
/// and HPKP both take SHA-256 over exactly these bytes.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after parsing, and OpenSSL 3 allows
/// concurrent reads and verification with one key.
public final class PublicKey: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned `EVP_PKEY*`; never mutated after creation, which makes sharing safe.
    let pkey: OpaquePointer

    init(takingOwnershipOf pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// Parses a DER SubjectPublicKeyInfo.
    ///
    /// - Parameter subjectPublicKeyInfoDER: the DER bytes; trailing bytes are refused.
    /// - Throws: ``TLSError/Kind/decoding`` when the bytes are not one SubjectPublicKeyInfo.
    public convenience init(subjectPublicKeyInfoDER: [UInt8]) throws(TLSError) {
        guard let key = OpenSSLBytes.parseDER(subjectPublicKeyInfoDER, { cursor, length in d2i_PUBKEY(nil, cursor, length) }, free: { EVP_PKEY_free($0) }) else {
            throw TLSError.drainingQueue(.decoding, "not exactly one DER SubjectPublicKeyInfo")
        }
        self.init(takingOwnershipOf: key)
    }

    /// Parses the first public key of PEM text: a `PUBLIC KEY` block (SubjectPublicKeyInfo) or a
    /// key-type specific one such as `RSA PUBLIC KEY` (PKCS#1).
    ///
    /// - Parameter pemBytes: PEM text containing such a block.
    /// - Throws: ``TLSError/Kind/decoding`` when there is no such block or it is malformed.
    public convenience init(pemBytes: [UInt8]) throws(TLSError) {
        guard KeyInputPrefilter.mayHoldPEMBlock(pemBytes, labelSuffix: "PUBLIC KEY") else {
            throw TLSError(.decoding, "no PEM block labelled ...PUBLIC KEY in the input")
        }
        self.init(takingOwnershipOf: try Self.decodePEM(pemBytes))
    }

    /// OpenSSL's reading of the first public key in `pemBytes`, without the prefilter.
    static func decodePEM(_ pemBytes: [UInt8]) throws(TLSError) -> OpaquePointer {
        try OpenSSLBytes.withReadBIO(pemBytes) { bio throws(TLSError) in
            guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                throw TLSError.drainingQueue(.decoding, "no valid PUBLIC KEY block in PEM input")
            }
            return key
        }
    }

    /// Loads a public key from a PEM (`PUBLIC KEY`) or DER (SubjectPublicKeyInfo) file,
    /// detecting the format from the content, as curl's `--pinnedpubkey FILE` does.
    ///
    /// - Parameter path: the file path.
    /// - Returns: the key.
    /// - Throws: ``TLSError/Kind/fileAccess`` or ``TLSError/Kind/decoding``.
    public static func load(file path: String) throws(TLSError) -> PublicKey {
        let bytes = try FileBytes.read(path)
        return FileBytes.looksLikePEM(bytes) ? try PublicKey(pemBytes: bytes) : try PublicKey(subjectPublicKeyInfoDER: bytes)
    }

    /// The DER SubjectPublicKeyInfo: the bytes that equality, hashing and pinning use.
    public var subjectPublicKeyInfoDER: [UInt8] { OpenSSLBytes.der { i2d_PUBKEY(pkey, $0) } }

    /// SHA-256 over ``subjectPublicKeyInfoDER``.
    public var sha256OfSubjectPublicKeyInfo: [UInt8] { OpenSSLBytes.sha256(subjectPublicKeyInfoDER) }

    /// The pin in curl's `--pinnedpubkey` syntax: `sha256//` followed by the base64 of
    /// ``sha256OfSubjectPublicKeyInfo``.
    public var pinnedPublicKeyHash: String { "sha256//" + Base64.encode(sha256OfSubjectPublicKeyInfo) }

    /// The key size in bits (modulus size for RSA, curve size for EC).
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// The algorithm name OpenSSL uses, such as `RSA`, `EC`, `ED25519`.
    public var algorithm: String {
        OpenSSLAccessors.string(EVP_PKEY_get0_type_name(pkey)) ?? "unknown"
    }

    /// Algorithm and size, for logs.
    public var description: String { "PublicKey(\(algorithm) \(bits) bits)" }

    /// Keys are equal when their SubjectPublicKeyInfo encodings are equal.
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
        lhs === rhs || lhs.subjectPublicKeyInfoDER == rhs.subjectPublicKeyInfoDER
    }

    /// Hashes the SubjectPublicKeyInfo encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(subjectPublicKeyInfoDER) }
}

/// A set of SHA-256 public key pins in curl's `--pinnedpubkey` syntax.
///
/// The syntax is one or more `sha256//BASE64` items separated by `;`, where BASE64 is the
/// standard base64 of SHA-256 over the DER SubjectPublicKeyInfo. A key matches when its hash
/// equals any pin.
public struct PublicKeyPins: Sendable, Hashable {
    /// The pinned SHA-256 hashes, 32 bytes each.
    public let sha256Hashes: [[UInt8]]

    /// Parses `sha256//BASE64[;sha256//BASE64...]`.
    ///
    /// - Parameter curlSyntax: the pin list; whitespace is not allowed.
    /// - Throws: ``TLSError/Kind/decoding`` when an item lacks the `sha256//` prefix, is not
    ///   base64, or does not decode to 32 bytes; also when the list is empty.
    public init(curlSyntax: String) throws(TLSError) {
        var hashes: [[UInt8]] = []
        for item in curlSyntax.split(separator: ";", omittingEmptySubsequences: false) {
            guard item.hasPrefix("sha256//") else { throw TLSError(.decoding, "pin '\(item)' does not start with sha256//") }
            let digest = try Base64.decode(String(item.dropFirst("sha256//".count)))
            guard digest.count == 32 else { throw TLSError(.decoding, "pin '\(item)' is \(digest.count) bytes, not 32") }
            hashes.append(digest)
        }
        guard !hashes.isEmpty else { throw TLSError(.decoding, "empty pin list") }
        self.sha256Hashes = hashes
    }

    /// Creates pins for the given keys.
    ///
    /// - Parameter keys: the keys whose SubjectPublicKeyInfo hashes become the pins.
    public init(keys: [PublicKey]) { self.sha256Hashes = keys.map(\.sha256OfSubjectPublicKeyInfo) }

    /// Whether SHA-256 over `key`'s SubjectPublicKeyInfo is one of the pins.
    public func matches(_ key: PublicKey) -> Bool { sha256Hashes.contains(key.sha256OfSubjectPublicKeyInfo) }
}
