// One HTTP/1.1 connection: socket ⇄ (TLS) ⇄ Wire codec, one exchange at a time, on one loop.
//
// States and exits:
//   handshaking(exchange) ──TLS complete──▶ active(exchange)        ──failure──▶ closed
//   idle ──start──▶ active ──response end, keep-alive──▶ idle (back in the pool)
//                         └──end without keep-alive / any failure──▶ closed
//   idle ──server closed, idle timeout, stray bytes──▶ closed
//
// Everything here runs on `loop`; the pool reaches a connection only through loop.execute.
// Writing the request is in HTTP1Connection+Writing.swift.
// Failures before any response byte on a reused connection go back to the pool for one silent
// retry on a fresh connection when that is safe (Go's shouldRetryRequest): the request is
// idempotent, or nothing of it was written.

import FoundationEssentials
import Wire
import EventLoop
import TLS

final class HTTP1Connection: SocketHandler {
    enum State {
        case handshaking(Exchange)
        case idle
        case active(Exchange)
        case closed
    }

    let id: Int
    let key: ConnectionKey
    let loop: EventLoop
    let socket: Socket
    let tls: TLSClientConnection?
    /// Weak: the loop keeps a connection alive (its socket's handler) after the Session and its
    /// pool are gone, and Session.deinit closes idle connections on their loops afterwards.
    private weak var pool: ConnectionPool?
    private let idleTimeout: Duration
    var state: State

    /// How large the receive buffer may grow while a bulk body arrives (it starts at 16 KiB).
    static let maxReceiveBuffer = 256 * 1024

    // Reading
    private var parser = ResponseParser()
    private var inbound = ReceiveBuffer(capacity: 16 * 1024)
    private var cipherScratch: [UInt8] = []
    private var cipherPending: [UInt8] = []
    // Writing
    var headBytes: [UInt8] = []
    var body = OutgoingBody()
    /// Head and body bytes handed to the socket (or TLS) for the active exchange.
    var written = 0
    var cipherOut: [UInt8] = []
    var cipherOutOffset = 0
    // Per exchange
    private var isReused = false
    private var responseStarted = false
    var summary: TransportSummary?
    private var timer: TimerID?
    /// What `timer` was armed with, for its error message.
    private var timerTimeout: Duration = .zero
    private var exchangesServed = 0
    /// The connection's endpoints, read once at setup (not per request: getsockname and
    /// inet_ntop each time cost two syscalls and several allocations per exchange).
    private let endpoints: (local: String?, localPort: Int?, remote: String, remotePort: Int)
    /// Set when the pool retires this idle connection to give its slot to a retry.
    private(set) var keepsSlotOnClose = false

    init(id: Int, key: ConnectionKey, socket: Socket, tls: TLSClientConnection?, pool: ConnectionPool, idleTimeout: Duration) {
        self.id = id
        self.key = key
        self.loop = socket.loop
        self.socket = socket
        self.tls = tls
        self.pool = pool
        self.idleTimeout = idleTimeout
        self.state = .idle
        let local = socket.localAddress
        self.endpoints = (local?.ipAddress, local?.port, socket.remoteAddress.ipAddress, socket.remoteAddress.port)
        if tls != nil { cipherScratch = [UInt8](repeating: 0, count: 32 * 1024) }
        socket.handler = self
        socket.setReadInterest(true)
    }

    // MARK: Starting

    /// Starts the TLS handshake, then `exchange`.
    func startHandshake(_ exchange: Exchange) {
        state = .handshaking(exchange)
        exchange.timings.secureConnectionStart = Date()
        // A server that accepts and never answers the ClientHello must not hold the request
        // forever: the handshake as a whole gets the request's idle timeout (start() re-arms the
        // timer for the exchange once it completes). HTTPSRobustnessTests.stalledHandshake.
        armTimer(exchange.request.idleTimeout ?? .seconds(365 * 86400))
        driveHandshake()
    }

    /// Runs `exchange` on this connection. `reused` when the connection served an earlier one.
    func start(_ exchange: Exchange, reused: Bool) {
        guard case .idle = state else {
            // Closed after the pool handed us out: nothing was sent, so this is no retry.
            resubmit(exchange)
            return
        }
        if reused && socket.probeIdle() != .idle {
            // Detected before reuse: the server closed it (or sent stray bytes) while idle.
            close()
            resubmit(exchange)
            return
        }
        cancelTimer()
        guard exchange.enter(.running(LoopBound(self, loop: loop))) else {
            exchange.complete(.failure(TransportError(.cancelled, "cancelled"), nil))
            returnToPoolOrClose(keepAlive: true)
            return
        }
        headBytes.removeAll(keepingCapacity: true)
        do throws(WireError) {
            try RequestSerializer.serialize(exchange.request.head, into: &headBytes)
        } catch {
            exchange.complete(.failure(TransportError(.invalidRequest, "the request cannot be sent: \(error)", underlying: error), nil))
            returnToPoolOrClose(keepAlive: true)
            return
        }
        do throws(SocketError) {
            body = try OutgoingBody(exchange.request.body)
        } catch {
            exchange.complete(.failure(TransportError(.requestBodyUnreadable, "the request body file cannot be read: \(error)", underlying: error), nil))
            returnToPoolOrClose(keepAlive: true)
            return
        }
        state = .active(exchange)
        isReused = reused
        responseStarted = false
        written = 0
        exchangesServed += 1
        summary = TransportSummary(
            timings: exchange.timings, isReusedConnection: reused,
            localAddress: endpoints.local, remoteAddress: endpoints.remote,
            remotePort: endpoints.remotePort, localPort: endpoints.localPort,
            requestHeaderBytes: headBytes.count, requestBodyBytes: body.length
        )
        summary?.timings.requestStart = Date()
        if let tls {
            summary?.tlsVersion = tls.negotiatedVersion.map { "\($0)" }
            summary?.tlsCipher = tls.negotiatedCipher
        }
        parser.expectResponse(to: exchange.request.head.method)
        armTimer(exchange.request.idleTimeout ?? .seconds(365 * 86400))
        writeRequest()
    }

    // MARK: SocketHandler

    func socketWritable(_ socket: Socket) {
        switch state {
        case .handshaking:
            if flushCiphertext() { socket.setWriteInterest(false) }
        case .active:
            // Writable again after a write blocked: the server took bytes, which is progress as
            // much as bytes arriving (a long upload must not time out while it moves).
            markProgress()
            if tls != nil && !flushCiphertext() { return }
            if written < totalToWrite { writeRequest() } else { socket.setWriteInterest(false) }
        case .idle, .closed:
            socket.setWriteInterest(false)
        }
    }

    func socketReadable(_ socket: Socket) {
        if case .idle = state {
            // Bytes or EOF on an idle connection: the server closed it or misbehaves. Not reusable.
            return close()
        }
        if tls == nil {
            var outcome: Result<ReadResult, SocketError> = .success(.wouldBlock)
            _ = inbound.write(growingTo: Self.maxReceiveBuffer) { free -> Int in
                do throws(SocketError) {
                    let result = try socket.read(into: free)
                    outcome = .success(result)
                    if case .bytes(let n) = result { return n }
                } catch {
                    outcome = .failure(error)
                }
                return 0
            }
            return handleRead(outcome)
        }
        readTLS()
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        let detail = error.map { "\($0)" } ?? "hang-up"
        failConnection(TransportError(.connectionLost, "the connection was reset: \(detail)", underlying: error))
    }

    private func handleRead(_ outcome: Result<ReadResult, SocketError>) {
        switch outcome {
        case .success(.bytes):
            markProgress()
            processInbound()
        case .success(.endOfStream):
            handleEndOfStream(cleanTLSClose: nil)
        case .success(.wouldBlock):
            return
        case .failure(let error):
            failConnection(TransportError(.connectionLost, "read failed: \(error)", underlying: error))
        }
    }

    // MARK: TLS reading

    private func readTLS() {
        guard let tls else { return }
        // Ciphertext from the socket into the TLS engine (whatever it did not take stays pending).
        if cipherPending.isEmpty {
            let result: ReadResult
            do throws(SocketError) {
                let socket = self.socket
                result = try cipherScratch.withUnsafeMutableBytes { raw in
                    Result { () throws(SocketError) in try socket.read(into: raw) }
                }.get()
            } catch {
                return failConnection(TransportError(.connectionLost, "read failed: \(error)", underlying: error))
            }
            switch result {
            case .bytes(let n): cipherPending.append(contentsOf: cipherScratch[0..<n])
            case .endOfStream: tls.receiveEndOfStream()
            case .wouldBlock: return
            }
        }
        if !cipherPending.isEmpty {
            let taken = cipherPending.withUnsafeBytes { tls.receiveCiphertext($0) }
            cipherPending.removeFirst(taken)
        }
        markProgress()
        if case .handshaking = state { return driveHandshake() }
        // Plaintext out of the engine into the receive buffer.
        while true {
            var readResult: TLSReadResult = .incomplete(.read)
            _ = inbound.write { free -> Int in
                readResult = tls.read(into: free)
                if case .bytes(let n) = readResult { return n }
                return 0
            }
            switch readResult {
            case .bytes:
                processInbound()
                if case .closed = state { return }
            case .incomplete:
                flushCiphertext()
                if !cipherPending.isEmpty { socket.setReadInterest(true) }
                return
            case .closed(let clean):
                return handleEndOfStream(cleanTLSClose: clean)
            case .failed(let error):
                return failConnection(TransportError(.tls, "TLS read failed: \(error)", underlying: error))
            }
        }
    }

    private func driveHandshake() {
        guard let tls, case .handshaking(let exchange) = state else { return }
        switch tls.handshake() {
        case .complete:
            flushCiphertext()
            exchange.timings.secureConnectionEnd = Date()
            exchange.timings.connectEnd = exchange.timings.secureConnectionEnd
            state = .idle
            start(exchange, reused: false)
        case .incomplete:
            flushCiphertext()
        case .failed(let error):
            flushCiphertext()
            close()
            exchange.complete(.failure(TransportError(.tls, "TLS handshake with \(key.host) failed: \(error)", underlying: error), nil))
        }
    }

    // MARK: Parsing

    private func processInbound() {
        guard case .active(let exchange) = state else { return }
        while true {
            let outcome: Result<(TransportEvent?, consumed: Int, more: Bool), WireError> = inbound.withReadableBytes { raw in
                do throws(WireError) {
                    let step = try parser.parse(raw)
                    switch step.event {
                    case .needMoreData:
                        return .success((nil, step.consumed, false))
                    case .interim:
                        return .success((nil, step.consumed, true))
                    case .head(let head):
                        let copied = TransportResponseHead(
                            status: head.status, version: head.version, reason: head.reasonPhrase(in: raw),
                            fields: head.fields.strings(in: raw),
                            contentLength: { if case .contentLength(let n) = head.framing { n } else { nil } }()
                        )
                        return .success((.head(copied), step.consumed, true))
                    case .body(let range):
                        // Handed over borrowed, before the bytes are consumed: no copy here.
                        summary?.responseBodyBytes += range.count
                        exchange.deliverBody(UnsafeRawBufferPointer(rebasing: raw[range]))
                        return .success((nil, step.consumed, true))
                    case .end(let end):
                        summary?.trailers = end.trailers.strings(in: raw)
                        return .success((.end(summary ?? TransportSummary(timings: exchange.timings, isReusedConnection: isReused)), step.consumed, end.keepAlive))
                    case .upgraded:
                        throw WireError(.statusLine, "unexpected protocol switch (101 or tunnel) in answer to an ordinary request")
                    }
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .failure(let error):
                return failActive(TransportError(.malformedResponse, "malformed response: \(error)", underlying: error), allowRetry: false)
            case .success(let (event, consumed, more)):
                inbound.consume(consumed)
                guard let event else {
                    if more { continue }
                    return
                }
                switch event {
                case .head(let head):
                    responseStarted = true
                    summary?.timings.responseStart = Date()
                    summary?.responseHeaderBytes = consumed
                    exchange.deliver(.head(head))
                case .end:
                    return finishActive(exchange, keepAlive: more)
                case .failure:
                    return
                }
            }
        }
    }

    private func handleEndOfStream(cleanTLSClose: Bool?) {
        switch state {
        case .idle, .closed:
            close()
        case .handshaking(let exchange):
            close()
            exchange.complete(.failure(TransportError(.tls, "the server closed the connection during the TLS handshake"), nil))
        case .active(let exchange):
            do throws(WireError) {
                guard case .end? = try parser.finish() else {
                    return failActive(TransportError(.connectionLost, "the server closed the connection before responding"))
                }
                if cleanTLSClose == false {
                    // A close-delimited body must end with close_notify over TLS, or it may be truncated.
                    return failActive(TransportError(.connectionLost, "TLS connection closed without close_notify: the body may be truncated"), allowRetry: false)
                }
                finishActive(exchange, keepAlive: false)
            } catch {
                let kind: TransportError.Kind = error.rule == .closedBeforeResponse || error.rule == .truncatedBody || error.rule == .truncatedHead
                    ? .connectionLost : .malformedResponse
                failActive(TransportError(kind, "the server closed the connection: \(error)", underlying: error))
            }
        }
    }

    // MARK: Finishing

    private func finishActive(_ exchange: Exchange, keepAlive: Bool) {
        cancelTimer()
        summary?.timings.responseEnd = Date()
        let done = summary ?? TransportSummary(timings: exchange.timings, isReusedConnection: isReused)
        state = .idle
        let bodyComplete = body.isComplete
        body = OutgoingBody()  // closes a file body now, not when the next request replaces it
        // Back to the pool before the caller hears of the end, so a sequential caller's next
        // request finds this connection idle.
        returnToPoolOrClose(keepAlive: keepAlive && bodyComplete && inbound.readableCount == 0 && parser.isIdle)
        exchange.complete(.end(done))
    }

    private func returnToPoolOrClose(keepAlive: Bool) {
        state = .idle
        guard keepAlive, socket.isOpen, let pool else { return close() }
        armTimer(idleTimeout)
        pool.release(self)
    }

    /// Fails the active exchange and closes; retries once when safe.
    func failActive(_ error: TransportError, allowRetry: Bool = true) {
        guard case .active(let exchange) = state else { return failConnection(error) }
        let nothingWritten = written == 0
        let retry = allowRetry && isReused && !responseStarted && exchange.attempt == 0
            && (exchange.request.isIdempotent || nothingWritten) && !exchange.isCancelled
        close()
        if retry {
            exchange.attempt += 1
            exchange.requiresFreshConnection = true
            resubmit(exchange)
        } else {
            var partial = summary
            partial?.timings.responseEnd = Date()
            exchange.complete(.failure(error, partial))
        }
    }

    /// A connection-level failure in any state.
    func failConnection(_ error: TransportError) {
        switch state {
        case .active: failActive(error)
        case .handshaking(let exchange):
            close()
            exchange.complete(.failure(error, nil))
        case .idle, .closed: close()
        }
    }

    /// Cancels `exchange` if it is running here.
    func cancel(_ exchange: Exchange) {
        switch state {
        case .active(let current) where current === exchange, .handshaking(let current) where current === exchange:
            close()
            exchange.complete(.failure(TransportError(.cancelled, "cancelled"), summary))
        default:
            break
        }
    }

    /// Closes an idle connection whose slot the pool has already given to a new connection.
    func closeKeepingSlot() {
        keepsSlotOnClose = true
        close()
    }

    /// Closes the socket (idempotent) and tells the pool.
    func close() {
        cancelTimer()
        if case .closed = state { return }
        state = .closed
        body = OutgoingBody()
        if let tls, socket.isOpen {
            _ = tls.shutdown()  // close_notify, best effort
            flushCiphertext()
        }
        socket.handler = nil
        socket.close()
        pool?.connectionClosed(self)
    }

    /// Hands `exchange` back to the pool for another connection; fails it if the pool is gone.
    private func resubmit(_ exchange: Exchange) {
        guard let pool else {
            return exchange.complete(.failure(TransportError(.connectionLost, "the session was invalidated"), nil))
        }
        pool.execute(exchange)
    }

    // MARK: Timers

    private func armTimer(_ timeout: Duration) {
        cancelTimer()
        timerTimeout = timeout
        timer = loop.scheduleTimer(after: timeout, timerFired)
    }

    /// The one timer callback of this connection, made once: a new closure per arming was an
    /// allocation, twice per request (the exchange's deadline, then the idle timeout).
    private lazy var timerFired: () -> Void = { [weak self] in self?.timerExpired() }

    private func timerExpired() {
        timer = nil
        let timeout = timerTimeout
        switch state {
        case .active:
            failConnection(TransportError(.timedOut, "no data from \(key.host) for \(timeout)"))
        case .handshaking:
            failConnection(TransportError(.timedOut, "the TLS handshake with \(key.host) did not finish within \(timeout)"))
        case .idle:
            close()
        case .closed:
            break
        }
    }

    /// Pushes the idle deadline of an active exchange forward after bytes arrived or the socket
    /// drained bytes of the request.
    private func markProgress() {
        guard case .active(let exchange) = state, let timer else { return }
        _ = loop.rescheduleTimer(timer, at: .now() + (exchange.request.idleTimeout ?? .seconds(365 * 86400)))
    }

    private func cancelTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
    }
}
