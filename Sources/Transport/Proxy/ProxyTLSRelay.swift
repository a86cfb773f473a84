// The driver of the TLS session to an HTTPS proxy (ProxyTLSStateMachine.swift decides): the
// handshake on the socket connected to the proxy, then a relay between that session and one end
// of a Unix socket pair whose other end goes to the code that already speaks to a proxy over a
// socket: ProxyTunnel (CONNECT), then HTTP1Connection with the origin's own TLS session (TLS in
// TLS), or HTTP1Connection alone for absolute-form http:// requests.
//
// Why a socket pair rather than a layer inside SocketPump: the CONNECT driver, the HTTP/1.1
// connection (plain and TLS) and the WebSocket connection a 101 hands over all read and write a
// `Socket`; the pair keeps every one of them, and their tests, unchanged, for one extra copy per
// byte through the kernel on a path already paying for two TLS sessions.
//
// Back-pressure: bytes decrypted from the proxy wait in `towardInner` while the pair is full (the
// proxy socket's read interest is off meanwhile); ciphertext waits in `cipherOut` while the proxy
// socket is full (the pair's read interest is off meanwhile). Everything runs on the loop.

import FoundationEssentials
import EventLoop
import TLS

/// One HTTPS proxy's TLS session and its plaintext relay.
final class ProxyTLSRelay: SocketHandler {
    /// The handshake's outcome: the plaintext socket to use instead of `proxySocket`, or why not.
    typealias Completion = (Result<Socket, TransportError>) -> Void

    /// Connected to the proxy.
    let proxySocket: Socket
    let loop: EventLoop
    private let tls: TLSClientConnection
    private var machine: ProxyTLSStateMachine
    /// The relay's end of the pair, once the session is up.
    private var inner: Socket?
    private var completion: Completion?
    private var timer: TimerID?
    /// Ciphertext from the proxy the engine has not taken yet.
    private var cipherIn: [UInt8] = []
    /// Ciphertext for the proxy, from `cipherOutOffset` on.
    private var cipherOut: [UInt8] = []
    private var cipherOutOffset = 0
    /// Plaintext from the pair the engine has not taken yet.
    private var plainUp: [UInt8] = []
    /// Plaintext for the pair, from `towardInnerOffset` on.
    private var towardInner: [UInt8] = []
    private var towardInnerOffset = 0
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    /// - Parameters:
    ///   - socket: Connected to the proxy.
    ///   - tls: The session to the proxy (its name and trust settings).
    ///   - proxy: `kind://host:port`, for errors.
    ///   - deadline: When the whole connect must be done (the handshake counts against it).
    ///   - completion: Called once on the loop: with the plaintext socket, or the failure (the
    ///     proxy socket closed).
    init(socket: Socket, tls: TLSClientConnection, proxy: String, deadline: Deadline, completion: @escaping Completion) {
        self.proxySocket = socket
        self.loop = socket.loop
        self.tls = tls
        self.machine = ProxyTLSStateMachine(proxy: proxy)
        self.completion = completion
        timer = loop.scheduleTimer(at: deadline) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.perform(self.machine.handshakeAborted(ProxyError(.closed, proxy: proxy, "the TLS handshake with the proxy \(proxy) timed out")), timedOut: true)
        }
    }

    /// Starts the handshake (sends the ClientHello).
    func start() {
        guard completion != nil else { return }
        proxySocket.handler = self
        perform(machine.handshakeProgressed(tls.handshake()))
    }

    /// Stops the handshake: the completion gets `.cancelled`, unless it already ran.
    func cancel() {
        perform(machine.handshakeAborted(ProxyError(.closed, proxy: machine.proxy, "cancelled during the TLS handshake with the proxy")), cancelled: true)
    }

    // MARK: SocketHandler

    func socketReadable(_ socket: Socket) {
        if socket === proxySocket { readFromProxy() } else { readFromInner() }
    }

    func socketWritable(_ socket: Socket) {
        if socket === proxySocket {
            guard flushCipher() else { return }
            if !plainUp.isEmpty { encryptPending() }
            if machine.isRelaying, plainUp.isEmpty, cipherOutOffset == cipherOut.count { inner?.setReadInterest(true) }
        } else {
            guard flushTowardInner() else { return }
            decryptAvailable()
        }
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        if socket === proxySocket {
            // Whatever is still readable comes first; then the engine learns of the end.
            while proxySocket.isOpen, readFromProxy() {}
            if proxySocket.isOpen, !machine.isDraining {
                tls.receiveEndOfStream()
                decryptOrHandshake()
            }
        } else {
            perform(machine.relayEnded())
        }
    }

    // MARK: From the proxy

    /// Reads once from the proxy and processes it; true when bytes came (more may follow).
    @discardableResult
    private func readFromProxy() -> Bool {
        guard proxySocket.isOpen else { return false }
        let result: ReadResult
        do throws(SocketError) {
            let socket = proxySocket
            result = try scratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try socket.read(into: raw) }
            }.get()
        } catch {
            lost(error)
            return false
        }
        switch result {
        case .bytes(let n): cipherIn.append(contentsOf: scratch[0..<n])
        case .endOfStream: tls.receiveEndOfStream()
        case .wouldBlock: return false
        }
        decryptOrHandshake()
        if case .bytes = result { return true }
        return false
    }

    private func decryptOrHandshake() {
        feedCipher()
        if machine.state == .handshaking {
            perform(machine.handshakeProgressed(tls.handshake()))
        } else {
            decryptAvailable()
            if machine.isRelaying, !plainUp.isEmpty { encryptPending() }
        }
    }

    private func feedCipher() {
        guard !cipherIn.isEmpty else { return }
        let taken = cipherIn.withUnsafeBytes { tls.receiveCiphertext($0) }
        cipherIn.removeFirst(taken)
    }

    /// Decrypts into `towardInner` and delivers, until the engine needs more or the pair is full.
    private func decryptAvailable() {
        reading: while machine.isRelaying, towardInnerOffset == towardInner.count {
            feedCipher()
            let result = scratch.withUnsafeMutableBytes { tls.read(into: $0) }
            switch result {
            case .bytes(let n):
                towardInner = Array(scratch[0..<n])
                towardInnerOffset = 0
                guard flushTowardInner() else {
                    proxySocket.setReadInterest(false)  // resumes when the pair drains
                    return
                }
            case .incomplete:
                _ = flushCipher()
                if !cipherIn.isEmpty { continue }
                proxySocket.setReadInterest(!machine.isDraining)
                return
            case .closed(let clean):
                // Now draining (or already): nothing more comes from the proxy.
                _ = machine.proxyEnded(clean: clean)
                proxySocket.setReadInterest(false)
                break reading
            case .failed:
                return perform(machine.relayEnded())
            }
        }
        if machine.isDraining, towardInnerOffset == towardInner.count { perform(machine.delivered()) }
    }

    /// Writes `towardInner` to the pair; false when the pair is full (write interest on).
    private func flushTowardInner() -> Bool {
        guard let inner else { return true }
        while towardInnerOffset < towardInner.count {
            let offset = towardInnerOffset
            let result: Result<WriteResult, SocketError> = towardInner.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try inner.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(.wrote(let n)): towardInnerOffset += n
            case .success(.wouldBlock):
                inner.setWriteInterest(true)
                return false
            case .failure:
                perform(machine.relayEnded())
                return false
            }
        }
        inner.setWriteInterest(false)
        return true
    }

    // MARK: From the pair

    private func readFromInner() {
        guard let inner, plainUp.isEmpty else { return }
        let result: ReadResult
        do throws(SocketError) {
            result = try scratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try inner.read(into: raw) }
            }.get()
        } catch {
            return perform(machine.relayEnded())
        }
        switch result {
        case .bytes(let n):
            plainUp = Array(scratch[0..<n])
            encryptPending()
        case .endOfStream:
            perform(machine.relayEnded())
        case .wouldBlock:
            return
        }
    }

    /// Encrypts `plainUp` and sends it; stops reading the pair while the proxy socket is full.
    private func encryptPending() {
        while !plainUp.isEmpty {
            switch plainUp.withUnsafeBytes({ tls.write($0) }) {
            case .written(let n):
                plainUp.removeFirst(n)
            case .incomplete:
                // The engine's output is full (send it, then retry) or it waits for the proxy
                // (retried after the next read from it): either way, stop reading the pair.
                let waitsForProxy = tls.pendingCiphertextCount == 0
                guard !waitsForProxy, flushCipher() else {
                    inner?.setReadInterest(false)
                    return
                }
            case .failed:
                return perform(machine.relayEnded())
            }
        }
        inner?.setReadInterest(flushCipher())
    }

    /// Writes the engine's ciphertext to the proxy; false when the socket is full (write interest on).
    @discardableResult
    private func flushCipher() -> Bool {
        guard proxySocket.isOpen else { return false }
        while true {
            if cipherOutOffset == cipherOut.count {
                guard tls.pendingCiphertextCount > 0 else {
                    cipherOut.removeAll(keepingCapacity: true)
                    cipherOutOffset = 0
                    proxySocket.setWriteInterest(false)
                    return true
                }
                cipherOut = tls.takeCiphertext()
                cipherOutOffset = 0
            }
            let offset = cipherOutOffset
            let socket = proxySocket
            let result: Result<WriteResult, SocketError> = cipherOut.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(.wrote(let n)): cipherOutOffset += n
            case .success(.wouldBlock):
                proxySocket.setWriteInterest(true)
                return false
            case .failure(let error):
                lost(error)
                return false
            }
        }
    }

    // MARK: Driving

    /// A socket error on the proxy's side: the handshake fails, or the relay ends.
    private func lost(_ error: SocketError) {
        let proxyError = ProxyError(.closed, proxy: machine.proxy, "the connection to the proxy broke: \(error)", underlying: error)
        if machine.state == .handshaking {
            perform(machine.handshakeAborted(proxyError))
        } else {
            perform(machine.relayEnded())
        }
    }

    private func perform(_ action: ProxyTLSStateMachine.Action, timedOut: Bool = false, cancelled: Bool = false) {
        switch action {
        case .none:
            return
        case .sendCiphertext:
            _ = flushCipher()
            proxySocket.setReadInterest(true)
        case .openRelay:
            _ = flushCipher()
            openRelay()
        case .fail(let error):
            _ = flushCipher()  // the alert, if any, as a courtesy
            let transport: TransportError
            if timedOut {
                transport = TransportError(.timedOut, error.detail, underlying: error)
            } else if cancelled {
                transport = TransportError(.cancelled, error.detail, underlying: error)
            } else {
                transport = TransportError(.proxy, "\(error.detail) (proxy \(machine.proxy))", underlying: error)
            }
            finish(.failure(transport))
        case .closeWhenDelivered:
            decryptAvailable()
        case .closeAll:
            closeAll()
        }
    }

    /// The session is up: makes the pair, starts relaying, hands the far end over.
    private func openRelay() {
        let pair: (Socket, Socket)
        do throws(SocketError) {
            pair = try Socket.makePair(on: loop, remoteAddress: proxySocket.remoteAddress)
        } catch {
            let proxyError = ProxyError(.closed, proxy: machine.proxy, "no socket pair for the proxy's session: \(error)", underlying: error)
            _ = machine.relayEnded()
            return finish(.failure(TransportError(.proxy, proxyError.detail, underlying: proxyError)))
        }
        let (mine, theirs) = pair
        inner = mine
        mine.handler = self
        mine.setReadInterest(true)
        proxySocket.setReadInterest(true)
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        let completion = self.completion
        self.completion = nil
        completion?(.success(theirs))
        decryptAvailable()  // application data that came with the proxy's last handshake flight
    }

    /// Ends the relay: close_notify to the proxy (best effort), both sockets closed.
    private func closeAll() {
        if proxySocket.isOpen {
            _ = tls.shutdown()
            _ = flushCipher()
            proxySocket.close()
        }
        if let inner, inner.isOpen { inner.close() }
        inner = nil
    }

    /// Ends the handshake once, with `result`; on failure the proxy socket is closed.
    private func finish(_ result: Result<Socket, TransportError>) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if case .failure = result, proxySocket.isOpen { proxySocket.close() }
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
