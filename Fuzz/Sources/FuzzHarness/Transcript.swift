// What the parser reported for one stream, copied out of the buffers it pointed into, so that
// transcripts from different splits (and from the round trip) can be compared with `==`.

import Wire

/// A field line, copied.
struct CopiedField: Equatable, CustomStringConvertible {
    var name: [UInt8]
    /// The value as ``HeaderFields/valueBytes(at:in:)`` returns it (obs-fold replaced by spaces).
    var value: [UInt8]
    var isFolded: Bool

    var description: String { "\(text(name)): \(text(value))\(isFolded ? " (folded)" : "")" }
}

/// A response head, copied.
struct CopiedHead: Equatable, CustomStringConvertible {
    var version: HTTPVersion
    var status: Int
    var reason: [UInt8]
    var fields: [CopiedField]
    var framing: BodyFraming
    var keepAlive: Bool

    var description: String { "\(version) \(status) \(text(reason)) \(fields) \(framing) keepAlive: \(keepAlive)" }
}

/// One recorded event. Consecutive body events are merged: how a body is cut is not part of the
/// parser's contract.
enum Event: Equatable, CustomStringConvertible {
    case interim(CopiedHead)
    case head(CopiedHead)
    case body([UInt8])
    case end(trailers: [CopiedField], closeDelimited: Bool, keepAlive: Bool)
    /// A switch to another protocol, and every stream byte after the head.
    case upgraded(CopiedHead, rest: [UInt8])
    /// The error that ended the stream (thrown by `parse` or by `finish`).
    case failed(WireError.Rule, offset: Int?)

    var description: String {
        switch self {
        case .interim(let head): return "interim(\(head))"
        case .head(let head): return "head(\(head))"
        case .body(let bytes): return "body(\(text(bytes)))"
        case .end(let trailers, let closeDelimited, let keepAlive):
            return "end(trailers: \(trailers), closeDelimited: \(closeDelimited), keepAlive: \(keepAlive))"
        case .upgraded(let head, let rest): return "upgraded(\(head), rest: \(text(rest)))"
        case .failed(let rule, let offset): return "failed(\(rule) at \(offset.map(String.init) ?? "-"))"
        }
    }

    /// The event with every obs-fold mark cleared: a re-serialized field is never folded.
    var unfolded: Event {
        func clear(_ fields: [CopiedField]) -> [CopiedField] { fields.map { CopiedField(name: $0.name, value: $0.value, isFolded: false) } }
        func clear(_ head: CopiedHead) -> CopiedHead {
            var copy = head
            copy.fields = clear(head.fields)
            return copy
        }
        switch self {
        case .interim(let head): return .interim(clear(head))
        case .head(let head): return .head(clear(head))
        case .end(let trailers, let closeDelimited, let keepAlive): return .end(trailers: clear(trailers), closeDelimited: closeDelimited, keepAlive: keepAlive)
        case .upgraded(let head, let rest): return .upgraded(clear(head), rest: rest)
        case .body, .failed: return self
        }
    }
}

/// The events of one run and where each sits in the stream.
struct Transcript {
    var events: [Event] = []
    /// For each event, the stream offsets of the bytes consumed by the calls that returned it
    /// (merged body events span from the first to the last).
    var spans: [Range<Int>] = []

    mutating func append(_ event: Event, span: Range<Int>) {
        if case .body(let more) = event, case .body(var previous)? = events.last {
            // Taken out first, so the array is uniquely referenced and grows in place.
            events.removeLast()
            previous += more
            events.append(.body(previous))
            spans[spans.count - 1] = spans[spans.count - 1].lowerBound..<span.upperBound
        } else {
            events.append(event)
            spans.append(span)
        }
    }

    /// Whether the stream ended in an error.
    var failed: Bool {
        if case .failed? = events.last { return true }
        return false
    }

    /// A multi-line listing for violation messages.
    var listing: String { events.map { "  \($0)" }.joined(separator: "\n") }
}

/// Bytes as an escaped string, for messages.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self).debugDescription
}
