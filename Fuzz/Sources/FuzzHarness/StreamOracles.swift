// The oracles for one response stream, in the order they run:
//
// 1. Whole: parse the stream in one piece (`ParserDriver` checks the per-call contract).
// 2. Reference, forward: everything the parser accepted is re-read by the slow reference (heads,
//    framing, Content-Length and close-delimited bodies, chunked bodies with their limits, upgrade
//    rests). Reverse: the valid responses a stream starts with must be the parser's first events,
//    and a stream of nothing but valid responses must parse to exactly those, with no error.
// 3. Split invariance: a seeded split, and byte by byte for short streams, give the same events
//    and the same error (rule and offset).
// 4. Round trip: the complete responses, re-serialized, parse to the same events.

import Wire

/// Runs every oracle on response streams; traps on the first violation.
public enum StreamOracles {
    /// Streams up to this length are also parsed one byte per call.
    public static let byteByByteLimit = 256

    /// Checks one stream.
    /// - Parameter input: the decoded fuzz input.
    public static func check(_ input: StreamCase) {
        var driver = ParserDriver(stream: input.stream, methods: input.methods, limits: input.limits)
        driver.checksAccessors = true
        let whole = driver.run(pieces: Splits.whole(count: input.stream.count))
        driver.checksAccessors = false
        compareWithReference(whole, input)
        compareWithReferenceReading(whole, input)

        let seeded = driver.run(pieces: Splits.seeded(count: input.stream.count, seed: input.splitSeed))
        requireSame(seeded, whole, "split with seed \(input.splitSeed)")
        if input.stream.count <= byteByByteLimit {
            let bytewise = driver.run(pieces: Splits.byteByByte(count: input.stream.count))
            requireSame(bytewise, whole, "byte by byte")
        }
        roundTrip(whole, input)
    }

    private static func requireSame(_ other: Transcript, _ whole: Transcript, _ label: String) {
        require(other.events == whole.events, "\(label) differs from whole.\n\(label):\n\(other.listing)\nwhole:\n\(whole.listing)")
    }

    // MARK: Reference

    private static func compareWithReference(_ transcript: Transcript, _ input: StreamCase) {
        let s = input.stream
        var answered = 0          // final heads so far: the index of the request being answered
        var open: (head: CopiedHead, bodyStart: Int, body: [UInt8])?
        do throws(Disagreement) {
            for (event, span) in zip(transcript.events, transcript.spans) {
                switch event {
                case .interim(let head), .head(let head), .upgraded(let head, _):
                    guard answered < input.methods.count else { throw Disagreement("a response no request asked for") }
                    let expected = try ReferenceSection(s[span], isHeader: true).head(answering: input.methods[answered])
                    guard head == expected else { throw Disagreement("head \(head)\nreference: \(expected)") }
                    guard open == nil else { throw Disagreement("a head inside a body") }
                    if case .upgraded(_, let rest) = event {
                        guard head.framing == .tunnel, rest == Array(s[span.upperBound...]) else { throw Disagreement("upgrade rest") }
                    }
                    if case .head = event {
                        answered += 1
                        open = (head, span.upperBound, [])
                    }
                case .body(let bytes):
                    guard open != nil else { throw Disagreement("body outside a response") }
                    open?.body = bytes
                case .end(let trailers, let closeDelimited, let keepAlive):
                    guard let (head, bodyStart, body) = open else { throw Disagreement("end outside a response") }
                    open = nil
                    try checkBody(head, s[bodyStart..<span.upperBound], body: body, trailers: trailers, limits: input.limits)
                    guard closeDelimited == (head.framing == .untilClose), keepAlive == head.keepAlive else {
                        throw Disagreement("end closeDelimited \(closeDelimited), keepAlive \(keepAlive) after \(head)")
                    }
                    if closeDelimited && span.upperBound != s.count { throw Disagreement("close-delimited body ended early") }
                case .failed:
                    break
                }
            }
        } catch {
            violation("the parser accepted what the reference rejects or reads differently: \(error)\nstream: \(text(s))\nevents:\n\(transcript.listing)")
        }
    }

    /// The reverse direction: what the reference reads as valid, the parser must report.
    private static func compareWithReferenceReading(_ transcript: Transcript, _ input: StreamCase) {
        let reading = ReferenceStream.read(input.stream, methods: input.methods, limits: input.limits)
        let matches = reading.transcript.map { transcript.events == $0 } ?? transcript.events.starts(with: reading.events)
        require(
            matches,
            "the parser rejects or misreads valid responses (then: \(reading.failure.map(String.init(describing:)) ?? (reading.clean ? "nothing" : "unknown"))).\n"
                + "stream: \(text(input.stream))\nreference:\n\(Transcript(events: reading.events).listing)\nparser:\n\(transcript.listing)"
        )
    }

    /// Checks the bytes between a head and its end against the head's framing.
    private static func checkBody(
        _ head: CopiedHead, _ region: ArraySlice<UInt8>, body: [UInt8], trailers: [CopiedField], limits: ParserLimits
    ) throws(Disagreement) {
        switch head.framing {
        case .none:
            guard region.isEmpty, body.isEmpty, trailers.isEmpty else { throw Disagreement("a body where framing is none") }
        case .contentLength(let length):
            guard region.count == length, body == Array(region), trailers.isEmpty else {
                throw Disagreement("Content-Length \(length) body of \(body.count) bytes over \(region.count) consumed")
            }
        case .untilClose:
            guard body == Array(region), trailers.isEmpty else { throw Disagreement("close-delimited body differs from the bytes") }
        case .chunked:
            let expected = try ReferenceChunkedBody(region, limits: limits)
            guard expected.length == region.count else { throw Disagreement("chunked body of \(expected.length) bytes, \(region.count) consumed") }
            guard body == expected.data else { throw Disagreement("chunked data \(text(body)), reference \(text(expected.data))") }
            guard trailers == expected.trailers else { throw Disagreement("trailers \(trailers), reference \(expected.trailers)") }
        case .tunnel:
            throw Disagreement("a tunnel head ended like a response")
        }
    }

    // MARK: Round trip

    private static func roundTrip(_ transcript: Transcript, _ input: StreamCase) {
        // The complete responses: everything up to the last end or upgrade.
        guard let last = transcript.events.lastIndex(where: {
            if case .end = $0 { return true }
            if case .upgraded = $0 { return true }
            return false
        }) else { return }
        let complete = Array(transcript.events[...last])
        let answered = complete.count { event in
            if case .head = event { return true }
            if case .upgraded = event { return true }
            return false
        }
        var writer = ResponseWriter(seed: input.splitSeed)
        writer.write(complete)
        let again = ParserDriver(stream: writer.bytes, methods: Array(input.methods.prefix(answered)), limits: .default)
            .run(pieces: Splits.whole(count: writer.bytes.count))
        require(
            again.events.map(\.unfolded) == complete.map(\.unfolded),
            "round trip differs.\nre-serialized: \(text(writer.bytes))\nreparsed:\n\(again.listing)\noriginal:\n\(Transcript(events: complete).listing)"
        )
    }
}
