internal import COpenSSL

/// A TLS *server* over the same sans-I/O engine, for tests only (`package` access: visible to
/// this package's test targets and test support, never to users).
///
/// It exists so client behaviour can be tested by pumping bytes between two in-process
/// objects: certificate chains of any shape, old protocol versions, weak keys, stapled OCSP
/// responses, client-certificate requirements and session tickets.
///
/// `@unchecked Sendable`: `options`, the `SSL_CTX` and the ALPN buffer are set in `init` and never
/// changed; OpenSSL allows `SSL_new` from several threads on one context, and the callbacks
/// only read `options` and the ALPN list.
package final class TLSServerContext: @unchecked Sendable {
    /// Server settings. Defaults: TLS 1.2-1.3, security level 0 (so deliberately weak test
    /// certificates can be served), ALPN `http/1.1`, tickets on, no client certificate, no OCSP.
    package struct Options: Sendable {
        package var certificateChain: [Certificate]
        package var privateKey: PrivateKey
        package var minimumVersion: TLSVersion = .v1_2
        package var maximumVersion: TLSVersion? = nil
        package var securityLevel: Int = 0
        package var cipherList: String? = nil
        package var applicationProtocols: [String] = ["http/1.1"]
        /// When set, a client certificate chaining to one of these is required.
        package var clientCertificateAnchors: [Certificate]? = nil
        /// DER OCSP response stapled whenever the client asks.
        package var stapledOCSPResponse: [UInt8]? = nil
        package var sessionTickets = true

        package init(certificateChain: [Certificate], privateKey: PrivateKey) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    package let options: Options
    let context: OpaquePointer
    /// ALPN list in wire format, alive as long as the context (OpenSSL points into it).
    private let alpn: UnsafeMutableBufferPointer<UInt8>

    package init(_ options: Options) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError.drainingQueue(.configuration, "SSL_CTX_new failed") }
        let wire = try TLSEngine.alpnWireFormat(options.applicationProtocols)
        self.alpn = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: wire.count + 1)
        _ = self.alpn.initialize(fromContentsOf: wire + [0])
        self.context = context
        self.options = options
        try configure(wireCount: wire.count)
    }

    deinit {
        SSL_CTX_free(context)
        alpn.deallocate()
    }

    private func configure(wireCount: Int) throws(TLSError) {
        SSL_CTX_set_security_level(context, Int32(options.securityLevel))
        guard lariat_SSL_CTX_set_min_proto_version(context, options.minimumVersion.wireValue) == 1,
            lariat_SSL_CTX_set_max_proto_version(context, options.maximumVersion?.wireValue ?? 0) == 1
        else { throw TLSError.drainingQueue(.configuration, "server version range") }
        if let cipherList = options.cipherList, SSL_CTX_set_cipher_list(context, cipherList) != 1 {
            throw TLSError.drainingQueue(.configuration, "server cipher list")
        }
        guard let leaf = options.certificateChain.first, SSL_CTX_use_certificate(context, leaf.x509) == 1 else {
            throw TLSError.drainingQueue(.configuration, "server certificate refused")
        }
        for certificate in options.certificateChain.dropFirst() where lariat_SSL_CTX_add1_chain_cert(context, certificate.x509) != 1 {
            throw TLSError.drainingQueue(.configuration, "server chain certificate refused")
        }
        guard SSL_CTX_use_PrivateKey(context, options.privateKey.pkey) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.drainingQueue(.configuration, "server key does not match")
        }
        let sessionContext = Array("lariat-test-server".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        if !options.sessionTickets { SSL_CTX_set_options(context, lariat_SSL_OP_NO_TICKET()) }
        _ = lariat_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        let unmanaged = Unmanaged.passUnretained(self).toOpaque()
        if wireCount > 0 { SSL_CTX_set_alpn_select_cb(context, serverALPNCallback, unmanaged) }
        if options.stapledOCSPResponse != nil {
            _ = lariat_SSL_CTX_set_tlsext_status_cb(context, serverStatusCallback)
            _ = lariat_SSL_CTX_set_tlsext_status_arg(context, unmanaged)
        }
        if let anchors = options.clientCertificateAnchors {
            guard let store = SSL_CTX_get_cert_store(context) else { throw TLSError(.configuration, "no server store") }
            for anchor in anchors { _ = X509_STORE_add_cert(store, anchor.x509) }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        _ = OpenSSLError.drain()
    }

    fileprivate var alpnList: UnsafeMutableBufferPointer<UInt8> { alpn }
    fileprivate var alpnCount: Int { options.applicationProtocols.reduce(0) { $0 + 1 + $1.utf8.count } }
}

/// One server-side connection; same driving model as ``TLSClientConnection``.
package final class TLSServerConnection {
    let engine: TLSEngine
    package let context: TLSServerContext
    private var failure: TLSError?

    package init(context: TLSServerContext) throws(TLSError) {
        self.context = context
        self.engine = try TLSEngine(context: context.context)
        SSL_set_accept_state(engine.ssl)
    }

    package func receiveCiphertext(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBytes { engine.receive($0) } }
    package func receiveEndOfStream() { engine.receiveEndOfStream() }
    package var pendingCiphertextCount: Int { engine.pendingOutputCount }
    package func takeCiphertext() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: engine.pendingOutputCount)
        let count = output.withUnsafeMutableBytes { engine.takeOutput(into: $0) }
        return Array(output.prefix(count))
    }

    package func handshake() -> TLSHandshakeResult {
        if let failure { return .failed(failure) }
        switch engine.perform({ SSL_do_handshake($0) }) {
        case .done: return .complete
        case .want(let want): return .incomplete(want)
        case .closeNotify, .unexpectedEOF: return .failed(record(TLSError(.closed, "client closed during the handshake")))
        case .failed(let errors): return .failed(record(handshakeError(errors)))
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSReadResult {
        if let failure { return .failed(failure) }
        let count = Int32(clamping: buffer.count)
        switch engine.perform({ SSL_read($0, buffer.baseAddress, count) }) {
        case .done(let count): return .bytes(Int(count))
        case .want(let want): return .incomplete(want)
        case .closeNotify: return .closed(clean: true)
        case .unexpectedEOF: return .closed(clean: false)
        case .failed(let errors): return .failed(record(TLSError(.connection, "server read failed", openSSLErrors: errors)))
        }
    }

    package func write(_ bytes: [UInt8]) -> TLSWriteResult {
        if let failure { return .failed(failure) }
        let count = Int32(clamping: bytes.count)
        let step = bytes.withUnsafeBytes { raw in engine.perform({ SSL_write($0, raw.baseAddress, count) }) }
        switch step {
        case .done(let count): return .written(Int(count))
        case .want(let want): return .incomplete(want)
        case .closeNotify, .unexpectedEOF: return .failed(record(TLSError(.closed, "server write after close")))
        case .failed(let errors): return .failed(record(TLSError(.connection, "server write failed", openSSLErrors: errors)))
        }
    }

    package func shutdown() -> TLSShutdownResult { engine.shutdown() }
    package var receivedCloseNotify: Bool { engine.receivedCloseNotify }
    package var negotiatedApplicationProtocol: String? { engine.selectedApplicationProtocol }
    package var negotiatedVersion: TLSVersion? { engine.negotiatedVersion }
    package var isSessionReused: Bool { engine.sessionReused }

    /// The SNI host name the client sent, or `nil`.
    package var requestedServerName: String? {
        guard let name = SSL_get_servername(engine.ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return OpenSSLAccessors.string(name)
    }

    /// The verified client certificate, when one was presented.
    package var clientCertificate: Certificate? {
        guard let x509 = SSL_get1_peer_certificate(engine.ssl) else { return nil }
        return Certificate(takingOwnershipOf: x509)
    }

    private func record(_ error: TLSError) -> TLSError {
        failure = error
        return error
    }
}

/// ALPN selection in the server's order of preference (RFC 7301 section 3.2).
private func serverALPNCallback(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let out, let outLength, let server = OpenSSLAccessors.object(argument, as: TLSServerContext.self) else { return SSL_TLSEXT_ERR_NOACK }
    var selected: UnsafeMutablePointer<UInt8>? = nil
    var selectedLength: UInt8 = 0
    let result = SSL_select_next_proto(
        &selected, &selectedLength, server.alpnList.baseAddress, UInt32(server.alpnCount), offered, offeredLength)
    guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    out.pointee = UnsafePointer(selected)
    outLength.pointee = selectedLength
    return SSL_TLSEXT_ERR_OK
}

/// Staples the configured OCSP response (OpenSSL takes ownership of an OPENSSL_malloc copy).
private func serverStatusCallback(_ ssl: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let ssl, let server = OpenSSLAccessors.object(argument, as: TLSServerContext.self),
        let response = server.options.stapledOCSPResponse, !response.isEmpty,
        let copy = OpenSSLAccessors.openSSLCopy(response)
    else { return SSL_TLSEXT_ERR_NOACK }
    guard lariat_SSL_set_tlsext_status_ocsp_resp(ssl, copy, response.count) == 1 else {
        lariat_OPENSSL_free(copy)
        return SSL_TLSEXT_ERR_NOACK
    }
    return SSL_TLSEXT_ERR_OK
}
