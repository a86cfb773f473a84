internal import COpenSSL

/// A trust decision supplied by the caller: return to accept the server, throw to refuse.
///
/// It runs synchronously inside ``TLSClientConnection/handshake()``, on the caller's thread,
/// before the client sends its Finished message, and replaces the default decision (but
/// not the default evaluation, which is available as ``TrustEvaluationContext/defaultResult``).
/// Whatever it throws comes back as ``TLSError/evaluatorError``.
public typealias TrustEvaluator = (TrustEvaluationContext) throws -> Void

/// One client TLS connection, sans I/O: ciphertext in and out through buffers, plaintext in
/// and out through calls. The caller owns the socket.
///
/// Driving it:
/// 1. call ``handshake()``; after every call, send ``pendingCiphertextCount`` bytes taken with
///    ``takeCiphertext(into:)``; on `.incomplete(.read)` wait for socket data, hand it to
///    ``receiveCiphertext(_:)`` (it may accept only part: feed the rest after the next call)
///    and call again; on TCP EOF call ``receiveEndOfStream()``;
/// 2. after `.complete`, ``write(_:)`` and ``read(into:)`` in the same manner;
/// 3. ``shutdown()`` queues close_notify; send it, then close the socket.
///
/// States (``Phase``): `handshaking` → `established` when the handshake and the trust decision
/// both succeed, or → `failed`; `established` → `failed` on a fatal record error. `failed`
/// is terminal and every call returns its error. Reading before `established` is a
/// programming error and traps. Close_notify in each direction is tracked by OpenSSL
/// (``receivedCloseNotify``), independent of the phase.
///
/// Trust: the server's chain is evaluated during the handshake, in OpenSSL's certificate
/// verification callback (default evaluation) and in its OCSP status callback (the final
/// decision, once a stapled response can be seen), so a rejected server never receives our
/// Finished message or any application byte. A resumed session (no certificate on the wire)
/// is evaluated again, right after the handshake, on the chain and OCSP response stored with
/// the session; when that fails the pending Finished is discarded, not sent.
///
/// Not Sendable: confine it to one thread or event loop at a time.
public final class TLSClientConnection {
    /// Connection phases; see the type documentation for transitions.
    enum Phase {
        /// Handshake in progress. Exits: `established`, `failed`.
        case handshaking
        /// Handshake and trust decision done. Exit: `failed`.
        case established
        /// Terminal.
        case failed(TLSError)
    }

    /// The certificate chain the server presented (or the one stored with a resumed session),
    /// with the default evaluation of it.
    struct PeerChain {
        let certificates: [Certificate]
        /// `nil` when nothing needed it (no evaluator and verification `none`).
        let defaultResult: TrustResult?
        let resumed: Bool
    }

    /// The trust decision's progress, separate from the handshake phase.
    enum TrustState {
        /// Nothing seen yet. Exits: `chainChecked` (certificate callback or resumption), `rejected`.
        case awaitingCertificate
        /// Default evaluation done, decision pending. Exits: `accepted`, `rejected`.
        case chainChecked(PeerChain)
        /// Terminal: the server is trusted.
        case accepted(PeerChain, stapledOCSP: [UInt8]?)
        /// Terminal: the server is not trusted, for this reason.
        case rejected(TLSError)
    }

    /// The shared settings this connection was created from.
    public let context: TLSClientContext
    /// The host name or IP literal the connection is for (SNI and identity checks).
    public let serverName: String
    /// The server port (part of the session cache key and of the evaluator's context).
    public let port: Int

    let engine: TLSEngine
    let evaluator: TrustEvaluator?
    var phase: Phase = .handshaking
    var trust: TrustState = .awaitingCertificate
    /// Sessions issued before the trust decision (TLS 1.2 may issue one before our callbacks
    /// finish); stored in the cache once accepted. Bounded by ``maxPendingSessions``.
    var pendingSessions: [SessionHandle] = []
    /// The cache entry offered for resumption, if any.
    var offeredSession: TLSSessionCache.Entry?

    static let maxPendingSessions = 4

    /// Creates a connection that will offer SNI, ALPN, OCSP stapling and a cached session.
    ///
    /// - Parameters:
    ///   - context: the shared settings.
    ///   - serverName: host name or IP literal. SNI is sent for host names only (RFC 6066
    ///     section 3 forbids IP literals); a trailing dot is dropped from SNI.
    ///   - port: the server's port; 443 by default.
    ///   - evaluator: custom trust decision; `nil` (the default) applies the configuration's
    ///     ``VerificationMode``.
    /// - Throws: ``TLSError/Kind/configuration`` when OpenSSL cannot create the connection.
    public init(context: TLSClientContext, serverName: String, port: Int = 443, evaluator: TrustEvaluator? = nil) throws(TLSError) {
        self.context = context
        self.serverName = serverName
        self.port = port
        self.evaluator = evaluator
        self.engine = try TLSEngine(context: context.context)
        let ssl = engine.ssl
        // Unretained: the SSL object lives exactly as long as this connection (freed in engine deinit).
        SSL_set_ex_data(ssl, connectionExDataIndex, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_connect_state(ssl)
        if IPAddress(serverName) == nil, let name = HostnameMatcher.normalizedHostname(serverName) {
            guard lariat_SSL_set_tlsext_host_name(ssl, name) == 1 else {
                throw TLSError.drainingQueue(.configuration, "cannot set SNI to \(name)")
            }
        }
        _ = lariat_SSL_set_tlsext_status_type_ocsp(ssl)
        if let cache = context.sessionCache, let entry = cache.lookup(context.sessionKey(host: serverName, port: port)) {
            if SSL_set_session(ssl, entry.session.session) == 1 { offeredSession = entry }
            _ = OpenSSLError.drain()
        }
    }

    // MARK: Ciphertext

    /// Hands ciphertext received from the peer to the connection.
    ///
    /// - Parameter bytes: bytes read from the socket.
    /// - Returns: how many were accepted; fewer than offered when the inbound buffer is full
    ///   (call ``read(into:)`` or ``handshake()`` first, then offer the rest). 0 for empty input.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) -> Int { engine.receive(bytes) }

    /// Array convenience for ``receiveCiphertext(_:)-(UnsafeRawBufferPointer)``.
    ///
    /// - Parameter bytes: bytes read from the socket.
    /// - Returns: how many were accepted.
    public func receiveCiphertext(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBytes { engine.receive($0) } }

    /// Tells the connection the transport reached EOF. A later read returns
    /// `.closed(clean: false)` unless the peer's close_notify arrived first.
    public func receiveEndOfStream() { engine.receiveEndOfStream() }

    /// Ciphertext waiting to be sent, in bytes.
    public var pendingCiphertextCount: Int { engine.pendingOutputCount }

    /// Moves pending ciphertext into `buffer`.
    ///
    /// - Parameter buffer: destination; any size.
    /// - Returns: bytes copied; 0 when nothing is pending.
    public func takeCiphertext(into buffer: UnsafeMutableRawBufferPointer) -> Int { engine.takeOutput(into: buffer) }

    /// Moves all pending ciphertext into a new array.
    ///
    /// - Returns: the bytes; empty when nothing is pending.
    public func takeCiphertext() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: pendingCiphertextCount)
        let count = output.withUnsafeMutableBytes { engine.takeOutput(into: $0) }
        return Array(output.prefix(count))
    }

    // MARK: Operations

    /// Advances the handshake.
    ///
    /// - Returns: `.complete` only once the handshake finished *and* the server was trusted
    ///   (default policy or ``TrustEvaluator``); `.incomplete` when I/O is needed; `.failed`
    ///   with ``TLSError/Kind/trust``, ``TLSError/Kind/evaluatorRejected``,
    ///   ``TLSError/Kind/protocolVersion``, ``TLSError/Kind/handshake`` or ``TLSError/Kind/closed``.
    public func handshake() -> TLSHandshakeResult {
        switch phase {
        case .established: return .complete
        case .failed(let error): return .failed(error)
        case .handshaking: break
        }
        switch engine.perform({ SSL_do_handshake($0) }) {
        case .done:
            return finishHandshake()
        case .want(let want):
            return .incomplete(want)
        case .closeNotify, .unexpectedEOF:
            return .failed(fail(TLSError(.closed, "the server closed the connection during the handshake")))
        case .failed(let errors):
            if case .rejected(let error) = trust {
                return .failed(fail(TLSError(error.kind, error.message, trustFailure: error.trustFailure,
                                             evaluatorError: error.evaluatorError, openSSLErrors: errors)))
            }
            return .failed(fail(handshakeError(errors)))
        }
    }

    /// Decrypts application data into `buffer`.
    ///
    /// - Parameter buffer: destination; must not be empty.
    /// - Returns: `.bytes(n)`, `.incomplete`, `.closed(clean:)` or `.failed`.
    /// - Precondition: ``handshake()`` returned `.complete` (or the connection failed).
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSReadResult {
        switch phase {
        case .handshaking: preconditionFailure("TLSClientConnection.read called in phase handshaking")
        case .failed(let error): return .failed(error)
        case .established: break
        }
        precondition(!buffer.isEmpty, "TLSClientConnection.read needs a non-empty buffer")
        let count = Int32(clamping: buffer.count)
        switch engine.perform({ SSL_read($0, buffer.baseAddress, count) }) {
        case .done(let count): return .bytes(Int(count))
        case .want(let want): return .incomplete(want)
        case .closeNotify: return .closed(clean: true)
        case .unexpectedEOF: return .closed(clean: false)
        case .failed(let errors):
            return .failed(fail(TLSError(.connection, errors.last?.description ?? "read failed", openSSLErrors: errors)))
        }
    }

    /// Encrypts application data.
    ///
    /// - Parameter bytes: plaintext; must not be empty. After `.incomplete`, pass the same bytes again.
    /// - Returns: `.written(n)`, `.incomplete` or `.failed`.
    /// - Precondition: ``handshake()`` returned `.complete` (or the connection failed).
    public func write(_ bytes: UnsafeRawBufferPointer) -> TLSWriteResult {
        switch phase {
        case .handshaking: preconditionFailure("TLSClientConnection.write called in phase handshaking")
        case .failed(let error): return .failed(error)
        case .established: break
        }
        precondition(!bytes.isEmpty, "TLSClientConnection.write needs non-empty input")
        let count = Int32(clamping: bytes.count)
        switch engine.perform({ SSL_write($0, bytes.baseAddress, count) }) {
        case .done(let count): return .written(Int(count))
        case .want(let want): return .incomplete(want)
        case .closeNotify, .unexpectedEOF:
            return .failed(fail(TLSError(.closed, "the connection is closed for writing")))
        case .failed(let errors):
            return .failed(fail(TLSError(.connection, errors.last?.description ?? "write failed", openSSLErrors: errors)))
        }
    }

    /// Array convenience for ``write(_:)-(UnsafeRawBufferPointer)``.
    ///
    /// - Parameter bytes: plaintext; must not be empty.
    /// - Returns: as ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: [UInt8]) -> TLSWriteResult { bytes.withUnsafeBytes { write($0) } }

    /// Queues our close_notify alert (RFC 8446 section 6.1).
    ///
    /// - Returns: `.closeNotifySent` normally, `.complete` when the peer's close_notify had
    ///   already arrived, `.incomplete(.write)` when the outbound buffer is full, or `.failed`.
    public func shutdown() -> TLSShutdownResult {
        if case .failed(let error) = phase { return .failed(error) }
        return engine.shutdown()
    }

    // MARK: Inspection

    /// Whether the peer's close_notify alert has been received: a response delimited by the
    /// connection closing is complete only when this is `true`.
    public var receivedCloseNotify: Bool { engine.receivedCloseNotify }

    /// The ALPN protocol the server chose (`http/1.1`), or `nil` when it chose none.
    public var negotiatedApplicationProtocol: String? { engine.selectedApplicationProtocol }

    /// The negotiated protocol version, or `nil` before the handshake completes.
    public var negotiatedVersion: TLSVersion? { engine.negotiatedVersion }

    /// The negotiated cipher suite's OpenSSL name (`TLS_AES_128_GCM_SHA256`), or `nil` before the handshake.
    public var negotiatedCipher: String? { engine.negotiatedCipher }

    /// The negotiated cipher suite's IANA number (`0x1301` for `TLS_AES_128_GCM_SHA256`), or
    /// `nil` before the handshake. What Apple's `tls_ciphersuite_t` carries as its raw value.
    public var negotiatedCipherSuiteID: UInt16? { engine.negotiatedCipherID }

    /// Whether the handshake resumed a cached session.
    public var isSessionReused: Bool { engine.sessionReused }

    /// The server's chain, leaf first, as presented (or as stored with a resumed session);
    /// empty before the certificate arrives.
    public var peerCertificates: [Certificate] {
        switch trust {
        case .chainChecked(let peer), .accepted(let peer, _): return peer.certificates
        case .awaitingCertificate, .rejected: return []
        }
    }

    /// The default evaluation of the server chain under the configuration, when it was run.
    public var defaultTrustResult: TrustResult? {
        switch trust {
        case .chainChecked(let peer), .accepted(let peer, _): return peer.defaultResult
        case .awaitingCertificate, .rejected: return nil
        }
    }

    /// The OCSP response the server stapled, as DER, or `nil`.
    public var stapledOCSPResponse: [UInt8]? {
        if case .accepted(_, let response) = trust { return response }
        return currentStapledResponse()
    }

    // MARK: Internals

    /// Enters the terminal failed phase and forgets this server's session: after a failed
    /// handshake or a fatal record error, resuming the same session is not worth the risk.
    @discardableResult
    func fail(_ error: TLSError) -> TLSError {
        phase = .failed(error)
        pendingSessions.removeAll()
        context.sessionCache?.remove(context.sessionKey(host: serverName, port: port))
        return error
    }

    /// The stapled response as OpenSSL holds it right now.
    func currentStapledResponse() -> [UInt8]? {
        var data: UnsafePointer<UInt8>? = nil
        let length = lariat_SSL_get_tlsext_status_ocsp_resp(engine.ssl, &data)
        return OpenSSLAccessors.copy(data, count: length)
    }
}

/// Index of the owning ``TLSClientConnection`` in each client `SSL`'s ex_data.
let connectionExDataIndex: Int32 = lariat_SSL_get_ex_new_index()

@available(*, unavailable, message: "TLSClientConnection is confined to one thread or event loop")
extension TLSClientConnection: Sendable {}
