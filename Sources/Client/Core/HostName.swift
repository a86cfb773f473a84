// HostName: the URL's host after percent-decoding, checked before anything resolves or sends
// it, and converted to the ASCII form (A-labels) used for resolution, `Host`, SNI and
// certificate checks. `http://localhost%00.evil.example/` used to connect to `localhost`.
import EventLoop
import Transport

/// Checks a percent-decoded URL host and gives the form that goes on the wire.
///
/// What is accepted (after percent-decoding, which is where an attacker's `%00`, `%2F` or
/// `%40` would otherwise hide):
/// - **IPv6 literals** (`[::1]` or `::1` as `URL` reports it) that parse as IPv6; returned
///   without brackets. Zone identifiers (`%25eth0`) and RFC 3986 IPvFuture are refused.
/// - **ASCII names** made of letters, digits, `-`, `_`, `~` and `.` (RFC 3986's reg-name without
///   its sub-delimiters `!$&'()*+,;=`, which no DNS name uses; curl refuses them too). Labels are
///   1-63 bytes, the name at most 253 plus an optional final dot. ASCII labels keep their case,
///   so `HostResolver` overrides still match exactly. A label beginning `xn--` must be valid
///   Punycode that encodes back to itself, and its decoded form must pass the Unicode rules
///   below except the NFKC one (`xn--strae-oqa`, `straße`, is accepted as an A-label).
/// - **Unicode names**, converted label by label to A-labels (`bücher` → `xn--bcher-kva`). This
///   is a subset of IDNA 2008 / UTS 46 processing: the label is lowercased (Unicode default case
///   mapping), normalized to NFC, and each code point must be an ASCII letter, digit or `-`, or a
///   non-ASCII letter (L*), combining mark (M*) or decimal digit (Nd); a label may not start with a
///   mark, start or end with `-`, or have `--` in its third and fourth places; the ideographic and
///   fullwidth full stops (`。` `．` `｡`) separate labels like `.`. Not implemented, and so
///   refused rather than sent wrongly: UTS 46's other mappings (width folding, NFKC, `ß` and
///   final sigma handling), CONTEXTJ/CONTEXTO joiners (ZWJ, ZWNJ, middle dot), and the Bidi rule
///   is not checked. Symbols, punctuation, spaces, controls and format characters are refused.
enum HostName {
    /// Why a host was refused.
    enum Rejection: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing left once brackets or dots are removed.
        case empty
        /// A byte or character no host may contain (NUL, space, `%`, `/`, `\`, `@`, `:`…).
        case forbidden(Unicode.Scalar)
        /// Two dots in a row, or a leading dot.
        case emptyLabel
        /// A label over 63 bytes (after conversion to an A-label).
        case labelTooLong
        /// A name over 253 bytes (after conversion).
        case nameTooLong
        /// Brackets or a colon, but not an IPv6 address.
        case invalidIPv6
        /// An IPv6 zone identifier: not supported.
        case zoneIdentifier
        /// A Unicode label that breaks the rules above (the reason in words).
        case invalidLabel(String)
        /// An `xn--` label that is not valid Punycode, or does not round-trip.
        case invalidALabel(String)

        /// A sentence naming the problem.
        var description: String {
            switch self {
            case .empty: "the host is empty"
            case .forbidden(let scalar): "the host contains U+\(String(scalar.value, radix: 16, uppercase: true)), which no host name may contain"
            case .emptyLabel: "the host has an empty label"
            case .labelTooLong: "a label of the host is over 63 bytes"
            case .nameTooLong: "the host is over 253 bytes"
            case .invalidIPv6: "the host is not a valid IPv6 address"
            case .zoneIdentifier: "IPv6 zone identifiers are not supported"
            case .invalidLabel(let reason): "the host's label is not a valid internationalized label: \(reason)"
            case .invalidALabel(let label): "\(label) is not a valid A-label"
            }
        }
    }

    /// The wire form of `host`.
    ///
    /// - Parameter host: The URL's host, percent-decoded (`url.host(percentEncoded: false)`).
    /// - Returns: ASCII: the IPv6 address without brackets, or the name with A-labels.
    /// - Throws: ``Rejection`` naming the first rule broken.
    static func wireForm(of host: String) throws(Rejection) -> String {
        if let plain = plainASCIIName(host) { return plain }
        // ASCII outside names and IPv6 literals is refused whatever else the host looks like.
        // (`%` in an IPv6 literal is a zone identifier: left for `ipv6` to name.)
        let isIPv6 = host.hasPrefix("[") || host.hasSuffix("]") || host.contains(":")
        for scalar in host.unicodeScalars where scalar.isASCII && !isNameCharacter(scalar) {
            switch scalar {
            case ".", ":", "[", "]": continue
            case "%" where isIPv6: continue
            default: throw .forbidden(scalar)
            }
        }
        if isIPv6 {
            return try ipv6(host)
        }
        // UTS 46: the ideographic and fullwidth full stops are label separators too.
        let separators: Set<Unicode.Scalar> = [".", "\u{3002}", "\u{FF0E}", "\u{FF61}"]
        let labels = host.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: separators.contains)
        guard !host.isEmpty else { throw .empty }
        var converted: [String] = []
        converted.reserveCapacity(labels.count)
        for (index, label) in labels.enumerated() {
            if label.isEmpty {
                // One trailing dot is a fully qualified name; any other empty label is an error.
                guard index == labels.count - 1, index > 0 else { throw .emptyLabel }
                converted.append("")
                continue
            }
            let ascii = try self.label(Array(label))
            guard ascii.utf8.count <= 63 else { throw .labelTooLong }
            converted.append(ascii)
        }
        let name = converted.joined(separator: ".")
        guard name.utf8.count - (converted.last == "" ? 1 : 0) <= 253 else { throw .nameTooLong }
        return name
    }

    /// The common case without allocating: `host` itself when it is an ASCII name (or IPv4
    /// address) that the full path would return unchanged: name characters and dots only, no
    /// empty label but an optional final dot, labels of 1-63 bytes, none beginning `xn--`, at
    /// most 253 bytes. `nil` for anything else, which takes the full path (and its errors). The
    /// full path cost about 16 allocations per request (issue 9: the labels split into arrays,
    /// a `String` per label, the join).
    ///
    /// - Parameter host: The URL's host, percent-decoded.
    /// - Returns: `host`, or `nil` if it needs the full checks.
    static func plainASCIIName(_ host: String) -> String? {
        var count = 0
        var labelLength = 0
        var prefix: UInt32 = 0  // the current label's first four bytes, ASCII letters lowercased
        for byte in host.utf8 {
            count += 1
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0 else { return nil }
                (labelLength, prefix) = (0, 0)
                continue
            }
            guard byte < 0x80, isNameCharacter(Unicode.Scalar(byte)) else { return nil }
            labelLength += 1
            guard labelLength <= 63 else { return nil }
            if labelLength <= 4 {
                let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                prefix = prefix << 8 | UInt32(lowered)
                if labelLength == 4, prefix == 0x786E_2D2D { return nil }  // "xn--"
            }
        }
        guard count > 0 else { return nil }
        guard count - (labelLength == 0 ? 1 : 0) <= 253 else { return nil }
        return host
    }

    /// An IPv6 literal, with or without brackets.
    private static func ipv6(_ host: String) throws(Rejection) -> String {
        var address = Substring(host)
        if address.hasPrefix("[") {
            guard address.hasSuffix("]") else { throw .invalidIPv6 }
            address = address.dropFirst().dropLast()
        }
        guard !address.isEmpty else { throw .empty }
        if address.contains("%") { throw .zoneIdentifier }
        guard address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
              let parsed = try? SocketAddress(ipAddress: String(address), port: 0), parsed.family == .ipv6
        else { throw .invalidIPv6 }
        return String(address)
    }

    /// One label: ASCII as it is (after checks), Unicode as an A-label.
    private static func label(_ scalars: [Unicode.Scalar]) throws(Rejection) -> String {
        if scalars.allSatisfy(\.isASCII) {
            for scalar in scalars where !isNameCharacter(scalar) { throw .forbidden(scalar) }
            let text = String(String.UnicodeScalarView(scalars))
            if text.utf8.count >= 4, text.lowercased().hasPrefix("xn--") {
                try checkALabel(text)
            }
            return text
        }
        // Refuse what can never be in a name before mapping, so the error names the real culprit.
        for scalar in scalars where scalar.isASCII && !isNameCharacter(scalar) { throw .forbidden(scalar) }
        let mapped = normalized(String(String.UnicodeScalarView(scalars)).lowercased())
        try checkULabel(mapped)
        guard let encoded = Punycode.encode(mapped) else { throw .invalidLabel("too long to encode") }
        return "xn--" + encoded
    }

    /// An `xn--` label must decode, satisfy the U-label rules, and encode back to itself.
    private static func checkALabel(_ label: String) throws(Rejection) {
        let body = String(label.dropFirst(4))
        guard let decoded = Punycode.decode(body), !decoded.allSatisfy(\.isASCII) else { throw .invalidALabel(label) }
        do {
            // An A-label is already the wire form: `ß` and `ς`, PVALID in IDNA 2008, may be in it
            // (Foundation's ICU parser produces `xn--strae-oqa` for `straße`).
            try checkULabel(decoded, refusingUnmapped: false)
        } catch {
            throw .invalidALabel(label)
        }
        guard Punycode.encode(decoded) == body.lowercased(), normalized(String(String.UnicodeScalarView(decoded)).lowercased()) == decoded else {
            throw .invalidALabel(label)
        }
    }

    /// The IDNA 2008 rules Lariat checks on a lowercased, NFC label (see the type's comment).
    ///
    /// - Parameters:
    ///   - scalars: The label.
    ///   - refusingUnmapped: Refuse what NFKC case folding would still change (a U-label Lariat
    ///     mapped itself); `false` for a decoded A-label, which was mapped by whoever made it.
    private static func checkULabel(_ scalars: [Unicode.Scalar], refusingUnmapped: Bool = true) throws(Rejection) {
        guard let first = scalars.first, let last = scalars.last else { throw .emptyLabel }
        if first == "-" || last == "-" { throw .invalidLabel("it starts or ends with a hyphen") }
        if scalars.count >= 4, scalars[2] == "-", scalars[3] == "-" { throw .invalidLabel("it has hyphens in its third and fourth places") }
        if isMark(first) { throw .invalidLabel("it starts with a combining mark") }
        for scalar in scalars {
            if scalar.isASCII {
                guard scalar == "-" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) else {
                    throw .forbidden(scalar)
                }
                continue
            }
            switch scalar.properties.generalCategory {
            case .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                // Still changed by NFKC case folding (fullwidth forms, ligatures, ß, final
                // sigma…): UTS 46 would map it, Lariat does not, so refuse rather than guess.
                if refusingUnmapped, scalar.properties.changesWhenNFKCCaseFolded { throw .forbidden(scalar) }
            default:
                throw .forbidden(scalar)
            }
        }
    }

    /// `text` in Normalization Form C, as scalars.
    private static func normalized(_ text: String) -> [Unicode.Scalar] {
        // `_nfcCodeUnits` is the standard library's NFC (public, underscored): FoundationEssentials
        // has no `precomposedStringWithCanonicalMapping`, and ICU is not linked.
        Array(String(decoding: text._nfcCodeUnits, as: UTF8.self).unicodeScalars)
    }

    /// A combining mark (general category M*).
    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// ASCII allowed in a name: letters, digits, `-`, `_`, `~`.
    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", "~": true
        default: false
        }
    }
}
