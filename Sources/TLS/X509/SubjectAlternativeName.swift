internal import COpenSSL

/// One entry of a certificate's subjectAltName extension (RFC 5280 section 4.2.1.6).
///
/// Only `dNSName` and `iPAddress` entries take part in server identity checks
/// (see ``HostnameMatcher``); the others are reported for completeness.
public enum SubjectAlternativeName: Sendable, Hashable, CustomStringConvertible {
    /// A `dNSName`, possibly with a leading `*.` wildcard label, as the bytes say (IA5String).
    case dnsName(String)
    /// An `iPAddress`: 4 bytes for IPv4, 16 for IPv6 (other lengths are kept as they are).
    case ipAddress([UInt8])
    /// An `rfc822Name` (e-mail address).
    case email(String)
    /// A `uniformResourceIdentifier`.
    case uri(String)
    /// Any other GeneralName form, by its `GEN_*` tag number.
    case other(tag: Int32)

    /// `DNS:name`, `IP:address`, `email:...`, `URI:...` or `other:tag`.
    public var description: String {
        switch self {
        case .dnsName(let name): return "DNS:\(name)"
        case .ipAddress(let bytes): return "IP:" + (IPAddress(bytes: bytes)?.description ?? bytes.description)
        case .email(let value): return "email:\(value)"
        case .uri(let value): return "URI:\(value)"
        case .other(let tag): return "other:\(tag)"
        }
    }

    /// Reads the subjectAltName extension of `x509`; empty when absent or undecodable.
    static func read(from x509: OpaquePointer) -> [SubjectAlternativeName] {
        guard let names = lariat_X509_get_subject_alt_names(x509) else {
            _ = OpenSSLError.drain()
            return []
        }
        defer { GENERAL_NAMES_free(names) }
        var result: [SubjectAlternativeName] = []
        for index in 0..<lariat_sk_GENERAL_NAME_num(names) {
            guard let name = lariat_sk_GENERAL_NAME_value(names, index) else { continue }
            result.append(OpenSSLAccessors.generalName(name))
        }
        return result
    }
}
