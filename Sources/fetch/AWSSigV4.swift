// `--aws-sigv4 PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]]` with `-u ACCESS:SECRET`: AWS Signature
// Version 4 as curl 7.88.1 computes it (lib/http_aws_sigv4.c at tag curl-7_88_1), sans I/O.
//
// curl 7.88's rules, kept here: the spec is read as sscanf's `%64[^:]:%64[^:]:%64[^:]:%64s`
// (a missing PROVIDER2 is PROVIDER1; a missing SERVICE and REGION come from the host name's first
// two labels, exit 3 without them); the signed headers are `host` (the Host value as sent, unless
// `-H Host:` is given) plus every `-H` line as typed (names lower-cased, blanks collapsed) plus
// `x-PROVIDER2-date`, sorted as whole `name:value` lines by bytes; the canonical URI and query
// are the URL's as sent (no re-encoding, no query sorting); the payload hash is SHA-256 of the
// `-d` data (an empty string for `-F`, `-T` and no body) unless `-H x-PROVIDER2-content-sha256`
// gives it; curl 7.88 adds no `x-amz-content-sha256` header of its own. A `-H Authorization`
// turns signing off; a `-H X-Amz-Date` (or `Date`) gives the timestamp.
// Each redirect hop that keeps the credentials (same host, port and scheme, or
// `--location-trusted`) is signed again for its own method and URL (Transfer+Redirect.swift).
// Difference kept: with that `-H` date curl 7.88 sends the date header twice; fetch once.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TLS
import Transport

/// One `--aws-sigv4` signer: the four names of the spec, resolved against a host.
struct AWSSigV4: Equatable {
    /// The algorithm's prefix (`aws`: `AWS4-HMAC-SHA256`, `aws4_request`, key `AWS4…`).
    var provider0: String
    /// The headers' prefix (`amz`: `X-Amz-Date`, `x-amz-content-sha256`).
    var provider1: String
    /// The region of the credential scope.
    var region: String
    /// The service of the credential scope.
    var service: String

    /// The longest name curl's sscanf reads per field.
    static let maxField = 64

    /// Reads `spec` as curl 7.88 does, taking a missing service and region from `host`.
    ///
    /// - Throws: curl's 43 "first provider can't be empty", or its 3 "service missing in
    ///   parameters and hostname" / "region missing in parameters and hostname" / "… too long in
    ///   hostname".
    init(spec: String, host: String) throws(TransferError) {
        let fields = Self.scan(spec)
        guard let first = fields.first, !first.isEmpty else {
            throw TransferError(status: 43, message: "first provider can't be empty")
        }
        provider0 = first
        provider1 = fields.count > 1 ? fields[1] : first
        region = fields.count > 2 ? fields[2] : ""
        service = fields.count > 3 ? fields[3] : ""
        guard service.isEmpty else { return }
        let labels = host.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard labels.count > 1 else { throw TransferError(status: 3, message: "service missing in parameters and hostname") }
        guard labels[0].utf8.count <= Self.maxField else { throw TransferError(status: 3, message: "service too long in hostname") }
        service = String(labels[0])
        guard region.isEmpty else { return }
        guard labels.count > 2 else { throw TransferError(status: 3, message: "region missing in parameters and hostname") }
        guard labels[1].utf8.count <= Self.maxField else { throw TransferError(status: 3, message: "region too long in hostname") }
        region = String(labels[1])
    }

    /// sscanf's `%64[^:]:%64[^:]:%64[^:]:%64s`: the fields read before the first that fails.
    static func scan(_ spec: String) -> [String] {
        var rest = Substring(spec)
        var fields: [String] = []
        for index in 0..<4 {
            if index > 0 {
                guard rest.first == ":" else { break }
                rest = rest.dropFirst()
            }
            var field: Substring
            if index < 3 {
                field = rest.prefix { $0 != ":" }
            } else {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
                field = rest.prefix { !($0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}") }
            }
            field = Substring(String(decoding: field.utf8.prefix(maxField), as: UTF8.self))
            guard !field.isEmpty else { break }
            fields.append(String(field))
            rest = rest.dropFirst(field.count)
        }
        return fields
    }

    /// What to sign: the request as it goes on the wire.
    struct Request {
        /// The method sent.
        var method: String
        /// The path as sent (`/` for none).
        var path: String
        /// The query without `?`, as sent (empty for none).
        var query: String
        /// The Host header's value as sent (`host[:port]`).
        var host: String
        /// The `-H` lines as typed (`@file` already read).
        var headerLines: [String]
        /// The `-d` data; empty for `-F`, `-T` and no body (curl hashes only its postfields).
        var payload: [UInt8]
    }

    /// The headers to send: `Authorization` and `X-PROVIDER2-Date` (the latter nil when a `-H`
    /// gave the date), or nothing when a `-H Authorization` is given.
    func sign(_ request: Request, accessKey: String, secret: String, now: time_t) -> [HeaderField] {
        let lines = request.headerLines
        guard Self.header("Authorization", in: lines) == nil else { return [] }
        let p1 = provider1.lowercased()
        let dateKey = Self.dateKey(p1)
        var canonical: [String] = []
        if Self.header("Host", in: lines) == nil { canonical.append("host:" + request.host) }
        canonical += lines
        canonical = canonical.map(Self.trimmed)
        var timestamp = Self.timestamp(now)
        var dateField: HeaderField? = HeaderField(name: dateKey, value: timestamp)
        if let given = Self.header(dateKey, in: lines) ?? Self.header("Date", in: lines) {
            timestamp = String(given.drop { $0 == " " || $0 == "\t" }.prefix(16))
            dateField = nil
        } else {
            canonical.append("x-\(p1)-date:\(timestamp)")
        }
        canonical.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let signed = canonical.map { line in line.firstIndex(of: ":").map { String(line[..<$0]) } ?? line }.joined(separator: ";")
        let payloadHash = Self.header("x-\(p1)-content-sha256", in: lines)?.trimmed ?? Self.hex(MessageDigest.hash(.sha256, request.payload))
        let canonicalRequest = [request.method, request.path, request.query, canonical.map { $0 + "\n" }.joined(), signed, payloadHash]
            .joined(separator: "\n")
        let date = String(timestamp.prefix(8))
        let requestType = provider0.lowercased() + "4_request"
        let scope = "\(date)/\(region)/\(service)/\(requestType)"
        let algorithm = provider0.uppercased() + "4-HMAC-SHA256"
        let toSign = "\(algorithm)\n\(timestamp)\n\(scope)\n\(Self.hex(MessageDigest.hash(.sha256, Array(canonicalRequest.utf8))))"
        var key = Array((provider0.uppercased() + "4" + secret).utf8)
        for part in [date, region, service, requestType, toSign] {
            key = MessageDigest.hmacSHA256(key: key, message: Array(part.utf8))
        }
        let authorization = "\(algorithm) Credential=\(accessKey)/\(scope), SignedHeaders=\(signed), Signature=\(Self.hex(key))"
        return [HeaderField(name: "Authorization", value: authorization)] + (dateField.map { [$0] } ?? [])
    }

    /// `X-Amz-Date` for `amz`: curl's date header name for PROVIDER2.
    static func dateKey(_ provider1: String) -> String {
        let lowered = provider1.lowercased()
        return "X-" + lowered.prefix(1).uppercased() + lowered.dropFirst() + "-Date"
    }

    /// The value of the first `-H` line named `name` (curl's Curl_checkheaders: the name then
    /// `:` or `;`, case-insensitive), or nil.
    static func header(_ name: String, in lines: [String]) -> Substring? {
        for line in lines {
            let prefix = line.prefix(name.count)
            guard prefix.lowercased() == name.lowercased(), line.count > name.count else { continue }
            let separator = line[line.index(line.startIndex, offsetBy: name.count)]
            if separator == ":" { return line.dropFirst(name.count + 1) }
            if separator == ";" { return "" }
        }
        return nil
    }

    /// curl's trim_headers: the name lower-cased; after the colon, leading blanks dropped, runs
    /// of blanks made one space, trailing blanks dropped.
    static func trimmed(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line.lowercased() }
        var value = ""
        var pendingSpace = false
        for character in line[line.index(after: colon)...] {
            if character == " " || character == "\t" {
                pendingSpace = !value.isEmpty
            } else {
                if pendingSpace { value.append(" ") }
                pendingSpace = false
                value.append(character)
            }
        }
        return line[...colon].lowercased() + value
    }

    /// `YYYYMMDDTHHMMSSZ` for `time` (UTC).
    static func timestamp(_ time: time_t) -> String {
        var seconds = time
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }

    /// Lower-case hex (the Digest code's).
    static func hex(_ bytes: [UInt8]) -> String { HTTPAuthentication.hex(bytes) }
}

extension AWSSigV4 {
    /// What a transfer is signed with: enough to sign each redirect hop again.
    struct Context: Equatable {
        /// `--aws-sigv4`'s value.
        var spec: String
        /// `ACCESS:SECRET`.
        var credentials: String
        /// The `-H` lines as typed (`@file` read).
        var lines: [String]
        /// The `-d` data curl hashes (on every hop: curl keeps its postfields after a 302).
        var payload: [UInt8]

        /// The names of the headers a signature adds: `Authorization`, `X-PROVIDER2-Date`.
        var headerNames: [String] {
            let fields = AWSSigV4.scan(spec)
            let provider = (fields.count > 1 ? fields[1] : fields.first ?? "").lowercased()
            return ["Authorization", AWSSigV4.dateKey(provider)]
        }

        /// The signature headers for `method` to `url`.
        func headers(url: String, method: String) throws(TransferError) -> [HeaderField] {
            try AWSSigV4.headers(spec: spec, url: url, method: method, lines: lines, payload: payload, credentials: credentials)
        }
    }

    /// The signature headers for a request to `url` (as RequestBuilder sends it: scheme, no
    /// user info), or none when a `-H Authorization` is given.
    ///
    /// - Throws: the spec's errors (see ``init(spec:host:)``).
    static func headers(spec: String, url: String, method: String, lines: [String], payload: [UInt8], credentials: String, now: time_t = time(nil)) throws(TransferError) -> [HeaderField] {
        let parts = URLParts(url)
        let signer = try AWSSigV4(spec: spec, host: parts.host)
        let colon = credentials.firstIndex(of: ":") ?? credentials.endIndex
        let secret = colon < credentials.endIndex ? String(credentials[credentials.index(after: colon)...]) : ""
        let request = Request(method: method, path: parts.path, query: parts.query, host: parts.hostHeader, headerLines: lines, payload: payload)
        return signer.sign(request, accessKey: String(credentials[..<colon]), secret: secret, now: now)
    }

    /// The pieces of an absolute URL curl signs.
    struct URLParts: Equatable {
        /// The host name (IPv6 without brackets).
        var host = ""
        /// The Host header's value: the host (IPv6 in brackets), `:port` unless the scheme's default.
        var hostHeader = ""
        /// The path, `/` when empty.
        var path = "/"
        /// The query without `?`, empty when none.
        var query = ""

        init(_ url: String) {
            guard let schemeEnd = url.firstOccurrence(of: "://") else { return }
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            let rest = url[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            var hostPart = authority
            var port: Substring?
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                hostPart = authority[...close]
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { port = after.dropFirst() }
            } else if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                host = String(hostPart)
                port = authority[authority.index(after: colon)...]
            } else {
                host = String(authority)
            }
            let defaultPort = scheme == "https" || scheme == "wss" ? 443 : 80
            hostHeader = String(hostPart)
            if let port, !port.isEmpty, Int(port) != defaultPort { hostHeader += ":" + port }
            let afterAuthority = rest[authorityEnd...]
            let fragmentStart = afterAuthority.firstIndex(of: "#") ?? afterAuthority.endIndex
            let target = afterAuthority[..<fragmentStart]
            let queryStart = target.firstIndex(of: "?") ?? target.endIndex
            let rawPath = target[..<queryStart]
            path = rawPath.isEmpty ? "/" : String(rawPath)
            query = queryStart < target.endIndex ? String(target[target.index(after: queryStart)...]) : ""
        }
    }
}
