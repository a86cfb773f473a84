import Wire

/// One parser event, copied out of the buffer so transcripts can be compared.
enum Recorded: Equatable, CustomStringConvertible {
    case interim(Int, [Field])
    case head(Int, String, [Field], BodyFraming, keepAlive: Bool)
    case body([UInt8])
    case end([Field], closeDelimited: Bool, keepAlive: Bool)
    case upgraded(Int, rest: [UInt8])
    case error(WireError.Rule, offset: Int?)

    struct Field: Equatable, CustomStringConvertible {
        var name: String
        var value: String
        var description: String { "\(name): \(value)" }
    }

    var description: String {
        switch self {
        case .interim(let s, let f): return "interim(\(s), \(f))"
        case .head(let s, let r, let f, let fr, let k): return "head(\(s) \(r), \(f), \(fr), keepAlive: \(k))"
        case .body(let b): return "body(\(String(decoding: b, as: UTF8.self).debugDescription))"
        case .end(let t, let c, let k): return "end(trailers: \(t), closeDelimited: \(c), keepAlive: \(k))"
        case .upgraded(let s, let rest): return "upgraded(\(s), rest: \(String(decoding: rest, as: UTF8.self).debugDescription))"
        case .error(let r, let o): return "error(\(r) at \(o.map(String.init) ?? "-"))"
        }
    }
}

/// Builds fields for expectations: `fields("A", "1", "B", "2")`.
func fields(_ pairs: String...) -> [Recorded.Field] {
    stride(from: 0, to: pairs.count, by: 2).map { Recorded.Field(name: pairs[$0], value: pairs[$0 + 1]) }
}

/// Feeds `pieces` to a fresh parser the way a connection driver does (unconsumed bytes kept at the
/// front of one buffer) and records every event. `eof` reports the end of the stream at the end.
func transcript(
    _ pieces: [[UInt8]], methods: [RequestMethod], eof: Bool, limits: ParserLimits = .default,
    options: ResponseParsingOptions = .strict
) -> [Recorded] {
    var parser = ResponseParser(limits: limits)
    // OPTIONS stands for the request that offers `Upgrade` (RFC 2817's `OPTIONS *` upgrade), as
    // in the fuzz harness: only its 101 answer switches protocols.
    for method in methods { parser.expectResponse(to: method, offeringUpgrade: method == .options, options: options) }
    var buffer: [UInt8] = []
    var events: [Recorded] = []
    var upgradedStatus: Int?

    func record(_ event: Recorded) {
        if case .body(let more) = event, case .body(let previous)? = events.last {
            events[events.count - 1] = .body(previous + more)
        } else {
            events.append(event)
        }
    }

    outer: for piece in pieces {
        buffer += piece
        if upgradedStatus != nil { continue }
        parsing: while true {
            let result: Result<(Recorded?, Int, Bool), WireError> = buffer.withUnsafeBytes { raw in
                do throws(WireError) {
                    let step = try parser.parse(raw)
                    switch step.event {
                    case .needMoreData:
                        return .success((nil, step.consumed, true))
                    case .interim(let head):
                        return .success((.interim(head.status, copy(head.fields, raw)), step.consumed, false))
                    case .head(let head):
                        let reason = head.reasonPhrase(in: raw)
                        return .success((.head(head.status, reason, copy(head.fields, raw), head.framing, keepAlive: head.keepAlive), step.consumed, false))
                    case .body(let range):
                        precondition(range.upperBound <= raw.count && range.upperBound <= step.consumed)
                        return .success((.body(Array(raw[range])), step.consumed, false))
                    case .end(let end):
                        return .success((.end(copy(end.trailers, raw), closeDelimited: end.closeDelimited, keepAlive: end.keepAlive), step.consumed, false))
                    case .upgraded(let head):
                        return .success((.upgraded(head.status, rest: []), step.consumed, true))
                    }
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .failure(let error):
                record(.error(error.rule, offset: error.offset))
                return events
            case .success(let (event, consumed, stop)):
                precondition(consumed <= buffer.count, "consumed more than the input")
                buffer.removeFirst(consumed)
                if let event {
                    if case .upgraded(let status, _) = event { upgradedStatus = status } else { record(event) }
                }
                if upgradedStatus != nil { continue outer }
                if stop { break parsing }
            }
        }
    }
    if let upgradedStatus {
        events.append(.upgraded(upgradedStatus, rest: buffer))
        return events
    }
    if eof {
        do {
            if let event = try parser.finish(), case .end(let end) = event {
                record(.end([], closeDelimited: end.closeDelimited, keepAlive: end.keepAlive))
            }
        } catch {
            record(.error(error.rule, offset: error.offset))
        }
    }
    return events
}

private func copy(_ fields: HeaderFields, _ raw: UnsafeRawBufferPointer) -> [Recorded.Field] {
    fields.indices.map { Recorded.Field(name: fields.name(at: $0, in: raw), value: fields.value(at: $0, in: raw)) }
}

/// The ways a fixture is split into pieces; every one must give the same transcript.
enum Splits {
    static func whole(_ bytes: [UInt8]) -> [[UInt8]] { [bytes] }
    static func byteByByte(_ bytes: [UInt8]) -> [[UInt8]] { bytes.map { [$0] } }
    static func at(_ index: Int, _ bytes: [UInt8]) -> [[UInt8]] { [Array(bytes[..<index]), Array(bytes[index...])] }
    /// Deterministic pseudo-random splits (xorshift), so failures reproduce.
    static func random(_ bytes: [UInt8], seed: UInt64) -> [[UInt8]] {
        var state = seed | 1
        var pieces: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let n = Int(state % 17) + 1
            pieces.append(Array(bytes[i..<min(bytes.count, i + n)]))
            i += n
        }
        return pieces
    }
}

/// Checks that every split of `bytes` gives the transcript of the whole input; returns that
/// transcript, or a description of the first split that differs.
func splitInvariantTranscript(
    _ bytes: [UInt8], methods: [RequestMethod], eof: Bool = true, limits: ParserLimits = .default,
    options: ResponseParsingOptions = .strict
) -> (transcript: [Recorded], mismatch: String?) {
    let whole = transcript(Splits.whole(bytes), methods: methods, eof: eof, limits: limits, options: options)
    var candidates: [(String, [[UInt8]])] = [("byte by byte", Splits.byteByByte(bytes))]
    if bytes.count <= 2048 {
        for i in 0...bytes.count { candidates.append(("split at \(i)", Splits.at(i, bytes))) }
    }
    for seed in 1...8 { candidates.append(("random seed \(seed)", Splits.random(bytes, seed: UInt64(seed)))) }
    for (label, pieces) in candidates {
        let other = transcript(pieces, methods: methods, eof: eof, limits: limits, options: options)
        if other != whole {
            return (whole, "\(label) gave \(other)\n whole gave \(whole)")
        }
    }
    return (whole, nil)
}
