// The reference's framing decision for a head (RFC 9112 §6.1, §6.3, §9.3,
// with the parser's documented strictness): written as the RFC's numbered list, over the fields'
// values as the user sees them (obs-fold already read as spaces). A head the parser accepts must
// be one this reading accepts, with the same framing and the same keep-alive verdict.

import Wire

extension ReferenceSection {
    /// The body framing and keep-alive verdict of this head, answering a request of `method`.
    func framing(answering method: RequestMethod) throws(Disagreement) -> (body: BodyFraming, keepAlive: Bool) {
        var contentLength: Int?
        var transferCodings: [[UInt8]] = []
        var sawTransferEncoding = false
        var close = false
        var keepAliveToken = false
        var upgradeNamed = false

        for field in fields {
            switch Self.lowercased(field.name) {
            case "content-length":
                guard !field.isFolded else { throw Disagreement("a folded Content-Length") }
                for element in Self.elements(field.value) {
                    guard (1...18).contains(element.count), element.allSatisfy(Self.isDigit) else {
                        throw Disagreement("Content-Length element \(text(Array(element)))")
                    }
                    let value = element.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                    // §6.3 point 5: differing lengths are unrecoverable.
                    if let contentLength, contentLength != value { throw Disagreement("Content-Length \(contentLength) and \(value)") }
                    contentLength = value
                }
            case "transfer-encoding":
                guard !field.isFolded else { throw Disagreement("a folded Transfer-Encoding") }
                sawTransferEncoding = true
                let codings = Self.elements(field.value).filter { !$0.isEmpty }
                guard !codings.isEmpty else { throw Disagreement("an empty Transfer-Encoding") }
                for coding in codings {
                    let name = coding.prefix(while: Self.isTokenByte)
                    guard !name.isEmpty else { throw Disagreement("transfer coding \(text(Array(coding)))") }
                    // §6.1: chunked is applied once, last, and takes no parameters here.
                    if let previous = transferCodings.last, Self.lowercased(previous) == "chunked" {
                        throw Disagreement("a coding after chunked")
                    }
                    if Self.lowercased(Array(name)) == "chunked" && name.count != coding.count {
                        throw Disagreement("chunked with parameters")
                    }
                    transferCodings.append(Array(name))
                }
            case "connection":
                for option in Self.elements(field.value) {
                    if Self.lowercased(Array(option)) == "close" { close = true }
                    if Self.lowercased(Array(option)) == "keep-alive" { keepAliveToken = true }
                }
            case "upgrade":
                upgradeNamed = upgradeNamed || !field.value.isEmpty
            default:
                break
            }
        }
        // §6.3 point 3: both framings is the request-smuggling vector; rejected outright.
        if sawTransferEncoding && contentLength != nil { throw Disagreement("both Content-Length and Transfer-Encoding") }
        // §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing.
        if sawTransferEncoding && version.minor == 0 { throw Disagreement("Transfer-Encoding in HTTP/1.0") }

        // RFC 9110 §7.8: a 101 only to the request that offered Upgrade (OPTIONS in the harness),
        // and §15.2.2: it names the new protocol.
        if status == 101 {
            guard method == .options else { throw Disagreement("a 101 to \(method), which offered no upgrade") }
            guard upgradeNamed else { throw Disagreement("a 101 without an Upgrade field") }
        }

        // §6.3 points 1-7, in order.
        let body: BodyFraming
        if status == 101 || (method == .connect && (200..<300).contains(status)) {
            body = .tunnel
        } else if method == .head || (100..<200).contains(status) || status == 204 || status == 304 {
            body = .none
        } else if let last = transferCodings.last {
            body = Self.lowercased(last) == "chunked" ? .chunked : .untilClose
        } else if let contentLength {
            body = contentLength == 0 ? .none : .contentLength(contentLength)
        } else {
            body = .untilClose
        }
        // §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only with "keep-alive" (and no "close").
        var keepAlive = version.minor == 0 ? keepAliveToken && !close : !close
        if body == .untilClose || body == .tunnel { keepAlive = false }
        return (body, keepAlive)
    }

    /// This section as the head the parser should have reported.
    func head(answering method: RequestMethod) throws(Disagreement) -> CopiedHead {
        let framing = try framing(answering: method)
        return CopiedHead(version: version, status: status, reason: reason, fields: fields, framing: framing.body, keepAlive: framing.keepAlive)
    }
}
