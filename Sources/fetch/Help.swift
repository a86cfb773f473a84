// `-h/--help [CATEGORY]` and `-V/--version` in curl 7.88's layout (src/tool_help.c): the same
// columns, categories and footers, listing only the options fetch implements, so that feature
// probes (`fetch --help all | grep -q -- --retry-all-errors`) answer truthfully.

/// fetch's version, printed by `-V` and sent in the User-Agent.
enum FetchVersion {
    /// The version number.
    static let number = "0.2.0"
    /// The protocols fetch speaks, as curl's `Protocols:` line names them.
    static let protocols = ["http", "https"]
    /// curl's feature names that hold for fetch: a resolver off the loop thread (AsynchDNS),
    /// IPv6, 64-bit sizes, zlib's gzip and deflate (`--compressed`), OpenSSL, Unix sockets.
    static let features = ["AsynchDNS", "IPv6", "Largefile", "libz", "SSL", "UnixSockets"]
    /// `-V`'s text, shaped like curl's (scripts grep the `Protocols:` and `Features:` lines).
    static var text: String {
        """
        fetch \(number) (Lariat, HTTP/1.1 on epoll, OpenSSL)
        Protocols: \(protocols.joined(separator: " "))
        Features: \(features.joined(separator: " "))
        """
    }
}

/// `-h`'s text.
enum Usage {
    /// What `--help CATEGORY` prints (`nil`: the important options and curl's footer).
    static func text(category: String?) -> String {
        var lines = ["Usage: fetch [options...] <url>"]
        guard let category else {
            lines += listing(.important)
            lines += ["", "This is not the full help, this menu is stripped into categories.",
                      "Use \"--help category\" to get an overview of all categories.",
                      "For all options use \"--help all\"."]
            return lines.joined(separator: "\n")
        }
        let lowered = category.lowercased()
        if lowered == "all" {
            lines += listing(HelpCategories(rawValue: ~HelpCategories.hidden.rawValue))
        } else if lowered == "category" {
            lines += categoryList
        } else if let named = HelpCategories.named.first(where: { $0.name == lowered }) {
            lines.append("\(named.name): \(named.summary)")
            lines += listing(named.category)
        } else {
            lines += ["Invalid category provided, here is a list of all categories:", ""] + categoryList
        }
        return lines.joined(separator: "\n")
    }

    /// The implemented options in `category`, in curl's two columns (curl's widths: the longest
    /// left column, narrowed so that a line fits 80 columns with the longest description).
    static func listing(_ category: HelpCategories) -> [String] {
        // The widths come from all of curl's options in the category, so that each line fetch
        // shows is the line curl shows.
        let inCategory = CurlOptionCatalog.entries.filter { !$0.categories.isDisjoint(with: category) }
        let shown = inCategory.filter { OptionTable.implemented.contains($0.long) }
        var width = max(5, inCategory.map(\.column.count).max() ?? 0)
        let longestSummary = max(5, inCategory.map(\.summary.count).max() ?? 0)
        if width + longestSummary > 80 { width = 80 - longestSummary }
        return shown.map { entry in
            let padding = String(repeating: " ", count: max(0, width - entry.column.count))
            return " \(entry.column)\(padding) \(entry.summary)"
        }
    }

    /// `--help category`: curl's list of categories.
    static var categoryList: [String] {
        HelpCategories.named.map { " \($0.name)\(String(repeating: " ", count: max(0, 11 - $0.name.count))) \($0.summary)" }
    }
}
