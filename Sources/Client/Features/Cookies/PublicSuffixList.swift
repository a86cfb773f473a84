#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif

// Cookies may not be set for a public suffix (RFC 6265 §5.3 step 5): `Domain=co.uk` would
// let any site under `co.uk` set cookies for every other. The rules are Mozilla's Public Suffix
// List (https://publicsuffix.org/list/). Debian's `publicsuffix` package installs it as
// `/usr/share/publicsuffix/public_suffix_list.dat`; when the file is there it is read once, on
// the first cookie that names a Domain. Without it (minimal containers) a small built-in list of
// the most common rules applies: generic TLDs, two-level country suffixes and a few hosting
// platforms. The file is trusted (a system file), but its size is still bounded.

/// Public Suffix List rules and the two questions cookies ask of them.
struct PublicSuffixList: Sendable {
    /// Normal rules (`com`, `co.uk`).
    private var exact: Set<String> = []
    /// Wildcard rules without their `*.` (`ck` for `*.ck`).
    private var wildcards: Set<String> = []
    /// Exception rules without their `!` (`www.ck`).
    private var exceptions: Set<String> = []

    /// Where Debian's `publicsuffix` package puts the list.
    static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The largest list file read (the 2025 list is about 320 KB).
    static let maxFileSize = 8 << 20

    /// The rules every cookie check uses: the system list when present, else ``fallback``.
    static let shared: PublicSuffixList = system() ?? fallback

    /// The built-in rules used when the system list is missing.
    static let fallback = PublicSuffixList(rules: """
        com net org edu gov mil int info biz name pro mobi app dev io co me tv cc ai xyz online site
        uk co.uk org.uk ac.uk gov.uk ltd.uk plc.uk net.uk me.uk
        au com.au net.au org.au edu.au gov.au
        jp co.jp ne.jp or.jp ac.jp go.jp
        nz co.nz org.nz net.nz
        br com.br net.br org.br
        in co.in net.in org.in
        cn com.cn net.cn org.cn
        de fr it es nl be ch at se no dk fi pl pt ie ru us ca eu
        github.io gitlab.io herokuapp.com blogspot.com appspot.com cloudfront.net azurewebsites.net
        netlify.app vercel.app pages.dev workers.dev s3.amazonaws.com
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))

    /// Parses the list's text format: one rule per line, `//` comments, `*.` wildcards, `!` exceptions.
    ///
    /// - Parameter text: The file's contents.
    init(listText text: String) {
        self.init(rules: text.split(separator: "\n").compactMap { line in
            // A rule is the line up to the first whitespace; comments and blank lines are skipped.
            let rule = line.prefix { $0 != " " && $0 != "\t" && $0 != "\r" }
            return rule.isEmpty || rule.hasPrefix("//") ? nil : String(rule)
        })
    }

    /// Rules in the list's syntax.
    ///
    /// - Parameter rules: Rules such as `com`, `*.ck`, `!www.ck`.
    init(rules: [String]) {
        for rule in rules {
            // Unicode rules (`公司.cn`) are stored in the ASCII form URL hosts arrive in.
            let ascii: (String) -> String? = { text in
                text.utf8.allSatisfy({ $0 < 0x80 }) ? text.lowercased() : try? HostName.wireForm(of: text)
            }
            if rule.hasPrefix("!") {
                if let name = ascii(String(rule.dropFirst())) { exceptions.insert(name) }
            } else if rule.hasPrefix("*.") {
                if let name = ascii(String(rule.dropFirst(2))) { wildcards.insert(name) }
            } else if let name = ascii(rule) {
                exact.insert(name)
            }
        }
    }

    /// The system list, or `nil` when it is missing, unreadable or implausibly large.
    static func system(path: String = systemPath) -> PublicSuffixList? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= maxFileSize,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let list = PublicSuffixList(listText: text)
        return list.exact.isEmpty ? nil : list
    }

    /// Whether `domain` (lowercase, ASCII) is a public suffix. A single label is one by the
    /// list's implicit `*` rule.
    ///
    /// - Parameter domain: A domain name without a leading or trailing dot.
    /// - Returns: Whether cookies may not be scoped to it.
    func isPublicSuffix(_ domain: String) -> Bool {
        if exceptions.contains(domain) { return false }
        if exact.contains(domain) { return true }
        guard let dot = domain.firstIndex(of: ".") else { return true }
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }

    /// The registrable domain (public suffix plus one label), or `nil` when `host` is itself a
    /// public suffix. `www.example.co.uk` → `example.co.uk`.
    ///
    /// - Parameter host: A lowercase ASCII host name.
    /// - Returns: The registrable domain.
    func registrableDomain(_ host: String) -> String? {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty, !isPublicSuffix(host) else { return nil }
        // Walk up from the host: the first suffix that is public makes its child the answer.
        var candidate = host
        while labels.count > 1 {
            let parent = labels.dropFirst().joined(separator: ".")
            if isPublicSuffix(parent) { return candidate }
            labels.removeFirst()
            candidate = parent
        }
        return candidate
    }
}
