/// The two pure decisions behind resumable downloads, table-tested without sockets
/// (`ResumeDecisionTests`):
///
/// - ``validator(method:status:headers:)``: can this response be resumed later, and with which
///   `If-Range` validator? (URLSession's conditions: a GET, a server that takes byte ranges, an
///   `ETag` or `Last-Modified`.)
/// - ``decide(offset:etag:status:headers:)``: the server answered a resumed request; append
///   to the partial file, start it over, or refuse the answer?
enum ResumeDecision: Equatable, Sendable {
    /// `206` whose `Content-Range` starts at the offset: append the body.
    case append
    /// Any other status (`200` after `If-Range` failed because the resource changed, or an
    /// error page): the file starts over with this body.
    case restart
    /// A `206` that does not fit the partial file.
    case fail(ResumeDataError.Kind)

    /// What to send as `If-Range` when resuming after `status` and `headers`; `nil` when the
    /// response cannot be resumed.
    ///
    /// RFC 9110 §13.1.5: `If-Range` must not carry a weak entity tag, so a weak `ETag` falls back
    /// to `Last-Modified`. Resuming needs a server that takes ranges: `Accept-Ranges: bytes`, or
    /// a `206` (it just did).
    static func validator(method: String, status: Int, headers: HTTPHeaders) -> (etag: String?, lastModified: String?)? {
        guard method == "GET", status == 200 || status == 206 else { return nil }
        let acceptsRanges = status == 206 || (headers.value(for: "Accept-Ranges").map { value in
            value.split(separator: ",").contains { $0.trimmingSpaces().lowercased() == "bytes" }
        } ?? false)
        guard acceptsRanges else { return nil }
        let etag = headers.value(for: "ETag").flatMap { $0.hasPrefix("W/") || $0.isEmpty ? nil : $0 }
        let lastModified = headers.value(for: "Last-Modified").flatMap { $0.isEmpty ? nil : $0 }
        guard etag != nil || lastModified != nil else { return nil }
        return (etag, lastModified)
    }

    /// The answer to a request sent with `Range: bytes=offset-` and `If-Range`.
    /// - Parameters:
    ///   - offset: The partial file's length.
    ///   - etag: The ETag stored in the resume data, if any.
    ///   - status: The response's status.
    ///   - headers: The response's headers.
    static func decide(offset: Int, etag: String?, status: Int, headers: HTTPHeaders) -> ResumeDecision {
        guard status == 206 else { return .restart }
        guard let range = headers.value(for: "Content-Range").flatMap(ContentRange.init(parsing:)),
              range.first == offset else { return .fail(.contentRangeMismatch) }
        // A server that ignored If-Range and sent a part of a changed resource.
        if let etag, let now = headers.value(for: "ETag"), now != etag { return .fail(.validatorChanged) }
        return .append
    }
}

/// A `Content-Range: bytes first-last/length` value (RFC 9110 §14.4), `length` nil for `*`.
struct ContentRange: Equatable, Sendable {
    /// The first byte's offset.
    let first: Int
    /// The last byte's offset (inclusive).
    let last: Int
    /// The whole representation's length, when the server knows it.
    let length: Int?

    /// Parses a satisfied range; `nil` for anything else (`bytes */len`, other units,
    /// last before first, length not past last, signs, spaces inside numbers, overflow).
    init?(parsing value: String) {
        var text = Substring(value.trimmingSpaces())
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        text = text.dropFirst(6).drop { $0 == " " }
        guard let dash = text.firstIndex(of: "-"), let slash = text.firstIndex(of: "/"), dash < slash,
              let first = Self.number(text[..<dash]), let last = Self.number(text[text.index(after: dash)..<slash]),
              last >= first else { return nil }
        let tail = text[text.index(after: slash)...]
        if tail == "*" {
            length = nil
        } else {
            guard let total = Self.number(tail), total > last else { return nil }
            length = total
        }
        self.first = first
        self.last = last
    }

    /// Digits only, at most 18 (no overflow).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (FoundationEssentials has no
    /// `trimmingCharacters`).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return String(self[start...end])
    }
}
