internal import COpenSSL

/// An X.509 certificate: an owned reference to OpenSSL's `X509`.
///
/// Immutable after creation. Equality and hashing compare the DER encoding, so two objects
/// parsed from the same bytes are equal. Sendable: OpenSSL 3 guards the lazily computed
/// extension cache of an `X509` with its own lock, and we never mutate one.
public final class Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned `X509*`; one reference is released in `deinit`.
    let x509: OpaquePointer

    /// Takes over one existing reference to `x509` (for objects OpenSSL just created for us).
    init(takingOwnershipOf x509: OpaquePointer) { self.x509 = x509 }

    /// Adds a reference to a borrowed `x509` (for pointers owned by a chain or a session).
    init(retaining x509: OpaquePointer) {
        X509_up_ref(x509)
        self.x509 = x509
    }

    deinit { X509_free(x509) }

    /// Parses one DER-encoded certificate.
    ///
    /// - Parameter derBytes: the complete DER encoding; trailing bytes are refused.
    /// - Throws: ``TLSError/Kind/decoding`` when the bytes are not exactly one certificate.
    public convenience init(derBytes: [UInt8]) throws(TLSError) {
        var consumed = 0
        let parsed = derBytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let object = d2i_X509(nil, &cursor, buffer.count)
            consumed = cursor.map { $0 - base } ?? 0
            return object
        }
        guard let parsed else { throw TLSError.drainingQueue(.decoding, "not a DER certificate") }
        guard consumed == derBytes.count else {
            X509_free(parsed)
            throw TLSError(.decoding, "\(derBytes.count - consumed) bytes after the DER certificate")
        }
        self.init(takingOwnershipOf: parsed)
    }

    /// Parses the first certificate of PEM text.
    ///
    /// - Parameter pemBytes: PEM text with at least one `CERTIFICATE` block; other blocks are skipped.
    /// - Throws: ``TLSError/Kind/decoding`` when there is no certificate block.
    public convenience init(pemBytes: [UInt8]) throws(TLSError) {
        guard let first = try Certificate.certificates(fromPEM: pemBytes).first else {
            throw TLSError(.decoding, "no CERTIFICATE block in PEM input")
        }
        self.init(retaining: first.x509)
    }

    /// Parses every `CERTIFICATE` block of PEM text, in order.
    ///
    /// - Parameter pemBytes: PEM text; blocks of other types (keys, CRLs) are skipped.
    /// - Returns: the certificates; empty when there are none.
    /// - Throws: ``TLSError/Kind/decoding`` when a certificate block is malformed.
    public static func certificates(fromPEM pemBytes: [UInt8]) throws(TLSError) -> [Certificate] {
        try OpenSSLBytes.readPEMBlocks(pemBytes, what: "certificate") { bio in
            PEM_read_bio_X509(bio, nil, nil, nil).map { Certificate(takingOwnershipOf: $0) }
        }
    }

    /// The DER encoding of the whole certificate, the bytes certificate pinning compares.
    public var derBytes: [UInt8] { OpenSSLBytes.der { i2d_X509(x509, $0) } }

    /// The subject distinguished name in RFC 2253 form, such as `CN=example.com,O=Example`.
    public var subject: String { Certificate.render(name: X509_get_subject_name(x509)) }

    /// The issuer distinguished name in RFC 2253 form.
    public var issuer: String { Certificate.render(name: X509_get_issuer_name(x509)) }

    /// The subject's common name, for display only: identity checks never read it.
    public var commonName: String? { OpenSSLAccessors.commonNames(of: X509_get_subject_name(x509)).first }

    /// The serial number as upper-case hex without separators.
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(x509), let bignum = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(bignum) }
        guard let hex = BN_bn2hex(bignum) else { return "" }
        defer { lariat_OPENSSL_free(hex) }
        return OpenSSLAccessors.string(hex) ?? ""
    }

    /// Start of the validity period, in seconds since 1970-01-01T00:00:00Z.
    public var notBefore: Int64 { Certificate.seconds(X509_get0_notBefore(x509)) }

    /// End of the validity period, in seconds since 1970-01-01T00:00:00Z.
    public var notAfter: Int64 { Certificate.seconds(X509_get0_notAfter(x509)) }

    /// The subjectAltName entries in certificate order; empty when the extension is absent.
    public var subjectAlternativeNames: [SubjectAlternativeName] { SubjectAlternativeName.read(from: x509) }

    /// The certified public key, or `nil` when OpenSSL cannot decode it (an unknown algorithm,
    /// or a key such as an EC point off its curve: OpenSSL 3 loads the certificate anyway, and a
    /// server can present one). The only accessor: there is no non-optional one to trap.
    public var decodedPublicKey: PublicKey? {
        // X509_get_pubkey returns a new reference, or nil when the key does not decode.
        X509_get_pubkey(x509).map { PublicKey(takingOwnershipOf: $0) }
    }

    /// Whether the certificate is self-signed: subject equals issuer and its signature verifies
    /// with its own key (`X509_self_signed` with signature checking).
    public var isSelfSigned: Bool {
        let result = X509_self_signed(x509, 1) == 1
        _ = OpenSSLError.drain()
        return result
    }

    /// SHA-256 over ``derBytes``, the usual certificate fingerprint.
    public var sha256Fingerprint: [UInt8] { OpenSSLBytes.sha256(derBytes) }

    /// The subject and validity, for logs.
    public var description: String { "Certificate(\(subject), issuer: \(issuer), notAfter: \(notAfter))" }

    /// Two certificates are equal when their DER encodings are equal.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        // X509_cmp compares the cached SHA-1 digests, then the DER encodings.
        lhs === rhs || X509_cmp(lhs.x509, rhs.x509) == 0
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }

    // MARK: Helpers

    private static func render(name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let bytes = OpenSSLBytes.collectingBIO { bio in
            _ = X509_NAME_print_ex(bio, name, 0, lariat_XN_FLAG_RFC2253())
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Converts an ASN1_TIME to Unix seconds (UTC), via its broken-down form.
    static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        guard let time else { return 0 }
        var broken = tm()
        guard ASN1_TIME_to_tm(time, &broken) == 1 else { return 0 }
        return UnixTime.seconds(
            year: Int64(broken.tm_year) + 1900, month: Int64(broken.tm_mon) + 1, day: Int64(broken.tm_mday),
            hour: Int64(broken.tm_hour), minute: Int64(broken.tm_min), second: Int64(broken.tm_sec))
    }
}

/// Calendar arithmetic for certificate times, without Foundation.
enum UnixTime {
    /// Seconds since the Unix epoch for a proleptic Gregorian UTC date
    /// (days-from-civil, after Howard Hinnant's public-domain algorithm).
    static func seconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
