/// The syntax of a `dNSName` in a server certificate, and the public-suffix rule for wildcards.
///
/// A valid reference is a preferred-name-syntax host (RFC 1034 section 3.5 as relaxed by RFC
/// 1123: labels of ASCII letters, digits and hyphens, 1 to 63 octets, not starting or ending
/// with a hyphen, no `--` in the third and fourth positions except in `xn--` A-labels, at most
/// 253 octets in all, no trailing dot), optionally with `*` as the whole
/// left-most label (Baseline Requirements 7.1.2.7.12); whether a wildcard's base is too broad is
/// ``isWildcardOnPublicSuffix(_:)``'s question. Underscores, spaces, partial wildcards
/// (`f*.example.com`), empty labels and non-ASCII bytes are refused.
package enum DNSNameSyntax {
    /// Whether `name` is a valid host name, or `*.` followed by one.
    ///
    /// - Parameter name: the dNSName as the certificate spells it.
    package static func isValidReference(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        var labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.first.map(Array.init) == [UInt8(ascii: "*")] {
            labels.removeFirst()
            guard !labels.isEmpty else { return false }
        }
        return labels.allSatisfy(isValidLabel)
    }

    private static func isValidLabel(_ label: ArraySlice<UInt8>) -> Bool {
        guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return false }
        // Hyphens in the third and fourth positions make a reserved label; only `xn--` (an IDNA
        // A-label) is allowed (Baseline Requirements 7.1.2.7.12, RFC 5890 section 2.3.1).
        let hyphens = UInt8(ascii: "-")
        if label.count >= 4, label[label.startIndex + 2] == hyphens, label[label.startIndex + 3] == hyphens {
            guard label.prefix(2).map({ $0 | 0x20 }) == Array("xn".utf8) else { return false }
        }
        return label.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// Whether `name` is a wildcard whose base is a public suffix (`*.com`, `*.co.uk`), where one
    /// certificate would cover every registrant under it.
    ///
    /// A base of a single label is always a public suffix (every top-level domain). Longer bases
    /// are looked up in ``publicSuffixes``, a built-in list of the common multi-label suffixes, not
    /// the whole Public Suffix List: that list changes weekly and a verifier that embeds a copy
    /// is only as current as its last release.
    ///
    /// - Parameter name: a dNSName, already known to be syntactically valid.
    package static func isWildcardOnPublicSuffix(_ name: String) -> Bool {
        guard name.hasPrefix("*.") else { return false }
        let base = name.dropFirst(2).lowercased()
        return !base.contains(".") || publicSuffixes.contains(base)
    }

    /// The multi-label public suffixes the wildcard rule knows, all from the Public Suffix List's
    /// ICANN section: the second-level registries of the largest country-code domains (`co.uk`,
    /// `com.au`, `co.jp`, `com.br`, `com.cn`, ...). The private section is ``privateSuffixes``.
    package static let publicSuffixes: Set<String> = [
        // United Kingdom, Australia, New Zealand, South Africa, India
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "nhs.uk", "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "co.za", "org.za", "gov.za", "ac.za",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "gov.in",
        // East Asia
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "gr.jp", "ed.jp", "lg.jp", "ad.jp",
        "co.kr", "ne.kr", "or.kr", "ac.kr", "go.kr", "re.kr",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "com.tw", "net.tw", "org.tw", "edu.tw", "gov.tw", "idv.tw", "com.hk", "net.hk", "org.hk", "edu.hk", "gov.hk",
        "com.sg", "net.sg", "org.sg", "edu.sg", "gov.sg", "com.my", "net.my", "org.my",
        // The Americas
        "com.br", "net.br", "org.br", "gov.br", "edu.br", "com.mx", "net.mx", "org.mx", "gob.mx", "edu.mx",
        "com.ar", "net.ar", "org.ar", "gob.ar", "com.co", "net.co", "org.co", "gov.co",
        // Europe, Middle East
        "com.tr", "net.tr", "org.tr", "gov.tr", "edu.tr", "co.il", "org.il", "ac.il", "gov.il",
        "com.ua", "net.ua", "org.ua", "com.pl", "net.pl", "org.pl", "co.at", "or.at", "ac.at", "gv.at",
        "com.ru", "net.ru", "org.ru", "com.es", "org.es", "com.gr", "com.pt",
    ]

    /// The Public Suffix List's private section (registrations run by companies: `github.io`,
    /// `s3.amazonaws.com`, ...), its best-known entries. A certificate may carry a wildcard on
    /// one of these (browsers read only the ICANN section when judging wildcards, and Amazon's
    /// own certificate for `s3.amazonaws.com` has `*.s3.amazonaws.com`), but under
    /// ``TrustProfile/webPKI`` such a wildcard never identifies a host: `x.github.io` must be
    /// named exactly (see ``isWildcardOnPrivateSuffix(_:)``).
    package static let privateSuffixes: Set<String> = [
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com", "cloudfront.net",
        "azurewebsites.net", "cloudapp.net", "netlify.app", "vercel.app", "pages.dev", "workers.dev",
        "firebaseapp.com", "web.app", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev", "glitch.me",
    ]

    /// Whether `name` is a wildcard whose base is in ``privateSuffixes``.
    ///
    /// - Parameter name: a dNSName.
    package static func isWildcardOnPrivateSuffix(_ name: String) -> Bool {
        name.hasPrefix("*.") && privateSuffixes.contains(name.dropFirst(2).lowercased())
    }
}
