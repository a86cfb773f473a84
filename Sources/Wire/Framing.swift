// Decides how a response body is delimited, from its status, its request's method and its
// Content-Length / Transfer-Encoding / Connection fields (RFC 9112 §6.3, §9.3).
//
// Runs once per head, after the whole section is scanned, so an obs-fold continuation is known
// before a framing field is judged. Strict by design: every case that lets two parsers disagree
// about where a response ends is an error (CL+TE, differing CLs, TE in HTTP/1.0, chunked twice).

/// The framing-relevant facts of one head.
struct Framing: Sendable {
    var body: BodyFraming
    var keepAlive: Bool

    /// Interprets the framing fields of a head; offsets in errors are section-relative.
    /// With ``ResponseParsingOptions/ignoresContentLength``, Content-Length fields are skipped
    /// unread (`ignoredContentLength` remembers one was there).
    static func interpret(
        _ p: UnsafeRawPointer, fields: [FieldRange], status: StatusLine, request: ResponseKind,
        options: ResponseParsingOptions = .strict
    ) throws(WireError) -> Framing {
        var contentLength: Int?
        var ignoredContentLength = false
        var transferEncoding: TransferCodings?
        var connectionClose = false
        var connectionKeepAlive = false
        var upgrade = false

        for field in fields {
            switch field.name.count {
            case 14 where Scan.equalsIgnoringCase(p, field.name, "content-length"):
                if options.ignoresContentLength {
                    ignoredContentLength = true
                    continue
                }
                if field.isFolded { throw folded(field) }
                let value = try parseContentLength(p, field.value)
                if let previous = contentLength, previous != value {
                    throw WireError(.contentLengthMismatch, "Content-Length \(value) differs from \(previous)", offset: field.value.lowerBound)
                }
                contentLength = value
                if transferEncoding != nil { throw bothFraming(field) }
            case 17 where Scan.equalsIgnoringCase(p, field.name, "transfer-encoding"):
                if field.isFolded { throw folded(field) }
                var codings = transferEncoding ?? TransferCodings()
                try codings.add(p, field.value)
                transferEncoding = codings
                if contentLength != nil { throw bothFraming(field) }
            case 10 where Scan.equalsIgnoringCase(p, field.name, "connection"):
                if Scan.equalsIgnoringCase(p, field.value, "keep-alive") {
                    connectionKeepAlive = true  // the common single-token value, without list parsing
                } else if Scan.equalsIgnoringCase(p, field.value, "close") {
                    connectionClose = true
                } else {
                    forEachListElement(p, field.value) { element in
                        if Scan.equalsIgnoringCase(p, element, "close") { connectionClose = true }
                        if Scan.equalsIgnoringCase(p, element, "keep-alive") { connectionKeepAlive = true }
                    }
                }
            case 7 where Scan.equalsIgnoringCase(p, field.name, "upgrade"):
                upgrade = upgrade || !field.value.isEmpty
            default:
                continue
            }
        }

        if let te = transferEncoding, status.version.minor == 0 {
            // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
            throw WireError(.transferEncoding, "Transfer-Encoding in an HTTP/1.0 response", offset: te.firstOffset)
        }
        var keepAlive = status.version.minor == 0 ? (connectionKeepAlive && !connectionClose) : !connectionClose

        let body: BodyFraming
        switch (status.status, request) {
        case (101, .upgradable):
            // RFC 9110 §15.2.2: the server MUST say which protocol it switches to.
            guard upgrade else { throw WireError(.upgradeField, "101 Switching Protocols without an Upgrade field", offset: 0) }
            body = .tunnel
        case (101, _):
            // RFC 9110 §7.8: a server MUST NOT switch to a protocol the request did not offer.
            throw WireError(.unsolicitedUpgrade, "101 Switching Protocols to a request that offered no upgrade", offset: 0)
        case (100..<200, _):
            body = .none
        case (200..<300, .connect):
            body = .tunnel
        case (_, .head), (204, _), (304, _):
            body = .none
        default:
            if let te = transferEncoding {
                body = te.chunkedIsFinal ? .chunked : .untilClose
            } else if let contentLength {
                body = contentLength == 0 ? .none : .contentLength(contentLength)
            } else {
                body = .untilClose
            }
        }
        if body == .untilClose || body == .tunnel { keepAlive = false }
        // A length we did not read next to chunked: whoever framed it by the length disagrees
        // about where the response ends, so the connection carries nothing more.
        if ignoredContentLength && body == .chunked { keepAlive = false }
        return Framing(body: body, keepAlive: keepAlive)
    }

    private static func folded(_ field: FieldRange) -> WireError {
        WireError(.foldedFramingField, "obs-fold in a field that decides framing", offset: field.value.lowerBound)
    }

    private static func bothFraming(_ field: FieldRange) -> WireError {
        WireError(.contentLengthWithTransferEncoding, "both Content-Length and Transfer-Encoding", offset: field.name.lowerBound)
    }

    /// Parses `1*DIGIT *( OWS "," OWS 1*DIGIT )` where every element is the same number
    /// (RFC 9110 §8.6 lets a recipient accept a list of identical values).
    static func parseContentLength(_ p: UnsafeRawPointer, _ range: Range<Int>) throws(WireError) -> Int {
        // Fast path: a plain run of 1 to 18 digits (the usual value).
        if !range.isEmpty && range.count <= 18 {
            var value = 0, i = range.lowerBound
            while i < range.upperBound {
                let b = Scan.byte(p, i)
                guard b >= 0x30 && b <= 0x39 else { break }
                value = value * 10 + Int(b - 0x30)
                i += 1
            }
            if i == range.upperBound { return value }
        }
        var result: Int?
        var failure: WireError?
        var elements = 0
        forEachListElement(p, range) { element in
            guard failure == nil else { return }
            elements += 1
            guard !element.isEmpty else {
                failure = WireError(.contentLength, "empty Content-Length", offset: element.lowerBound)
                return
            }
            guard element.count <= 18 else {
                failure = WireError(.contentLength, "Content-Length longer than 18 digits", offset: element.lowerBound)
                return
            }
            var value = 0
            for i in element {
                let b = Scan.byte(p, i)
                guard b >= 0x30 && b <= 0x39 else {
                    failure = WireError(.contentLength, "invalid character 0x\(hex(b)) in Content-Length", offset: i)
                    return
                }
                value = value * 10 + Int(b - 0x30)
            }
            if let result, result != value {
                failure = WireError(.contentLengthMismatch, "Content-Length list holds \(result) and \(value)", offset: element.lowerBound)
            }
            result = value
        }
        if let failure { throw failure }
        guard let result, elements > 0 else {
            throw WireError(.contentLength, "empty Content-Length", offset: range.lowerBound)
        }
        return result
    }

    /// Calls `body` with each comma-separated element of `range`, trimmed of OWS and of the CR LF
    /// an obs-fold leaves in a value (found by the fuzzer: `Connection: keep-alive,\r\n close`,
    /// Fuzz/FailCases/parser-folded-connection-close). Empty elements are passed too
    /// (Content-Length rejects them; lists skip them).
    static func forEachListElement(_ p: UnsafeRawPointer, _ range: Range<Int>, _ body: (Range<Int>) -> Void) {
        var start = range.lowerBound
        var i = range.lowerBound
        while i <= range.upperBound {
            if i == range.upperBound || Scan.byte(p, i) == ASCII.comma {
                var s = start, e = i
                while s < e && isListWhitespace(Scan.byte(p, s)) { s += 1 }
                while e > s && isListWhitespace(Scan.byte(p, e - 1)) { e -= 1 }
                body(s..<e)
                start = i + 1
            }
            i += 1
        }
    }
}

/// SP, HTAB, and the CR and LF of an obs-fold (which reads as spaces, RFC 9112 §5.2).
@inline(__always)
private func isListWhitespace(_ b: UInt8) -> Bool {
    b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf
}

/// The transfer codings named by one or more Transfer-Encoding fields, in order (RFC 9112 §6.1).
struct TransferCodings: Sendable {
    private(set) var chunkedIsFinal = false
    private var count = 0
    private(set) var firstOffset = 0

    /// Adds the codings of one field value.
    mutating func add(_ p: UnsafeRawPointer, _ range: Range<Int>) throws(WireError) {
        if count == 0 { firstOffset = range.lowerBound }
        var failure: WireError?
        var added = 0
        Framing.forEachListElement(p, range) { element in
            guard failure == nil, !element.isEmpty else { return }
            let nameEnd = Scan.tokenBytes(p, from: element.lowerBound, end: element.upperBound)
            let name = element.lowerBound..<nameEnd
            guard !name.isEmpty else {
                failure = WireError(.transferEncoding, "transfer coding is not a token", offset: element.lowerBound)
                return
            }
            if chunkedIsFinal {
                // Something follows chunked: applied twice, or another coding after it (§6.1: a
                // sender MUST NOT apply a coding after chunked).
                failure = WireError(.transferEncoding, "a transfer coding follows chunked", offset: element.lowerBound)
                return
            }
            if Scan.equalsIgnoringCase(p, name, "chunked") {
                guard nameEnd == element.upperBound else {
                    failure = WireError(.transferEncoding, "chunked takes no parameters", offset: nameEnd)
                    return
                }
                chunkedIsFinal = true
            }
            added += 1
        }
        if let failure { throw failure }
        guard added > 0 else {
            throw WireError(.transferEncoding, "empty Transfer-Encoding", offset: range.lowerBound)
        }
        count += added
    }
}
