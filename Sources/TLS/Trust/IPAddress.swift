/// An IPv4 or IPv6 address parsed from text, for IP-literal hosts and `iPAddress` SANs.
///
/// Pure Swift (no `inet_pton`), strict like `inet_pton`: IPv4 is exactly four decimal
/// octets without leading zeros (so `010.0.0.1` is not silently octal); IPv6 is RFC 4291
/// section 2.2 text with at most one `::` and an optional trailing dotted IPv4. Zone
/// identifiers (`%eth0`) are refused because a certificate cannot name them.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses an IPv4 or IPv6 literal; IPv6 may be wrapped in brackets as in URLs (`[::1]`).
    ///
    /// - Parameter text: the literal.
    /// - Returns: `nil` when `text` is not an IP literal (for example a host name).
    public init?(_ text: String) {
        var body = Substring(text)
        if body.hasPrefix("["), body.hasSuffix("]") { body = body.dropFirst().dropLast() }
        if let v4 = IPAddress.parseV4(body) {
            bytes = v4
        } else if let v6 = IPAddress.parseV6(body) {
            bytes = v6
        } else {
            return nil
        }
    }

    /// Wraps raw address bytes.
    ///
    /// - Parameter bytes: 4 or 16 bytes in network order.
    /// - Returns: `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Whether this is an IPv6 address.
    public var isIPv6: Bool { bytes.count == 16 }

    /// Dotted decimal for IPv4; RFC 5952 text (lower-case, longest zero run as `::`) for IPv6.
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        // Find the longest run (length >= 2) of zero groups; RFC 5952 section 4.2.
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        let head = hex[0..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            guard part == "0" || !part.hasPrefix("0") else { return nil }
            guard let value = UInt8(part) else { return nil }
            result.append(value)
        }
        return result
    }

    private static func parseV6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), !text.contains("%") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring, allowV4Tail: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            var output: [UInt8] = []
            for (offset, piece) in pieces.enumerated() {
                if allowV4Tail, offset == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseV4(piece) else { return nil }
                    output += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                output += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return output
        }
        if halves.count == 1 {
            guard let all = groups(Substring(halves[0]), allowV4Tail: true), all.count == 16 else { return nil }
            return all
        }
        guard let head = groups(Substring(halves[0]), allowV4Tail: false),
            let tail = groups(Substring(halves[1]), allowV4Tail: true),
            head.count + tail.count <= 14
        else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension Substring {
    /// Splits on a multi-character separator (Foundation's `components(separatedBy:)` is not
    /// available here). A plain scan: `firstRange(of:)` would link the regex engine
    /// (_StringProcessing, about 1.3 MB of the container fetch).
    fileprivate func components(separatedBy separator: String) -> [Substring] {
        var result: [Substring] = []
        var pieceStart = startIndex
        var index = startIndex
        while index != endIndex {
            if self[index...].starts(with: separator), !separator.isEmpty {
                result.append(self[pieceStart..<index])
                index = self.index(index, offsetBy: separator.count)
                pieceStart = index
            } else {
                index = self.index(after: index)
            }
        }
        result.append(self[pieceStart...])
        return result
    }
}
