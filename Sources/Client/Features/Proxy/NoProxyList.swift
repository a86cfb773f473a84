// curl's `no_proxy` / `--noproxy` matching (as curl 7.88 does it, checked against the binary):
//   - the list is split on commas and white space; empty entries are skipped;
//   - `*` as the whole list matches every host (`*,foo` does not: `*` is then an ordinary name);
//   - a leading dot and a trailing dot of an entry are dropped: `.example.com` and
//     `example.com.` both match `example.com` and `www.example.com`;
//   - a host name matches an entry equal to it or ending in `.` + entry, ignoring ASCII case;
//   - an IP literal host matches an IP entry of its family, exactly or by CIDR prefix
//     (`192.168.0.0/16`, `fd00::/8`); IPv6 entries are written without brackets;
//   - the request's port plays no part, and an entry with a port (`host:8080`) matches nothing.

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

/// An IPv4 or IPv6 address parsed from text, as bytes (4 or 16), without Glibc.
struct IPLiteral: Hashable, Sendable {
    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (with `::`, with a trailing dotted quad);
    /// `nil` for anything else (zone IDs included).
    /// - Parameter text: The literal.
    init?(_ text: String) {
        if let v4 = Self.ipv4(Substring(text)) {
            bytes = v4
        } else if let v6 = Self.ipv6(text) {
            bytes = v6
        } else {
            return nil
        }
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt8(part) else { return nil }
            result.append(value)
        }
        return result
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = text.splitAtDoubleColons()
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4(piece) {
                    out += v4
                    continue
                }
                guard !piece.isEmpty, piece.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                out += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Whether the first `bits` bits of both addresses are equal.
    func sharesPrefix(with other: IPLiteral, bits: Int) -> Bool {
        var left = bits
        for (a, b) in zip(bytes, other.bytes) where left > 0 {
            let take = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if a & mask != b & mask { return false }
            left -= take
        }
        return true
    }
}

private extension String {
    /// Splits at the first `::` (an IPv6 literal's zero run); a second `::` yields three parts.
    func splitAtDoubleColons() -> [Substring] {
        var parts: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = self.index(after: index)
            if self[index] == ":", next < endIndex, self[next] == ":" {
                parts.append(self[start..<index])
                start = self.index(after: next)
                index = start
                continue
            }
            index = next
        }
        parts.append(self[start...])
        return parts
    }
}
