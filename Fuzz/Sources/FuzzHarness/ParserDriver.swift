// Feeds a stream to a fresh `ResponseParser` the way a connection driver does and records what it
// reports, checking the per-call contract on every step:
//
// - only `WireError` escapes (typed throws make this a compile-time fact; the `catch` below has no
//   other case to handle), and a failed parser rethrows the same error from `parse` and `finish`;
// - `consumed` is within the input and `bytesConsumed` is the running total;
// - every range in an event lies inside the bytes that call consumed;
// - no limit is exceeded silently: heads and trailers fit their limits, interim runs are bounded;
// - the parser makes progress: a run of events that consume nothing is short;
// - `outstandingResponses` counts the requests whose final head has not come, and `isIdle` holds
//   after a keep-alive response ends and never inside a response;
// - the `HeaderFields` accessors agree with the ranges they read;
// - after an upgrade the parser is inert.
//
// Each call's input ends where its allocation ends (a copy of exactly its size, or the tail of an
// exact copy of the whole stream), so a read past the bytes the parser was given is an
// AddressSanitizer report even when more of the stream follows (the idea of picohttpparser's
// guard-page tests).

import Wire

struct ParserDriver {
    let stream: [UInt8]
    let methods: [RequestMethod]
    let limits: ParserLimits
    /// Whether to check the `HeaderFields` accessors on every head (once per stream is enough:
    /// they read ranges, which split invariance already compares).
    var checksAccessors = false

    /// Parses `stream` delivered in pieces of the given lengths (which sum to `stream.count`), then
    /// reports the end of the stream.
    func run(pieces: [Int]) -> Transcript {
        let whole = UnsafeMutableRawBufferPointer.allocate(byteCount: stream.count, alignment: 1)
        defer { whole.deallocate() }
        stream.withUnsafeBytes { whole.copyMemory(from: $0) }
        return run(pieces: pieces, whole: UnsafeRawBufferPointer(whole))
    }

    private func run(pieces: [Int], whole: UnsafeRawBufferPointer) -> Transcript {
        var parser = ResponseParser(limits: limits)
        for method in methods { parser.expectResponse(to: method, offeringUpgrade: method == .options) }
        var transcript = Transcript()
        var received = 0
        var consumed = 0
        var interimRun = 0
        var answered = 0

        for piece in pieces {
            received += piece
            var idleSteps = 0
            while true {
                let step: ParseStep
                do {
                    step = try withWindow(consumed..<received, of: whole) { window throws(WireError) in
                        let step = try parser.parse(window)
                        check(step, in: window, interimRun: &interimRun)
                        if case .body(let range) = step.event {
                            transcript.append(.body(Array(window[range])), span: consumed..<(consumed + step.consumed))
                        } else if let event = copy(step.event, window) {
                            transcript.append(event, span: consumed..<(consumed + step.consumed))
                        }
                        return step
                    }
                } catch {
                    return failed(error, &parser, &transcript, received: received, at: consumed, of: whole)
                }
                consumed += step.consumed
                require(parser.bytesConsumed == consumed, "bytesConsumed \(parser.bytesConsumed), expected \(consumed)")
                switch step.event {
                case .head, .upgraded: answered += 1
                default: break
                }
                checkConnectionState(after: step.event, parser, answered: answered)
                if case .upgraded = step.event {
                    return upgraded(&parser, &transcript, at: consumed, of: whole)
                }
                if step.event == .needMoreData { break }
                idleSteps = step.consumed == 0 ? idleSteps + 1 : 0
                require(idleSteps <= 2, "\(idleSteps) events in a row consumed nothing:\n\(transcript.listing)")
            }
        }
        require(received == stream.count, "pieces cover \(received) of \(stream.count) bytes")
        do {
            switch try parser.finish() {
            case nil:
                break
            case .end(let end)?:
                require(end.trailers.isEmpty, "finish() returned trailers")
                transcript.append(.end(trailers: [], closeDelimited: end.closeDelimited, keepAlive: end.keepAlive), span: consumed..<consumed)
            case let other?:
                violation("finish() returned \(other)")
            }
        } catch {
            return failed(error, &parser, &transcript, received: received, at: consumed, of: whole)
        }
        return transcript
    }

    /// Calls `body` with `whole[range]` in memory that ends where the range ends.
    private func withWindow<R>(
        _ range: Range<Int>, of whole: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(WireError) -> R
    ) throws(WireError) -> R {
        if range.isEmpty { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        if range.upperBound == whole.count { return try body(UnsafeRawBufferPointer(rebasing: whole[range])) }
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: range.count, alignment: 1)
        defer { window.deallocate() }
        window.copyMemory(from: UnsafeRawBufferPointer(rebasing: whole[range]))
        return try body(UnsafeRawBufferPointer(window))
    }

    // MARK: Endings

    private func failed(
        _ error: WireError, _ parser: inout ResponseParser, _ transcript: inout Transcript, received: Int, at consumed: Int,
        of whole: UnsafeRawBufferPointer
    ) -> Transcript {
        require(error.description.hasPrefix(error.rule.rawValue), "description \(error.description.debugDescription)")
        if let offset = error.offset {
            require(offset >= 0 && offset <= received, "\(error) points outside the \(received) bytes received")
        }
        // A failed parser stays failed, with the same error.
        let again = Result { () throws(WireError) in try withWindow(consumed..<received, of: whole) { window throws(WireError) in try parser.parse(window) } }
        require(again == .failure(error), "parse after \(error) gave \(again)")
        let finished = Result { () throws(WireError) in try parser.finish() }
        require(finished == .failure(error), "finish after \(error) gave \(finished)")
        transcript.append(.failed(error.rule, offset: error.offset), span: consumed..<consumed)
        return transcript
    }

    private func upgraded(_ parser: inout ResponseParser, _ transcript: inout Transcript, at consumed: Int, of whole: UnsafeRawBufferPointer) -> Transcript {
        let index = transcript.events.count - 1
        guard case .upgraded(let head, _) = transcript.events[index] else { violation("no upgrade event recorded") }
        transcript.events[index] = .upgraded(head, rest: Array(stream[consumed...]))
        // Inert: nothing more is parsed, whatever follows.
        let next = Result { () throws(WireError) in try withWindow(consumed..<stream.count, of: whole) { window throws(WireError) in try parser.parse(window) } }
        let inert = (try? next.get()).map { $0.event == .needMoreData && $0.consumed == 0 } ?? false
        require(inert, "parse after an upgrade gave \(next)")
        return transcript
    }

    // MARK: Per-step contract

    private func checkConnectionState(after event: ResponseEvent, _ parser: ResponseParser, answered: Int) {
        require(parser.outstandingResponses == methods.count - answered, "outstandingResponses \(parser.outstandingResponses) after \(answered) of \(methods.count) answered")
        switch event {
        case .head, .body, .upgraded:
            require(!parser.isIdle, "isIdle inside a response")
        case .end(let end) where end.keepAlive:
            require(parser.isIdle, "not isIdle after a keep-alive response ended")
        default:
            break
        }
    }

    private func check(_ step: ParseStep, in window: UnsafeRawBufferPointer, interimRun: inout Int) {
        require(step.consumed >= 0 && step.consumed <= window.count, "consumed \(step.consumed) of \(window.count) bytes")
        let inside = 0..<step.consumed
        switch step.event {
        case .needMoreData:
            break
        case .interim(let head):
            interimRun += 1
            require(interimRun <= limits.maxInterimResponses, "\(interimRun) interim responses, limit \(limits.maxInterimResponses)")
            require((100..<200).contains(head.status) && head.status != 101, "interim status \(head.status)")
            check(head, consumed: step.consumed)
        case .head(let head), .upgraded(let head):
            interimRun = 0
            require(head.status >= 200 || head.status == 101, "final status \(head.status)")
            check(head, consumed: step.consumed)
        case .body(let range):
            require(!range.isEmpty, "empty body range \(range)")
            require(range.lowerBound >= 0 && range.upperBound <= step.consumed, "body \(range) outside consumed \(inside)")
        case .end(let end):
            require(end.trailers.count <= limits.maxFieldCount, "\(end.trailers.count) trailer fields, limit \(limits.maxFieldCount)")
            check(end.trailers, within: inside)
        }
    }

    private func check(_ head: ResponseHead, consumed: Int) {
        require(head.version.major == 1 && (0...9).contains(head.version.minor), "version \(head.version)")
        require((100...999).contains(head.status), "status \(head.status)")
        require(consumed <= limits.maxHeaderSectionSize, "head of \(consumed) bytes, limit \(limits.maxHeaderSectionSize)")
        require(head.fields.count <= limits.maxFieldCount, "\(head.fields.count) fields, limit \(limits.maxFieldCount)")
        // The reason phrase ends where the status line's CRLF starts.
        require(head.reason.upperBound + 2 <= limits.maxStatusLineLength, "status line of \(head.reason.upperBound + 2) bytes, limit \(limits.maxStatusLineLength)")
        require(head.reason.lowerBound >= 0 && head.reason.upperBound <= consumed, "reason \(head.reason) outside the head")
        check(head.fields, within: 0..<consumed)
    }

    private func check(_ fields: HeaderFields, within bounds: Range<Int>) {
        for field in fields {
            require(!field.name.isEmpty, "empty field name at \(field.name)")
            for range in [field.name, field.value] {
                require(range.lowerBound >= bounds.lowerBound && range.upperBound <= bounds.upperBound, "field range \(range) outside \(bounds)")
            }
        }
    }

    private func copy(_ event: ResponseEvent, _ window: UnsafeRawBufferPointer) -> Event? {
        switch event {
        case .needMoreData, .body: return nil
        case .interim(let head): return .interim(copy(head, window))
        case .head(let head): return .head(copy(head, window))
        case .upgraded(let head): return .upgraded(copy(head, window), rest: [])
        case .end(let end): return .end(trailers: copy(end.trailers, window), closeDelimited: end.closeDelimited, keepAlive: end.keepAlive)
        }
    }

    private func copy(_ head: ResponseHead, _ window: UnsafeRawBufferPointer) -> CopiedHead {
        CopiedHead(
            version: head.version, status: head.status, reason: Array(window[head.reason]),
            fields: copy(head.fields, window), framing: head.framing, keepAlive: head.keepAlive
        )
    }

    private func copy(_ fields: HeaderFields, _ window: UnsafeRawBufferPointer) -> [CopiedField] {
        let copied = fields.indices.map { index in
            CopiedField(name: Array(window[fields[index].name]), value: fields.valueBytes(at: index, in: window), isFolded: fields[index].isFolded)
        }
        if checksAccessors { checkAccessors(fields, copied, window) }
        return copied
    }

    /// The string accessors and lookups read what the ranges say.
    private func checkAccessors(_ fields: HeaderFields, _ copied: [CopiedField], _ window: UnsafeRawBufferPointer) {
        var sameName: [String: [Int]] = [:]  // lowercased name: indices, in order
        for (index, field) in copied.enumerated() { sameName[ReferenceSection.lowercased(field.name), default: []].append(index) }
        for (index, field) in copied.enumerated() {
            let name = fields.name(at: index, in: window)
            require(name == String(decoding: field.name, as: UTF8.self), "name(at: \(index)) is \(name.debugDescription)")
            require(fields.value(at: index, in: window) == String(decoding: field.value, as: UTF8.self), "value(at: \(index)) differs from valueBytes")
            let group = sameName[ReferenceSection.lowercased(field.name)] ?? []
            guard group.first == index else { continue }  // one lookup per distinct name
            require(fields.firstIndex(named: name, in: window) == index, "firstIndex(named: \(name.debugDescription))")
            require(fields.values(named: name, in: window) == group.map { String(decoding: copied[$0].value, as: UTF8.self) }, "values(named: \(name.debugDescription))")
        }
        require(fields.strings(in: window).count == copied.count, "strings(in:) count")
    }
}
