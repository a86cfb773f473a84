// The decisions of the TLS session to an HTTPS proxy (ProxyTLSRelay.swift drives it): the
// handshake with the proxy, then the relay between that session and the plaintext socket the rest
// of the stack speaks to (the CONNECT machine, then the origin's own TLS session: TLS in TLS; or
// absolute-form requests for http:// origins), then the close. No I/O here.
//
// States and their exits:
//   handshaking        → relaying (handshake complete, the proxy's certificate accepted)
//                      → failed   (handshake error, certificate refused, proxy closed, timeout, cancel)
//   relaying           → draining (the proxy ended its direction: deliver what is decrypted, then
//                                  end the plaintext side)
//                      → closed   (the plaintext side closed, or a read or write failed)
//   draining           → closed   (delivered, or the plaintext side closed meanwhile)
//   failed, closed     terminal; every further event is ignored (`.none`).
//
// A failure during the handshake is the proxy's (`ProxyError.tlsHandshakeFailed`), reported to
// the connect attempt. After the handshake nobody waits on the relay: a failure there ends the
// plaintext side, whose owner sees the end of its stream.

import TLS

/// The TLS session to an HTTPS proxy, as states and transitions.
struct ProxyTLSStateMachine {
    /// See the file comment for exits.
    enum State: Equatable {
        /// TLS handshake with the proxy in progress.
        case handshaking
        /// The session is up; bytes flow both ways.
        case relaying
        /// The proxy's direction ended (`clean`: with close_notify); what is left goes out.
        case draining(clean: Bool)
        /// The handshake failed. Terminal.
        case failed
        /// Terminal.
        case closed
    }

    /// What the driver does next.
    enum Action: Equatable {
        /// Send the engine's ciphertext and wait for the proxy.
        case sendCiphertext
        /// The session is up: send the engine's ciphertext, make the plaintext pair and hand its
        /// far end to the connect attempt.
        case openRelay
        /// The session could not be set up: close the proxy socket and fail the attempt.
        case fail(ProxyError)
        /// Deliver the plaintext already decrypted, then end the plaintext side and close.
        case closeWhenDelivered
        /// Close both sockets now.
        case closeAll
        /// Nothing to do.
        case none
    }

    private(set) var state: State = .handshaking
    /// `kind://host:port` of the proxy, for errors.
    let proxy: String

    init(proxy: String) {
        self.proxy = proxy
    }

    /// A step of the handshake returned `result`.
    mutating func handshakeProgressed(_ result: TLSHandshakeResult) -> Action {
        guard state == .handshaking else { return .none }
        switch result {
        case .complete:
            state = .relaying
            return .openRelay
        case .incomplete:
            return .sendCiphertext
        case .failed(let error):
            state = .failed
            return .fail(ProxyError(.tlsHandshakeFailed, proxy: proxy, "TLS handshake with the proxy failed: \(error)", underlying: error))
        }
    }

    /// The proxy's side ended: its TCP stream during the handshake, its TLS stream (`clean` with
    /// close_notify) afterwards.
    mutating func proxyEnded(clean: Bool) -> Action {
        switch state {
        case .handshaking:
            state = .failed
            return .fail(ProxyError(.closed, proxy: proxy, "the proxy closed the connection during the TLS handshake"))
        case .relaying:
            state = .draining(clean: clean)
            return .closeWhenDelivered
        case .draining, .failed, .closed:
            return .none
        }
    }

    /// The handshake could not finish for a reason outside TLS: `error` (a socket failure, the
    /// connect deadline, a cancel).
    mutating func handshakeAborted(_ error: ProxyError) -> Action {
        guard state == .handshaking else { return .none }
        state = .failed
        return .fail(error)
    }

    /// The plaintext side closed its end, or a read or write on either side failed.
    mutating func relayEnded() -> Action {
        switch state {
        case .relaying, .draining:
            state = .closed
            return .closeAll
        case .handshaking, .failed, .closed:
            return .none
        }
    }

    /// Everything decrypted before the proxy's end was delivered to the plaintext side.
    mutating func delivered() -> Action {
        guard case .draining = state else { return .none }
        state = .closed
        return .closeAll
    }

    /// Whether plaintext may flow (relaying or draining).
    var isRelaying: Bool {
        switch state {
        case .relaying, .draining: true
        case .handshaking, .failed, .closed: false
        }
    }

    /// Whether the proxy's direction has ended.
    var isDraining: Bool {
        if case .draining = state { return true }
        return false
    }
}
