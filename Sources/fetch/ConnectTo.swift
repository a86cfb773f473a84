// curl's `--connect-to HOST1:PORT1:HOST2:PORT2`: connections for HOST1:PORT1 go to HOST2:PORT2.
// An empty HOST1 or PORT1 matches any; an empty HOST2 or PORT2 keeps the URL's. IPv6 hosts are in
// brackets. Rules from curl 7.88's url.c (parse_connect_to_string / _host_port):
//
//   - HOST1 is compared with the URL's host (case-insensitively, an IPv6 host in brackets); PORT1
//     must be digits that end at the next colon and equal the URL's port. An entry whose pattern
//     is not of that shape never matches (no error), as in curl.
//   - HOST2:PORT2 is split at the colon after the host (after `]` for a bracketed host); PORT2
//     must be a number 0-65535, else exit 49 "No valid port number in connect to host string".
//   - The first entry that matches and names a host or a port applies.
//
// Difference: curl checks PORT2 only when the entry matches a transfer; fetch checks every entry
// before the first transfer.

import Transport

/// One parsed `--connect-to` entry.
struct ConnectTo: Equatable {
    /// The URL host it applies to, `nil` for any.
    var host: String?
    /// The URL port it applies to, `nil` for any.
    var port: Int?
    /// The host to connect to, `nil` to keep the URL's.
    var targetHost: String?
    /// The port to connect to, `nil` to keep the URL's.
    var targetPort: Int?
    /// The pattern can never match (PORT1 not a number, no colon after HOST1).
    var neverMatches = false

    /// Parses `HOST1:PORT1:HOST2:PORT2`.
    ///
    /// - Throws: ``FetchSetupError`` 49 for a PORT2 that is not a number in 0-65535.
    static func parse(_ entry: String) throws(FetchSetupError) -> ConnectTo {
        var rest = Substring(entry)
        var result = ConnectTo()
        // HOST1 up to its colon (past a bracketed IPv6 literal).
        if let hostEnd = patternHostEnd(rest) {
            let host = rest[..<hostEnd]
            if !host.isEmpty { result.host = String(host) }
            rest = rest[rest.index(after: hostEnd)...]
        } else {
            return ConnectTo(neverMatches: true)
        }
        // PORT1 up to its colon.
        guard let portEnd = rest.firstIndex(of: ":") else { return ConnectTo(neverMatches: true) }
        let port = rest[..<portEnd]
        if !port.isEmpty {
            guard let number = Int(port), number >= 0 else { return ConnectTo(neverMatches: true) }
            result.port = number
        }
        rest = rest[rest.index(after: portEnd)...]
        // HOST2[:PORT2].
        var portText: Substring = ""
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let host = rest[rest.index(after: rest.startIndex)..<close]
            if !host.isEmpty { result.targetHost = String(host) }
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = rest.firstIndex(of: ":") {
            if colon > rest.startIndex { result.targetHost = String(rest[..<colon]) }
            portText = rest[rest.index(after: colon)...]
        } else if !rest.isEmpty {
            result.targetHost = String(rest)
        }
        if !portText.isEmpty {
            guard let number = Int(portText), (0...65535).contains(number) else {
                throw FetchSetupError(status: 49, description: "(49) No valid port number in connect to host string (\(portText))")
            }
            result.targetPort = number
        }
        return result
    }

    /// Where HOST1 ends (the index of its colon), or nil when no colon follows it.
    private static func patternHostEnd(_ text: Substring) -> Substring.Index? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let after = text.index(after: close)
            return after < text.endIndex && text[after] == ":" ? after : nil
        }
        return text.firstIndex(of: ":")
    }

    /// Adds the entry to `resolver` (one that never matches adds nothing).
    func apply(to resolver: inout HostResolver) {
        guard !neverMatches else { return }
        resolver.reroute(host: host, port: port, toHost: targetHost, port: targetPort)
    }
}
