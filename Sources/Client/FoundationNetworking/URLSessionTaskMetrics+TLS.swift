// Stand-ins for Security's `tls_protocol_version_t` and `tls_ciphersuite_t`, which Apple's
// `URLSessionTaskTransactionMetrics` uses for the negotiated TLS version and cipher suite. Same
// names, same member names, same raw values (the TLS wire numbers), so code comparing against
// `.TLSv13` or `.AES_128_GCM_SHA256` compiles and means the same thing here.

/// A TLS protocol version, with its wire number as raw value (`0x0304` for TLS 1.3).
public struct tls_protocol_version_t: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The version's wire number.
    public let rawValue: UInt16

    /// The version with wire number `rawValue`, or `nil` for a number that names no TLS or DTLS version.
    ///
    /// - Parameter rawValue: The wire number, for example `0x0303`.
    public init?(rawValue: UInt16) {
        guard (0x0301...0x0304).contains(rawValue) || rawValue == 0xFEFF || rawValue == 0xFEFD else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// TLS 1.0 (RFC 2246). Deprecated by RFC 8996.
    public static let TLSv10 = tls_protocol_version_t(0x0301)
    /// TLS 1.1 (RFC 4346). Deprecated by RFC 8996.
    public static let TLSv11 = tls_protocol_version_t(0x0302)
    /// TLS 1.2 (RFC 5246).
    public static let TLSv12 = tls_protocol_version_t(0x0303)
    /// TLS 1.3 (RFC 8446).
    public static let TLSv13 = tls_protocol_version_t(0x0304)
    /// DTLS 1.0 (RFC 4347); Lariat never negotiates it.
    public static let DTLSv10 = tls_protocol_version_t(0xFEFF)
    /// DTLS 1.2 (RFC 6347); Lariat never negotiates it.
    public static let DTLSv12 = tls_protocol_version_t(0xFEFD)

    /// OpenSSL's and curl's spelling: `TLSv1`, `TLSv1.1`, `TLSv1.2`, `TLSv1.3`, `DTLSv1`, `DTLSv1.2`.
    public var description: String {
        switch rawValue {
        case 0x0301: "TLSv1"
        case 0x0302: "TLSv1.1"
        case 0x0303: "TLSv1.2"
        case 0x0304: "TLSv1.3"
        case 0xFEFF: "DTLSv1"
        default: "DTLSv1.2"
        }
    }
}

/// A TLS cipher suite, with its IANA number as raw value (`0x1301` for `TLS_AES_128_GCM_SHA256`).
///
/// Constants exist for the suites Lariat's default configuration can negotiate; any other
/// number the server picks is still represented (``init(rawValue:)`` accepts every value).
public struct tls_ciphersuite_t: RawRepresentable, Hashable, Sendable {
    /// The suite's IANA number (TLS Cipher Suites registry).
    public let rawValue: UInt16

    /// The suite numbered `rawValue`. Never `nil`: failable only to match Apple's enum.
    ///
    /// - Parameter rawValue: The IANA number.
    public init?(rawValue: UInt16) { self.rawValue = rawValue }

    private init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// `TLS_AES_128_GCM_SHA256` (TLS 1.3).
    public static let AES_128_GCM_SHA256 = tls_ciphersuite_t(0x1301)
    /// `TLS_AES_256_GCM_SHA384` (TLS 1.3).
    public static let AES_256_GCM_SHA384 = tls_ciphersuite_t(0x1302)
    /// `TLS_CHACHA20_POLY1305_SHA256` (TLS 1.3).
    public static let CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(0x1303)
    /// `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256` (TLS 1.2).
    public static let ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 = tls_ciphersuite_t(0xC02B)
    /// `TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384` (TLS 1.2).
    public static let ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 = tls_ciphersuite_t(0xC02C)
    /// `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256` (TLS 1.2).
    public static let ECDHE_RSA_WITH_AES_128_GCM_SHA256 = tls_ciphersuite_t(0xC02F)
    /// `TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384` (TLS 1.2).
    public static let ECDHE_RSA_WITH_AES_256_GCM_SHA384 = tls_ciphersuite_t(0xC030)
    /// `TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256` (TLS 1.2).
    public static let ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(0xCCA8)
    /// `TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256` (TLS 1.2).
    public static let ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(0xCCA9)
}
