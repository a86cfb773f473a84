// IP literals parsed without Glibc: the proxy connector (a SOCKS5 target given as an address)
// and the `no_proxy` matcher (CIDR entries) both read them.

/// An IPv4 or IPv6 address parsed from text, as bytes (4 or 16), without Glibc.
package struct IPLiteral: Hashable, Sendable {
    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    package let bytes: [UInt8]

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (with `::`, with a trailing dotted quad);
    /// `nil` for anything else (zone IDs included).
    /// - Parameter text: The literal.
    package init?(_ text: String) {
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
    package func sharesPrefix(with other: IPLiteral, bits: Int) -> Bool {
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
