internal import COpenSSL

/// A certificate revocation list: an owned reference to OpenSSL's `X509_CRL`.
///
/// CRLs are added to a ``TrustStore`` and consulted when ``TrustPolicy/crlCheck`` asks for it.
/// OpenSSL checks each CRL's signature against its issuer, its validity window
/// (thisUpdate/nextUpdate) and scope before trusting it.
///
/// `@unchecked Sendable`: the `X509_CRL` is never mutated after parsing; OpenSSL only reads it
/// (X509_STORE_add_crl takes its own reference).
public final class CertificateRevocationList: @unchecked Sendable {
    /// The owned `X509_CRL*`; never mutated after parsing.
    let crl: OpaquePointer

    init(takingOwnershipOf crl: OpaquePointer) { self.crl = crl }

    deinit { X509_CRL_free(crl) }

    /// Parses one DER CRL.
    ///
    /// - Parameter derBytes: the DER encoding.
    /// - Throws: ``TLSError/Kind/decoding`` when the bytes are not a CRL.
    public convenience init(derBytes: [UInt8]) throws(TLSError) {
        guard let crl = OpenSSLBytes.parseDER(derBytes, { cursor, length in d2i_X509_CRL(nil, cursor, length) }, free: { X509_CRL_free($0) }) else {
            throw TLSError.drainingQueue(.decoding, "not a DER CRL")
        }
        self.init(takingOwnershipOf: crl)
    }

    /// Parses every `X509 CRL` block of PEM text.
    ///
    /// - Parameter pemBytes: PEM text; blocks of other types are skipped.
    /// - Returns: the CRLs in order; empty when there are none.
    /// - Throws: ``TLSError/Kind/decoding`` when a CRL block is malformed.
    public static func crls(fromPEM pemBytes: [UInt8]) throws(TLSError) -> [CertificateRevocationList] {
        try OpenSSLBytes.readPEMBlocks(pemBytes, what: "CRL") { bio in
            PEM_read_bio_X509_CRL(bio, nil, nil, nil).map { CertificateRevocationList(takingOwnershipOf: $0) }
        }
    }

    /// Loads CRLs from a PEM file (possibly several) or a DER file (one), detected from the content.
    ///
    /// - Parameter path: the file path.
    /// - Returns: the CRLs.
    /// - Throws: ``TLSError/Kind/fileAccess``, or ``TLSError/Kind/decoding`` when the file holds no CRL.
    public static func load(file path: String) throws(TLSError) -> [CertificateRevocationList] {
        let bytes = try FileBytes.read(path)
        let crls = FileBytes.looksLikePEM(bytes) ? try crls(fromPEM: bytes) : [try CertificateRevocationList(derBytes: bytes)]
        guard !crls.isEmpty else { throw TLSError(.decoding, "no CRL in \(path)") }
        return crls
    }

    /// The issuer distinguished name in RFC 2253 form.
    public var issuer: String {
        guard let name = X509_CRL_get_issuer(crl) else { return "" }
        let bytes = OpenSSLBytes.collectingBIO { bio in _ = X509_NAME_print_ex(bio, name, 0, lariat_XN_FLAG_RFC2253()) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// thisUpdate, in seconds since the Unix epoch.
    public var lastUpdate: Int64 { Certificate.seconds(X509_CRL_get0_lastUpdate(crl)) }

    /// nextUpdate, in seconds since the Unix epoch; `nil` when the CRL has none.
    public var nextUpdate: Int64? { X509_CRL_get0_nextUpdate(crl).map { Certificate.seconds($0) } }
}
