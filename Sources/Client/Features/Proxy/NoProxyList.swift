// curl's `no_proxy` / `--noproxy` matching (as curl 7.88 does it, checked against the binary):
//   - the list is split on commas and white space; empty entries are skipped;
//   - `*` as the whole list matches every host (`*,foo` does not: `*` is then an ordinary name);
//   - a leading dot and a trailing dot of an entry are dropped: `.example.com` and
//     `example.com.` both match `example.com` and `www.example.com`;
//   - a host name matches an entry equal to it or ending in `.` + entry, ignoring ASCII case;
//   - an IP literal host matches an IP entry of its family, exactly or by CIDR prefix
//     (`192.168.0.0/16`, `fd00::/8`); IPv6 entries are written without brackets;
//   - the request's port plays no part, and an entry with a port (`host:8080`) matches nothing.

import Transport

/// A parsed `no_proxy` list: which hosts bypass the proxy.
struct NoProxyList: Sendable, Hashable {
    /// The entries, trimmed, without the leading and trailing dots of names.
    let entries: [String]
    /// Whether the list was `*` alone.
    let matchesAll: Bool

    /// Parses a list in curl's syntax.
    /// - Parameter list: Comma- or space-separated entries.
    init(_ list: String) {
        let trimmed = list.split(whereSeparator: { $0 == " " || $0 == "\t" })
        matchesAll = trimmed.count == 1 && trimmed[0] == "*"
        entries = list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" })
            .map { entry in
                var name = Substring(entry)
                if name.hasPrefix(".") { name = name.dropFirst() }
                if name.hasSuffix(".") { name = name.dropLast() }
                return String(name)
            }
            .filter { !$0.isEmpty }
    }

    /// Parses each entry of several lists (Apple's `ExceptionsList` array).
    /// - Parameter list: Entries, each itself a curl-syntax list.
    init(entries list: [String]) {
        self.init(list.joined(separator: ","))
    }

    /// Whether `host` (a name or IP literal, IPv6 with or without brackets) bypasses the proxy.
    /// - Parameter host: The request's host.
    /// - Returns: `true` when an entry matches.
    func matches(host: String) -> Bool {
        if matchesAll { return true }
        var name = Substring(host)
        if name.hasPrefix("[") && name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.count > 1 && name.hasSuffix(".") { name = name.dropLast() }
        if let address = IPLiteral(String(name)) {
            return entries.contains { entry in
                let parts = entry.split(separator: "/", maxSplits: 1)
                guard let network = IPLiteral(String(parts[0])), network.bytes.count == address.bytes.count else { return false }
                let bits = parts.count > 1 ? Int(parts[1]) : network.bytes.count * 8
                guard let bits, bits >= 0, bits <= network.bytes.count * 8 else { return false }
                return address.sharesPrefix(with: network, bits: bits)
            }
        }
        let lowered = name.lowercased()
        return entries.contains { entry in
            let wanted = entry.lowercased()
            if lowered == wanted { return true }
            return lowered.hasSuffix("." + wanted)
        }
    }
}
