// One HTTP/1.1 connection: socket ⇄ (TLS) ⇄ Wire codec, one exchange at a time, on one loop.
//
// The driver of `HTTP1ConnectionStateMachine`: it moves bytes (socket reads and writes, the TLS
// engine, the request body file) and carries out the machine's actions; every decision — what a
// parser event means, keep-alive, the retry verdict, the timer's deadline — is the machine's.
// Writing the request is in HTTP1Connection+Writing.swift, the TLS engine's side in
// HTTP1Connection+TLS.swift.
//
// Everything here runs on `loop`; the pool reaches a connection only through loop.execute.
//
// One timer per connection, kept at the machine's `timerDeadline` (idle timeout, resource
// deadline, 100-continue delay, handshake limit) while a request runs, and at the pool's idle
// timeout while the connection waits in the pool.

import FoundationEssentials
import Wire
import EventLoop
import TLS

final class HTTP1Connection: SocketHandler {
    let id: Int
    let key: ConnectionKey
    let loop: EventLoop
    let socket: Socket
    let tls: TLSClientConnection?
    /// Weak: the loop keeps a connection alive (its socket's handler) after the Session and its
    /// pool are gone, and Session.deinit closes idle connections on their loops afterwards.
    private(set) weak var pool: ConnectionPool?
    /// The pool, held strongly while an exchange (or its TLS handshake) is on the connection, so
    /// the release or close that ends it reaches the pool's machine and observer even when
    /// nothing else holds the pool (a released Session's busy connection: its counts stayed
    /// "leased 1"). Cleared when the connection goes back to the pool or closes: an idle
    /// connection never keeps its pool alive.
    var busyPool: ConnectionPool?
    /// How long the connection may wait in the pool for its next request.
    private let idleTimeout: Duration
    /// The driver's record of one exchange, kept in the machine's states that have one.
    struct Run {
        let exchange: Exchange
        /// Built when the request starts (`nil` during the TLS handshake before it).
        var summary: TransportSummary?
    }
    typealias Machine = HTTP1ConnectionStateMachine<Run>
    var machine: Machine
    /// The exchange being handshaken for or run; `nil` while idle or closed.
    var exchange: Exchange? { machine.run?.exchange }
    /// The running exchange's summary; `nil` while none runs.
    var summary: TransportSummary? { machine.run?.summary }

    /// How large the receive buffer may grow while a bulk body arrives (it starts at 16 KiB).
    static let maxReceiveBuffer = 256 * 1024

    // Reading
    var inbound = ReceiveBuffer(capacity: 16 * 1024)
    /// The socket and TLS engine's byte movements (SocketPump.swift).
    var pump: SocketPump
    // Writing
    var headBytes: [UInt8] = []
    var body = OutgoingBody()
    private var timer: TimerID?
    /// Where `timer` is armed.
    private var timerAt: Deadline = .distantFuture
    /// The connection's endpoints, read once at setup (not per request: getsockname and
    /// inet_ntop each time cost two syscalls and several allocations per exchange).
    private let endpoints: (local: String?, localPort: Int?, remote: String, remotePort: Int)

    /// - Parameter connectDeadline: Through a proxy, when the connect limit, which began at the
    ///   proxy's TCP connect, ends (the TLS handshake must be over by then too); `nil` otherwise.
    init(id: Int, key: ConnectionKey, socket: Socket, tls: TLSClientConnection?, pool: ConnectionPool, idleTimeout: Duration, connectDeadline: Deadline? = nil) {
        self.id = id
        self.key = key
        self.loop = socket.loop
        self.socket = socket
        self.tls = tls
        self.pool = pool
        self.idleTimeout = idleTimeout
        self.machine = Machine(tls: tls != nil, connectDeadline: connectDeadline)
        let local = socket.localAddress
        self.endpoints = (local?.ipAddress, local?.port, socket.remoteAddress.ipAddress, socket.remoteAddress.port)
        self.pump = SocketPump(socket: socket, tls: tls)
        socket.handler = self
        socket.setReadInterest(true)
    }

    // MARK: Starting

    /// Starts the TLS handshake, then `exchange`.
    ///
    /// The handshake must finish within the connect timeout, the request's idle timeout (a
    /// server that accepts and never answers the ClientHello must not hold the request forever:
    /// HTTPSRobustnessTests.stalledHandshake) and its resource deadline, whichever comes first.
    func startHandshake(_ exchange: Exchange) {
        let now = Deadline.now()
        var limit = exchange.request.deadline
        if let idle = exchange.request.idleTimeout { limit = min(limit, now + idle) }
        if let connect = exchange.request.connectTimeout { limit = min(limit, now + connect) }
        machine.handshakeStarted(Run(exchange: exchange), deadline: limit)
        busyPool = pool
        exchange.timings.secureConnectionStart = Date()
        syncTimer()
        driveHandshake()
    }

    /// Runs `exchange` on this connection. `reused` when the connection served an earlier one.
    func start(_ exchange: Exchange, reused: Bool) {
        guard machine.isIdle else {
            // Closed after the pool handed us out: nothing was sent, so this is no retry.
            return resubmit(exchange)
        }
        if reused && socket.probeIdle() != .idle {
            // Detected before reuse: the server closed it (or sent stray bytes) while idle.
            close()
            return resubmit(exchange)
        }
        busyPool = pool  // the caller (the pool, or its queued start) holds it until here
        guard exchange.enter(.running(LoopBound(self, loop: loop))) else {
            exchange.complete(.failure(TransportError(.cancelled, "cancelled"), nil))
            return returnToPool()
        }
        headBytes.removeAll(keepingCapacity: true)
        do throws(WireError) {
            try RequestSerializer.serialize(exchange.request.head, into: &headBytes)
        } catch {
            exchange.complete(.failure(TransportError(.invalidRequest, "the request cannot be sent: \(error)", underlying: error), nil))
            return returnToPool()
        }
        watchBodySource(exchange.request.body)
        do throws(SocketError) {
            body = try OutgoingBody(exchange.request.body)
        } catch {
            exchange.complete(.failure(TransportError(.requestBodyUnreadable, "the request body file cannot be read: \(error)", underlying: error), nil))
            return returnToPool()
        }
        var summary = TransportSummary(
            timings: exchange.timings, isReusedConnection: reused,
            localAddress: endpoints.local, remoteAddress: endpoints.remote,
            remotePort: endpoints.remotePort, localPort: endpoints.localPort,
            requestHeaderBytes: headBytes.count, requestBodyBytes: body.isLengthUnknown ? 0 : body.length
        )
        summary.timings.requestStart = Date()
        if let tls {
            summary.tlsVersion = tls.negotiatedVersion
            summary.tlsCipher = tls.negotiatedCipher
            summary.tlsCipherID = tls.negotiatedCipherSuiteID
        }
        let request = exchange.request
        let info = Machine.RequestInfo(
            headLength: headBytes.count, bodyLength: body.length,
            isIdempotent: request.isIdempotent, isReused: reused, attempt: exchange.attempt,
            expectsContinue: body.length > 0 && request.head.expectsContinue,
            idleTimeout: request.idleTimeout, deadline: request.deadline, offersUpgrade: request.upgrade != nil,
            responseParsing: request.responseParsing
        )
        perform(machine.requestStarted(info, run: Run(exchange: exchange, summary: summary), method: request.head.method, now: .now()))
        // Bytes that arrived with the last handshake flight (or before the request went out)
        // are already in the engine or the buffer: no socket event will announce them again.
        if machine.isActive { drainReceived() }
    }

    // MARK: SocketHandler

    func socketWritable(_ socket: Socket) {
        if machine.isHandshaking {
            if flushCiphertext() { socket.setWriteInterest(false) }
            return
        }
        guard machine.isActive else { return socket.setWriteInterest(false) }
        if tls != nil && !flushCiphertext() { return }
        // Writable again after a write blocked: the server took bytes (reported as progress by
        // the writes that follow).
        if machine.written < machine.writableLimit { writeRequest() } else { socket.setWriteInterest(false) }
    }

    func socketReadable(_ socket: Socket) {
        // An event already collected before reading was paused: leave the bytes in the kernel.
        if machine.isReadPaused { return }
        if tls == nil {
            switch pump.readPlain(into: &inbound, growingTo: Self.maxReceiveBuffer) {
            case .success(.bytes):
                perform(machine.bytesReceived(now: .now()))
                processInbound()
            case .success(.endOfStream):
                perform(machine.endOfStream(cleanTLSClose: nil))
            case .success(.wouldBlock):
                return
            case .failure(let error):
                perform(machine.connectionFailed(TransportError(.connectionLost, "read failed: \(error)", underlying: error)))
            }
            return
        }
        readTLS()
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        // Paused for back-pressure: what the peer sent before it went away is still in the
        // kernel; resuming reads it to the end (HTTP1Connection+BackPressure.swift).
        if machine.peerHungUp() { return }
        let detail = error.map { "\($0)" } ?? "hang-up"
        perform(machine.connectionFailed(TransportError(.connectionLost, "the connection was reset: \(detail)", underlying: error)))
    }

    /// Parses what is already received: plaintext the engine holds, then the buffer.
    func drainReceived() {
        if tls != nil { readPlaintext() }
        if inbound.readableCount > 0 { processInbound() }
    }

    // MARK: Parsing

    func processInbound() {
        // Called until the parser needs more bytes, even with none left: the end of a body
        // that ended exactly at the buffer's end comes from a call with empty input.
        // Stops as soon as the body's consumer paused reading (back-pressure): the rest stays in
        // the buffer until it resumes (HTTP1Connection+BackPressure.swift).
        while let exchange, machine.isActive, !machine.isReadPaused {
            let now = Deadline.now()
            var upgradeHead: TransportResponseHead?
            let step: (action: Machine.Action, consumed: Int) = inbound.withReadableBytes { raw in
                let step = machine.parse(raw, now: now)
                switch step.action {
                case .forwardHead:
                    guard let head = step.head else { preconditionFailure("forwardHead without a head") }
                    let copied = TransportResponseHead(
                        status: head.status, version: head.version, reason: head.reasonPhrase(in: raw),
                        fields: FieldBlock(head.fields, in: raw),
                        contentLength: { if case .contentLength(let n) = head.framing { n } else { nil } }()
                    )
                    machine.updateRun {
                        $0.summary?.timings.responseStart = Date()
                        $0.summary?.responseHeaderBytes = step.consumed
                    }
                    exchange.deliver(.head(copied))
                case .forwardBody(let range):
                    // Handed over borrowed, before the bytes are consumed: no copy here.
                    machine.updateRun { $0.summary?.responseBodyBytes += range.count }
                    exchange.deliverBody(UnsafeRawBufferPointer(rebasing: raw[range]))
                case .upgrade:
                    guard let head = step.head else { preconditionFailure("upgrade without a head") }
                    upgradeHead = TransportResponseHead(
                        status: head.status, version: head.version, reason: head.reasonPhrase(in: raw),
                        fields: FieldBlock(head.fields, in: raw), contentLength: nil
                    )
                case .complete(let keepAlive, var run):
                    // The run has left the machine: the trailers go into the action's copy.
                    if let trailers = step.trailers {
                        run.summary?.trailers = trailers.strings(in: raw)
                        return (.complete(keepAlive: keepAlive, run), step.consumed)
                    }
                default:
                    break
                }
                return (step.action, step.consumed)
            }
            inbound.consume(step.consumed)
            if case .upgrade(let run) = step.action, let upgradeHead {
                return handOff(run, head: upgradeHead, headBytes: step.consumed)
            }
            switch step.action {
            case .forwardHead, .forwardBody:
                continue
            case .none:
                if step.consumed == 0 { return }  // needs more bytes
            default:
                perform(step.action)
            }
        }
    }

    // MARK: Actions

    /// Carries out one action of the machine, then keeps the timer where the machine wants it.
    func perform(_ action: Machine.Action) {
        switch action {
        case .none, .forwardHead, .forwardBody:
            break
        case .write:
            writeRequest()
        case .complete(let keepAlive, let run):
            complete(run, keepAlive: keepAlive)
            return
        case .fail(let failure, let retry, let run):
            fail(run, failure, retry: retry)
            return
        case .close:
            close()
            return
        case .upgrade:
            preconditionFailure("upgrade comes only from parsing, with its head")
        }
        syncTimer()
    }

    private func complete(_ run: Run, keepAlive: Bool) {
        let exchange = run.exchange
        cancelTimer()
        var done = run.summary ?? TransportSummary(timings: exchange.timings, isReusedConnection: false)
        done.timings.responseEnd = Date()
        body = OutgoingBody()  // closes a file body now, not when the next request replaces it
        var reusable = keepAlive
        if reusable && hasLeftoverBytes() {
            // More than the response arrived (a second response, or stray bytes): the next
            // request would read them as its own. Plain TCP and TLS alike close here.
            machine.closed()
            reusable = false
        }
        // Back to the pool before the caller hears of the end, so a sequential caller's next
        // request finds this connection idle.
        if reusable { returnToPool() } else { close() }
        exchange.complete(.end(done))
    }

    private func fail(_ run: Run, _ failure: Machine.Failure, retry: Bool) {
        let exchange = run.exchange
        let error = transportError(failure)
        let holding = busyPool  // the close lets it go; a silent retry goes back to it
        close()
        // A stream body's bytes are gone once read: never sent again silently.
        if retry && !exchange.isCancelled && exchange.request.body?.isReplayable != false {
            exchange.attempt += 1
            exchange.requiresFreshConnection = true
            resubmit(exchange)
            withExtendedLifetime(holding) {}
        } else {
            var partial = run.summary
            partial?.timings.responseEnd = Date()
            exchange.complete(.failure(error, partial))
        }
    }

    private func transportError(_ failure: Machine.Failure) -> TransportError {
        switch failure {
        case .transport(let error): return error
        case .handshakeClosed: return TransportError(.tls, "the server closed the connection during the TLS handshake")
        case .malformed(let error): return TransportError(.malformedResponse, "\(error)", underlying: error)
        case .closedEarly(nil): return TransportError(.connectionLost, "the server closed the connection before responding")
        case .closedEarly(let error?): return TransportError(.connectionLost, "the server closed the connection: \(error)", underlying: error)
        case .truncatedTLS: return TransportError(.connectionLost, "TLS connection closed without close_notify: the body may be truncated")
        case .idleTimeout(let timeout): return TransportError(.timedOut, "no data from \(key.host) for \(timeout)")
        case .deadline: return TransportError(.timedOut, "the request to \(key.host) did not finish within its resource timeout")
        case .handshakeTimeout: return TransportError(.timedOut, "the TLS handshake with \(key.host) did not finish in time")
        case .unexpectedUpgrade:
            return TransportError(.malformedResponse, "unexpected protocol switch (101 or tunnel) in answer to an ordinary request")
        case .cancelled: return TransportError(.cancelled, "cancelled")
        }
    }

    /// Back in the pool, idle, with the pool's idle timeout.
    private func returnToPool() {
        guard machine.isIdle, socket.isOpen, let pool else { return close() }
        armTimer(at: .now() + idleTimeout)
        pool.release(self)
        busyPool = nil
    }

    /// Fails a running request for a reason of the driver's (the body file became unreadable).
    func failActive(_ error: TransportError, retryable: Bool) {
        perform(machine.connectionFailed(error, retryable: retryable))
    }

    /// Cancels `exchange` if it is handshaking or running here.
    func cancel(_ exchange: Exchange) {
        guard let current = self.exchange, current === exchange else { return }
        perform(machine.cancelled())
    }

    /// Closes the socket (idempotent) and tells the pool. A request still on the connection is
    /// ended by whoever closed it (`fail`, `complete`); session teardown closes idle ones only.
    func close() {
        cancelTimer()
        guard socket.isOpen, !machine.isUpgraded else { return }
        machine.closed()
        body = OutgoingBody()
        if let tls {
            _ = tls.shutdown()  // close_notify, best effort
            flushCiphertext()
        }
        socket.handler = nil
        socket.close()
        pool?.connectionClosed(self)
        busyPool = nil
    }

    /// Hands `exchange` back to the pool for another connection; fails it if the pool is gone.
    private func resubmit(_ exchange: Exchange) {
        guard let pool else {
            return exchange.complete(.failure(TransportError(.connectionLost, "the session was invalidated"), nil))
        }
        pool.execute(exchange)
    }

    // MARK: Timer

    /// Keeps the one timer at the machine's deadline (or the pool's idle timeout while idle).
    func syncTimer() {
        guard let deadline = machine.timerDeadline else {
            if !machine.isIdle { cancelTimer() }
            return
        }
        armTimer(at: deadline)
    }

    private func armTimer(at deadline: Deadline) {
        if let timer {
            if deadline == timerAt { return }
            if loop.rescheduleTimer(timer, at: deadline) {
                timerAt = deadline
                return
            }
        }
        timerAt = deadline
        timer = loop.scheduleTimer(at: deadline, timerFired)
    }

    /// The one timer callback of this connection, made once: a new closure per arming was an
    /// allocation, twice per request (the exchange's deadline, then the idle timeout).
    private lazy var timerFired: () -> Void = { [weak self] in self?.timerExpired() }

    private func timerExpired() {
        timer = nil
        timerAt = .distantFuture
        if machine.isIdle { return close() }  // the pool's idle timeout
        perform(machine.timerFired(now: .now()))
    }

    func cancelTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        timerAt = .distantFuture
    }
}

extension RequestHead {
    /// Whether the head asks for `100 Continue` before the body (RFC 9110 §10.1.1), by the
    /// serializer's flag or as a field the caller set (URLRequest headers). Compared
    /// byte by byte, without allocating: it runs for every request with a body.
    var expectsContinue: Bool {
        expectContinue || fields.contains { field in
            guard Self.equalsIgnoringASCIICase(field.name.utf8[...], "expect") else { return false }
            var value = field.value.utf8[...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            return Self.equalsIgnoringASCIICase(value, "100-continue")
        }
    }

    private static func equalsIgnoringASCIICase(_ text: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard text.count == expected.count else { return false }
        return zip(text, expected).allSatisfy { byte, wanted in
            (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == wanted
        }
    }
}
