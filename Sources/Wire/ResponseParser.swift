// The response side of one HTTP/1.1 connection, sans I/O: bytes in, events out.
//
// States and their exits:
//
//   awaitingHead ──head (final)──▶ body ──last byte──▶ awaitingHead  (keep-alive)
//        │  ▲                        │              └──▶ drained       (Connection: close)
//        │  └──interim (1xx)─────────┘ (stays)       body(chunked) ──last chunk──▶ trailers ──▶ …
//        ├──head (framing .none)──▶ awaitingHead / drained, via a pending end event
//        ├──101 (to a request offering Upgrade), or 2xx to CONNECT──▶ upgraded (terminal: the
//        │          remaining bytes are not HTTP/1.1); a 101 to any other request is an error
//        └──no `HTTP/` (only with `allowsHTTP09`)──▶ body(until close), an HTTP/0.9 head first
//   any ──malformed input──▶ failed (terminal: every later call throws the same error)
//   any ──finish()──▶ closed (terminal)
//
// Contract with the caller (the connection driver): pass the bytes not yet consumed, starting at
// the first unconsumed byte; each call returns one event and how many bytes it consumed; call
// again with the rest until the event is `.needMoreData`. Ranges in events are offsets into that
// call's input. Tell the parser the method of each request, in order, with
// `expectResponse(to:)`, before its response can be parsed; relaxations for that one response
// (`ResponseParsingOptions`) come with it.

/// One thing the parser found in the input.
public enum ResponseEvent: Sendable, Hashable {
    /// Nothing more can be done with these bytes; read more from the connection.
    case needMoreData
    /// An interim 1xx response (100 Continue, 103 Early Hints, …). The final response is still to come.
    case interim(ResponseHead)
    /// The head of a final response. Body events and then `.end` follow.
    case head(ResponseHead)
    /// Body bytes at these offsets of the input (transfer coding already removed).
    case body(Range<Int>)
    /// The response is complete.
    case end(MessageEnd)
    /// A 101 response to a request that offered an upgrade, or a 2xx answer to CONNECT: the bytes
    /// after `consumed` belong to the new protocol. The parser parses nothing more.
    case upgraded(ResponseHead)
}

/// How a response ended.
public struct MessageEnd: Sendable, Hashable {
    /// The trailer fields of a chunked body (offsets into this call's input), or empty.
    public var trailers: HeaderFields
    /// Whether the body ended because the connection closed (no Content-Length, not chunked).
    /// Such a body cannot be told apart from a truncated one at this layer; over TLS, the caller
    /// should accept it only after a `close_notify`.
    public var closeDelimited: Bool
    /// Whether the connection can carry the next response.
    public var keepAlive: Bool

    /// Creates an end marker.
    public init(trailers: HeaderFields = HeaderFields(), closeDelimited: Bool, keepAlive: Bool) {
        self.trailers = trailers
        self.closeDelimited = closeDelimited
        self.keepAlive = keepAlive
    }
}

/// An event and the number of input bytes it consumed.
public struct ParseStep: Sendable, Hashable {
    /// What was found.
    public var event: ResponseEvent
    /// How many bytes from the start of the input are consumed; never more than the input held.
    public var consumed: Int
}

/// An incremental, strict HTTP/1.1 response parser for one connection.
///
/// - Warning: The parser rejects, rather than repairs, every framing ambiguity that lets two
///   parsers disagree about where a response ends (see ``WireError/Rule``). It never allocates per
///   header or per body byte: fields are offsets, body bytes are ranges of the caller's buffer.
public struct ResponseParser: Sendable {
    private enum State: Sendable {
        /// Scanning a response head. Exits: interim (stay), final head to `body`/`pendingEnd`,
        /// upgrade to `upgraded`.
        case awaitingHead(FieldSectionScanner)
        /// A head without body was returned; the next call returns its end. Exit: after `.end`.
        case pendingEnd(keepAlive: Bool)
        /// Inside a Content-Length body. Exit: `.end` when `remaining` reaches 0.
        case fixedBody(remaining: Int, keepAlive: Bool)
        /// Inside a chunked body. Exit: `trailers` after the last chunk.
        case chunkedBody(ChunkedDecoder, keepAlive: Bool)
        /// Scanning the trailer section. Exit: `.end`.
        case trailers(FieldSectionScanner, keepAlive: Bool)
        /// Inside a body that ends when the connection closes. Exit: `finish()`.
        case closeDelimitedBody
        /// The server said it closes the connection after the last response: no more responses.
        case drained
        /// The connection switched protocols; the parser is inert.
        case upgraded
        /// `finish()` was called.
        case closed
        /// Terminal: every call rethrows this error.
        case failed(WireError)
    }

    private var state: State = .awaitingHead(FieldSectionScanner(kind: .header))
    private var expected = ExpectationQueue()
    /// The relaxations of the response being read (set when its head completes).
    private var current = ResponseParsingOptions.strict
    /// Reused field storage: no allocation per head once it has grown (unless the caller keeps
    /// the previous head alive, in which case copy-on-write keeps both correct).
    private var fields: [FieldRange] = []
    private var interimCount = 0
    /// Bytes consumed since the start of the stream, for error offsets.
    private var streamOffset = 0
    /// The limits in force.
    public let limits: ParserLimits

    /// Creates a parser for a new connection.
    /// - Parameter limits: bounds on what the server controls; ``ParserLimits/default`` by default.
    public init(limits: ParserLimits = .default) {
        self.limits = limits
        fields.reserveCapacity(16)
    }

    /// Records that a request with `method` was sent; its response is expected after those of the
    /// requests recorded before it.
    /// - Parameters:
    ///   - method: the request's method (HEAD and CONNECT change how the response is framed).
    ///   - offeringUpgrade: whether the request carried an `Upgrade` field. Only then is a
    ///     `101 Switching Protocols` answer accepted (as ``ResponseEvent/upgraded(_:)``); otherwise
    ///     it is ``WireError/Rule/unsolicitedUpgrade`` (RFC 9110 §7.8). Ignored for HEAD and CONNECT.
    ///   - options: relaxations for this response only; ``ResponseParsingOptions/strict`` by default.
    public mutating func expectResponse(
        to method: RequestMethod, offeringUpgrade: Bool = false, options: ResponseParsingOptions = .strict
    ) {
        let kind = method.responseKind
        expected.append(Expectation(kind: offeringUpgrade && kind == .normal ? .upgradable : kind, options: options))
    }

    /// The number of requests whose final response has not started yet.
    public var outstandingResponses: Int { expected.count }

    /// Whether the parser is between responses with nothing buffered: a connection in this state
    /// can be reused (if the last response allowed keep-alive).
    public var isIdle: Bool {
        if case .awaitingHead(let scanner) = state { return !scanner.hasPartialInput }
        return false
    }

    /// Bytes consumed since the start of the stream.
    public var bytesConsumed: Int { streamOffset }

    /// Parses the next event from `input`, the bytes not yet consumed.
    /// - Returns: the event and how many bytes of `input` it consumed.
    /// - Throws: ``WireError`` when the bytes break a rule; the parser then stays failed.
    public mutating func parse(_ input: UnsafeRawBufferPointer) throws(WireError) -> ParseStep {
        if case .failed(let error) = state { throw error }
        do {
            let step = try step(input)
            streamOffset += step.consumed
            return step
        } catch {
            let located = error.shifted(by: streamOffset)
            state = .failed(located)
            throw located
        }
    }

    /// Reports that the peer closed the connection (end of stream).
    /// - Returns: `.end` when a close-delimited body ends here, otherwise `nil`.
    /// - Throws: ``WireError/Rule/truncatedHead``, ``WireError/Rule/truncatedBody`` or
    ///   ``WireError/Rule/closedBeforeResponse`` when a response was cut short or never came.
    public mutating func finish() throws(WireError) -> ResponseEvent? {
        let previous = state
        state = .closed
        switch previous {
        case .failed(let error):
            state = .failed(error)
            throw error
        case .closeDelimitedBody:
            return .end(MessageEnd(closeDelimited: true, keepAlive: false))
        case .awaitingHead(let scanner):
            if scanner.hasPartialInput {
                throw fail(WireError(.truncatedHead, "connection closed inside a response head", offset: streamOffset))
            }
            if expected.count > 0 {
                throw fail(WireError(.closedBeforeResponse, "connection closed before the response to \(expected.count) request(s)"))
            }
            return nil
        case .drained:
            if expected.count > 0 {
                throw fail(WireError(.closedBeforeResponse, "connection closed before the response to \(expected.count) request(s)"))
            }
            return nil
        case .pendingEnd(let keepAlive):
            return .end(MessageEnd(closeDelimited: false, keepAlive: keepAlive))
        case .fixedBody(let remaining, _):
            throw fail(WireError(.truncatedBody, "connection closed with \(remaining) body bytes missing", offset: streamOffset))
        case .chunkedBody, .trailers:
            throw fail(WireError(.truncatedBody, "connection closed inside a chunked body", offset: streamOffset))
        case .upgraded, .closed:
            state = previous
            return nil
        }
    }

    private mutating func fail(_ error: WireError) -> WireError {
        state = .failed(error)
        return error
    }

    // MARK: One step

    private mutating func step(_ input: UnsafeRawBufferPointer) throws(WireError) -> ParseStep {
        guard let p = input.baseAddress, input.count > 0 else {
            if case .pendingEnd = state { return try stepPendingEnd() }
            return ParseStep(event: .needMoreData, consumed: 0)
        }
        let end = input.count
        switch state {
        case .awaitingHead(var scanner):
            guard expected.count > 0 else {
                throw WireError(.unsolicitedData, "\(end) byte(s) received when no response was expected", offset: 0)
            }
            // `removeLast(_:)` keeps capacity and, unlike `removeAll(keepingCapacity:)`, is not
            // the generic replaceSubrange (measured under callgrind).
            if !scanner.hasPartialInput { fields.removeLast(fields.count) }
            if expected.first.options.allowsHTTP09 {
                // Decided on the first five bytes alone, however they arrive (split invariance):
                // a matching prefix shorter than five waits without scanning.
                switch HTTP09.differs(p, count: end) {
                case true?: return http09Head()
                case nil: return ParseStep(event: .needMoreData, consumed: 0)
                case false?: break
                }
            }
            // On a throw, parse() moves to `.failed`, so the scanner need not be stored back.
            let length = try scanner.scan(p, end: end, fields: &fields, limits: limits)
            guard let length, let statusLine = scanner.statusLine else {
                state = .awaitingHead(scanner)
                return ParseStep(event: .needMoreData, consumed: 0)
            }
            return try headComplete(p, length: length, statusLine: statusLine)

        case .pendingEnd:
            return try stepPendingEnd()

        case .fixedBody(let remaining, let keepAlive):
            let count = min(remaining, end)
            if count == remaining {
                state = .pendingEnd(keepAlive: keepAlive)
            } else {
                state = .fixedBody(remaining: remaining - count, keepAlive: keepAlive)
            }
            return ParseStep(event: .body(0..<count), consumed: count)

        case .chunkedBody(var decoder, let keepAlive):
            if current.keepsChunkedFraming { return try stepRawChunked(decoder, p, end: end, keepAlive: keepAlive) }
            switch try decoder.decode(p, from: 0, end: end, limits: limits) {
            case .data(let range):
                state = .chunkedBody(decoder, keepAlive: keepAlive)
                return ParseStep(event: .body(range), consumed: range.upperBound)
            case .needMore(let consumed):
                state = .chunkedBody(decoder, keepAlive: keepAlive)
                return ParseStep(event: .needMoreData, consumed: consumed)
            case .lastChunk(let consumed):
                state = .trailers(FieldSectionScanner(kind: .trailer), keepAlive: keepAlive)
                fields.removeLast(fields.count)
                if consumed == end { return ParseStep(event: .needMoreData, consumed: consumed) }
                return try stepTrailers(p, base: consumed, end: end)
            }

        case .trailers:
            if current.keepsChunkedFraming { return try stepRawTrailers(p, end: end) }
            return try stepTrailers(p, base: 0, end: end)

        case .closeDelimitedBody:
            return ParseStep(event: .body(0..<end), consumed: end)

        case .drained:
            throw WireError(.unsolicitedData, "\(end) byte(s) received after a response that closes the connection", offset: 0)

        case .upgraded, .closed:
            return ParseStep(event: .needMoreData, consumed: 0)

        case .failed(let error):
            throw error
        }
    }

    private mutating func stepPendingEnd() throws(WireError) -> ParseStep {
        guard case .pendingEnd(let keepAlive) = state else { preconditionFailure("stepPendingEnd in \(state)") }
        state = keepAlive ? .awaitingHead(FieldSectionScanner(kind: .header)) : .drained
        return ParseStep(event: .end(MessageEnd(closeDelimited: false, keepAlive: keepAlive)), consumed: 0)
    }

    /// Scans the trailer section starting at `p[base]`; offsets in the section are relative to `base`.
    private mutating func stepTrailers(_ p: UnsafeRawPointer, base: Int, end: Int) throws(WireError) -> ParseStep {
        guard case .trailers(var scanner, let keepAlive) = state else { preconditionFailure("stepTrailers in \(state)") }
        let length: Int?
        do {
            length = try scanner.scan(p + base, end: end - base, fields: &fields, limits: limits)
        } catch {
            throw error.shifted(by: base)
        }
        guard let length else {
            state = .trailers(scanner, keepAlive: keepAlive)
            return ParseStep(event: .needMoreData, consumed: base)
        }
        let trailers = base == 0 ? fields : fields.map { $0.shifted(by: base) }
        state = keepAlive ? .awaitingHead(FieldSectionScanner(kind: .header)) : .drained
        let ending = MessageEnd(trailers: HeaderFields(trailers), closeDelimited: false, keepAlive: keepAlive)
        return ParseStep(event: .end(ending), consumed: base + length)
    }

    /// An HTTP/0.9 answer (``ResponseParsingOptions/allowsHTTP09``): a head without a status
    /// line, then every byte of the stream as body. Nothing is consumed: the bytes are the body.
    private mutating func http09Head() -> ParseStep {
        interimCount = 0
        current = expected.first.options
        expected.removeFirst()
        state = .closeDelimitedBody
        return ParseStep(event: .head(HTTP09.head), consumed: 0)
    }

    /// A chunked body read with ``ResponseParsingOptions/keepsChunkedFraming``: every byte the
    /// decoder consumed (size lines and CRLFs with the data) is body; the trailers follow raw.
    private mutating func stepRawChunked(
        _ decoder: ChunkedDecoder, _ p: UnsafeRawPointer, end: Int, keepAlive: Bool
    ) throws(WireError) -> ParseStep {
        var decoder = decoder
        let consumed: Int
        switch try decoder.decode(p, from: 0, end: end, limits: limits) {
        case .data(let range):
            consumed = range.upperBound
            state = .chunkedBody(decoder, keepAlive: keepAlive)
        case .needMore(let count):
            consumed = count
            state = .chunkedBody(decoder, keepAlive: keepAlive)
        case .lastChunk(let count):
            consumed = count
            state = .trailers(FieldSectionScanner(kind: .trailer), keepAlive: keepAlive)
            fields.removeLast(fields.count)
        }
        if consumed == 0 { return ParseStep(event: .needMoreData, consumed: 0) }
        return ParseStep(event: .body(0..<consumed), consumed: consumed)
    }

    /// The trailer section of a raw chunked body: checked as ever, then handed over whole as
    /// body (an incomplete section is not consumed, as the scanner resumes from its start).
    private mutating func stepRawTrailers(_ p: UnsafeRawPointer, end: Int) throws(WireError) -> ParseStep {
        guard case .trailers(var scanner, let keepAlive) = state else { preconditionFailure("stepRawTrailers in \(state)") }
        guard let length = try scanner.scan(p, end: end, fields: &fields, limits: limits) else {
            state = .trailers(scanner, keepAlive: keepAlive)
            return ParseStep(event: .needMoreData, consumed: 0)
        }
        state = .pendingEnd(keepAlive: keepAlive)
        return ParseStep(event: .body(0..<length), consumed: length)
    }

    /// Turns a complete head into an event and the next state.
    private mutating func headComplete(_ p: UnsafeRawPointer, length: Int, statusLine: StatusLine) throws(WireError) -> ParseStep {
        let request = expected.first
        let framing = try Framing.interpret(p, fields: fields, status: statusLine, request: request.kind, options: request.options)
        let head = ResponseHead(
            version: statusLine.version, status: statusLine.status, reason: statusLine.reason,
            fields: HeaderFields(fields), framing: framing.body, keepAlive: framing.keepAlive
        )
        if statusLine.status < 200 && statusLine.status != 101 {
            interimCount += 1
            guard interimCount <= limits.maxInterimResponses else {
                throw WireError(.tooManyInterimResponses, "more than \(limits.maxInterimResponses) interim responses", offset: 0)
            }
            state = .awaitingHead(FieldSectionScanner(kind: .header))
            return ParseStep(event: .interim(head), consumed: length)
        }
        interimCount = 0
        current = request.options
        expected.removeFirst()
        switch framing.body {
        case .tunnel:
            state = .upgraded
            return ParseStep(event: .upgraded(head), consumed: length)
        case .none:
            state = .pendingEnd(keepAlive: framing.keepAlive)
        case .contentLength(let count):
            state = .fixedBody(remaining: count, keepAlive: framing.keepAlive)
        case .chunked:
            state = .chunkedBody(ChunkedDecoder(), keepAlive: framing.keepAlive)
        case .untilClose:
            state = .closeDelimitedBody
        }
        return ParseStep(event: .head(head), consumed: length)
    }
}

/// A FIFO of outstanding requests' expectations that does not allocate in steady state.
struct ExpectationQueue: Sendable {
    private var items: [Expectation] = []
    private var head = 0

    var count: Int { items.count - head }
    var first: Expectation { items[head] }

    mutating func append(_ kind: Expectation) {
        if head > 0 && head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        items.append(kind)
    }

    mutating func removeFirst() {
        head += 1
        if head == items.count {
            // The common case (one request at a time) pops the only element: cheaper than
            // `removeAll(keepingCapacity:)`, measured under callgrind.
            if head == 1 { items.removeLast() } else { items.removeAll(keepingCapacity: true) }
            head = 0
        }
    }
}
