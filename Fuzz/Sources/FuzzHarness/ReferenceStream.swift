// The reference's reading of a whole stream, for the reverse direction of the differential: the
// complete, valid responses (within every limit) at the start of a stream are exactly what the
// parser must report first; when every byte belongs to such responses and every request is
// answered, the parser must report exactly those events and no error; and when the stream ends
// between responses with a request unanswered, or bytes follow the last expected response, it
// must fail with that (RFC 9112 §6.3, last paragraph; §9.6). (The forward direction, in
// StreamOracles, checks that whatever the parser accepted is valid; together they leave no room
// for the parser to reject a good response or to accept a bad one.)

import Wire

enum ReferenceStream {
    /// The reference's reading of a stream.
    struct Reading {
        /// The events of the complete, valid responses the stream starts with.
        var events: [Event] = []
        /// Whether those responses are the whole stream and answer every request.
        var clean = false
        /// The failure that must follow `events`, when the reference can tell.
        var failure: Event?

        /// The parser's complete transcript, when the reference can tell.
        var transcript: [Event]? {
            if clean { return events }
            return failure.map { events + [$0] }
        }

        mutating func end(_ s: [UInt8], at pos: Int, pending: Int) {
            if pos < s.count {
                failure = .failed(.unsolicitedData, offset: pos)
            } else if pending > 0 {
                failure = .failed(.closedBeforeResponse, offset: nil)
            } else {
                clean = true
            }
        }
    }

    /// Reads `s` as the responses to `methods`, parsed under `limits`.
    static func read(_ s: [UInt8], methods: [RequestMethod], limits: ParserLimits) -> Reading {
        var reading = Reading()
        var events: [Event] = []  // includes the interim heads of a response not complete yet
        var pending = methods[...]
        var pos = 0
        var interims = 0
        while let method = pending.first {
            if pos == s.count {
                // Between responses (interim ones included, which answer nothing).
                reading.events = events
                reading.end(s, at: pos, pending: pending.count)
                return reading
            }
            guard let end = ReferenceSection.end(of: s[pos...], isHeader: true),
                  end - pos <= limits.maxHeaderSectionSize,
                  let statusLineEnd = s[pos...].firstIndex(of: 0x0A), statusLineEnd + 1 - pos <= limits.maxStatusLineLength,
                  let section = try? ReferenceSection(s[pos..<end], isHeader: true),
                  section.fields.count <= limits.maxFieldCount,
                  let head = try? section.head(answering: method)
            else { return reading }
            pos = end
            if (100..<200).contains(head.status) && head.status != 101 {
                interims += 1
                guard interims <= limits.maxInterimResponses else { return reading }
                events.append(.interim(head))
                continue
            }
            interims = 0
            pending.removeFirst()
            events.append(.head(head))
            func body(_ bytes: ArraySlice<UInt8>) { if !bytes.isEmpty { events.append(.body(Array(bytes))) } }
            switch head.framing {
            case .tunnel:
                events[events.count - 1] = .upgraded(head, rest: Array(s[pos...]))
                return Reading(events: events, clean: true)
            case .none:
                events.append(.end(trailers: [], closeDelimited: false, keepAlive: head.keepAlive))
            case .contentLength(let length):
                guard s.count - pos >= length else { return reading }
                body(s[pos..<(pos + length)])
                events.append(.end(trailers: [], closeDelimited: false, keepAlive: head.keepAlive))
                pos += length
            case .chunked:
                guard let chunked = try? ReferenceChunkedBody(s[pos...], limits: limits) else { return reading }
                body(chunked.data[...])
                events.append(.end(trailers: chunked.trailers, closeDelimited: false, keepAlive: head.keepAlive))
                pos += chunked.length
            case .untilClose:
                // The body ends with the stream. Requests still pending get no response; the parser
                // leaves that to `outstandingResponses` rather than failing `finish()`.
                body(s[pos...])
                events.append(.end(trailers: [], closeDelimited: true, keepAlive: false))
                return Reading(events: events, clean: true)
            }
            reading.events = events
            // After a response that closes the connection, nothing may follow and nothing may wait.
            if !head.keepAlive {
                reading.end(s, at: pos, pending: pending.count)
                return reading
            }
        }
        reading.end(s, at: pos, pending: 0)
        return reading
    }
}
