/// Server identity check after RFC 6125 section 6, in pure Swift.
///
/// This is one of two independent checks: ``TrustStore/evaluate(chain:policy:)`` also asks
/// OpenSSL (`X509_VERIFY_PARAM_set1_host` / `set1_ip` with
/// `X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT`) and requires
/// the two to agree. The rules, each with its own test in `HostnameMatcherTests`:
///
/// 1. Only subjectAltName entries count; the subject common name is never consulted, so a
///    certificate without SANs matches nothing (RFC 6125 6.4.4 permits CN only as a legacy
///    fallback; we take the CA/Browser Forum position and refuse it).
/// 2. DNS names compare case-insensitively in ASCII (6.4.1); one trailing dot on the host
///    (an absolute name) is ignored.
/// 3. A wildcard is allowed only as the complete left-most label: `*.example.com`. Partial
///    wildcards (`api*.example.com`, `*api.example.com`, `f*o.example.com`) and wildcards in
///    any other label (`www.*.example.com`) are refused (6.4.3, tightened as in RFC 9525).
/// 4. The wildcard label matches exactly one non-empty label: `*.example.com` matches
///    `www.example.com`, not `example.com` nor `a.b.example.com`.
/// 5. A wildcard needs at least two labels after it (`*.com` and `*` are refused), which keeps
///    wildcards off top-level domains; full public-suffix checks are out of scope.
/// 6. An IP-literal host (IPv4 or IPv6) matches only `iPAddress` SANs, byte for byte, and never
///    a `dNSName`, even one spelled like the address.
/// 7. Hosts must be syntactically valid names (letters, digits, `-`, `_`, non-empty labels of
///    at most 63 bytes); anything else (an embedded NUL, a `*`, an empty label) matches nothing.
public enum HostnameMatcher {
    /// Whether a certificate with these SANs identifies `host`.
    ///
    /// - Parameters:
    ///   - host: the host the client connected to: a DNS name or an IP literal
    ///     (IPv6 with or without brackets).
    ///   - subjectAlternativeNames: the leaf certificate's SANs.
    /// - Returns: `true` when some SAN matches under the rules above.
    public static func matches(host: String, subjectAlternativeNames: [SubjectAlternativeName]) -> Bool {
        if let address = IPAddress(host) {
            return subjectAlternativeNames.contains { name in
                if case .ipAddress(let bytes) = name { return bytes == address.bytes }
                return false
            }
        }
        guard let reference = normalizedHostname(host) else { return false }
        return subjectAlternativeNames.contains { name in
            if case .dnsName(let pattern) = name { return matches(reference: reference, pattern: pattern) }
            return false
        }
    }

    /// Whether one `dNSName` pattern identifies `host` (rules 2 to 5 and 7).
    ///
    /// - Parameters:
    ///   - host: a DNS host name (not an IP literal: those never match DNS names).
    ///   - pattern: the SAN value, possibly starting with `*.`.
    /// - Returns: `true` when the pattern matches.
    public static func matches(host: String, dnsPattern pattern: String) -> Bool {
        guard IPAddress(host) == nil, let reference = normalizedHostname(host) else { return false }
        return matches(reference: reference, pattern: pattern)
    }

    /// The host in the form both checks compare: lower-case ASCII without one trailing dot,
    /// or `nil` when it is not a valid host name (rule 7).
    ///
    /// - Parameter host: the host as the caller wrote it.
    /// - Returns: the normalized name, or `nil`.
    public static func normalizedHostname(_ host: String) -> String? {
        var name = Substring(host)
        if name.hasSuffix(".") { name = name.dropLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 253, labels.allSatisfy(isValidHostLabel) else { return nil }
        return String(lowercased(Array(name.utf8)))
    }

    // MARK: Rules

    private static func matches(reference: String, pattern: String) -> Bool {
        var patternBytes = Array(pattern.utf8)
        // An absolute pattern (`example.com.`) is the same name; strip one dot as for the host.
        if patternBytes.count > 1, patternBytes.last == UInt8(ascii: ".") { patternBytes.removeLast() }
        // Embedded NUL or other control bytes: the classic `good.com\0.evil.com` trick.
        guard !patternBytes.isEmpty, patternBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let patternLabels = lowercased(patternBytes).split(separator: ".", omittingEmptySubsequences: false)
        let referenceLabels = reference.split(separator: ".", omittingEmptySubsequences: false)
        guard patternLabels.count == referenceLabels.count else { return false }  // rule 4: one label per label

        // Rule 3: a `*` anywhere except as the whole first label disqualifies the pattern.
        let hasWildcard = patternLabels.first == "*"
        for (index, label) in patternLabels.enumerated() where label.contains("*") {
            if !(index == 0 && label == "*") { return false }
        }
        if hasWildcard {
            // Rule 5: `*.com` and a lone `*` never match.
            guard patternLabels.count >= 3 else { return false }
            // Rule 4: the wildcard stands for exactly one non-empty label (reference labels are
            // already non-empty), and the rest compares literally.
            return patternLabels.dropFirst().elementsEqual(referenceLabels.dropFirst())
        }
        return patternLabels.elementsEqual(referenceLabels)
    }

    private static func isValidHostLabel(_ label: Substring) -> Bool {
        guard (1...63).contains(label.utf8.count) else { return false }
        return label.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }

    private static func lowercased(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
