internal import COpenSSL

/// One `SSL` object wired to a BIO pair: the sans-I/O core shared by client and server.
///
/// ```
///   caller ──ciphertext──► network BIO ══ pair ══ internal BIO ◄──► SSL ◄──plaintext──► caller
/// ```
/// The pair has a fixed buffer in each direction (``bufferSize``), so memory per connection
/// is bounded and a full buffer surfaces as `TLSWant.write` instead of growth.
/// Confined to one thread at a time (the connection's owner); not Sendable.
final class TLSEngine {
    /// Buffer per direction of the BIO pair: room for several maximal TLS records (16 KiB of
    /// plaintext plus at most 256 bytes of overhead each, RFC 8446 section 5.2).
    static let bufferSize = 64 * 1024

    /// The owned `SSL*`; it owns the internal half of the pair.
    let ssl: OpaquePointer
    /// The owned network half of the pair; the caller's bytes go in and out here.
    private let network: OpaquePointer

    init(context: OpaquePointer) throws(TLSError) {
        guard let ssl = SSL_new(context) else { throw TLSError.drainingQueue(.configuration, "SSL_new failed") }
        var internalBIO: OpaquePointer? = nil
        var networkBIO: OpaquePointer? = nil
        guard BIO_new_bio_pair(&internalBIO, TLSEngine.bufferSize, &networkBIO, TLSEngine.bufferSize) == 1,
            let internalBIO, let networkBIO
        else {
            SSL_free(ssl)
            throw TLSError.drainingQueue(.configuration, "BIO_new_bio_pair failed")
        }
        // One reference to internalBIO serves as both read and write BIO; SSL_free releases it.
        SSL_set_bio(ssl, internalBIO, internalBIO)
        self.ssl = ssl
        self.network = networkBIO
    }

    deinit {
        SSL_free(ssl)
        BIO_free(network)
    }

    // MARK: Ciphertext

    /// Copies ciphertext from the peer in; returns how many bytes fit (0 when the buffer is full).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        let room = Int(BIO_ctrl_get_write_guarantee(network))
        let count = min(room, bytes.count, Int(Int32.max))
        guard count > 0 else { return 0 }
        let written = BIO_write(network, base, Int32(count))
        return max(0, Int(written))
    }

    /// Signals that the transport delivered its last byte (TCP FIN): later reads see EOF.
    func receiveEndOfStream() { _ = lariat_BIO_shutdown_wr(network) }

    /// Ciphertext waiting to be sent to the peer, in bytes.
    var pendingOutputCount: Int { Int(BIO_ctrl_pending(network)) }

    /// Moves pending ciphertext into `buffer`; returns the number of bytes copied.
    func takeOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty, pendingOutputCount > 0 else { return 0 }
        let read = BIO_read(network, base, Int32(min(buffer.count, Int(Int32.max))))
        return max(0, Int(read))
    }

    /// Throws away pending ciphertext (used when a verdict after the handshake rejects the peer,
    /// so our Finished message never leaves).
    func discardOutput() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while pendingOutputCount > 0 {
            let taken = scratch.withUnsafeMutableBytes { takeOutput(into: $0) }
            if taken == 0 { break }
        }
    }

    // MARK: Operations

    /// The outcome of one `SSL_*` call after `SSL_get_error` classification.
    enum Step {
        /// The call succeeded with this return value (> 0).
        case done(Int32)
        /// It needs I/O first.
        case want(TLSWant)
        /// The peer's close_notify arrived (`SSL_ERROR_ZERO_RETURN`).
        case closeNotify
        /// The transport ended without close_notify.
        case unexpectedEOF([OpenSSLError])
        /// A fatal error with OpenSSL's reasons.
        case failed([OpenSSLError])
    }

    /// Runs one `SSL_*` call with a clean error queue and classifies the result.
    func perform(_ operation: (OpaquePointer) -> Int32) -> Step {
        ERR_clear_error()
        let result = operation(ssl)
        if result > 0 { return .done(result) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .want(.read)
        case SSL_ERROR_WANT_WRITE:
            return .want(.write)
        case SSL_ERROR_ZERO_RETURN:
            return .closeNotify
        case SSL_ERROR_SYSCALL:
            // With a BIO pair there is no syscall: an empty queue here means EOF from the pair.
            let errors = OpenSSLError.drain()
            return errors.isEmpty ? .unexpectedEOF(errors) : .failed(errors)
        default:
            let errors = OpenSSLError.drain()
            // OpenSSL 3 reports a missing close_notify as SSL_R_UNEXPECTED_EOF_WHILE_READING.
            if errors.contains(where: { $0.library == ERR_LIB_SSL && $0.reason == SSL_R_UNEXPECTED_EOF_WHILE_READING }) {
                return .unexpectedEOF(errors)
            }
            return .failed(errors)
        }
    }

    /// Queues close_notify (`SSL_shutdown`, whose 0 means "sent, peer's not yet received").
    func shutdown() -> TLSShutdownResult {
        ERR_clear_error()
        let result = SSL_shutdown(ssl)
        if result == 1 { return .complete }
        if result == 0 { return .closeNotifySent }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .incomplete(.read)
        case SSL_ERROR_WANT_WRITE: return .incomplete(.write)
        default:
            let errors = OpenSSLError.drain()
            return .failed(TLSError(.connection, errors.last?.description ?? "shutdown failed", openSSLErrors: errors))
        }
    }

    /// Whether the peer's close_notify has been received.
    var receivedCloseNotify: Bool { (SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN) != 0 }

    /// The ALPN protocol the server selected, or `nil`.
    var selectedApplicationProtocol: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let bytes = OpenSSLAccessors.copy(data, count: Int(length)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The negotiated version, or `nil` before the handshake.
    var negotiatedVersion: TLSVersion? {
        guard SSL_is_init_finished(ssl) == 1 else { return nil }
        return TLSVersion(wireValue: SSL_version(ssl))
    }

    /// The negotiated cipher suite's OpenSSL name, or `nil` before the handshake.
    var negotiatedCipher: String? {
        guard SSL_is_init_finished(ssl) == 1, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return OpenSSLAccessors.string(name)
    }

    /// The negotiated cipher suite's IANA number (the two bytes of the TLS registry), or `nil`
    /// before the handshake.
    var negotiatedCipherID: UInt16? {
        guard SSL_is_init_finished(ssl) == 1, let cipher = SSL_get_current_cipher(ssl) else { return nil }
        return SSL_CIPHER_get_protocol_id(cipher)
    }

    /// Whether the handshake resumed a session.
    var sessionReused: Bool { SSL_session_reused(ssl) == 1 }

    /// Wire encoding of an ALPN list (RFC 7301 section 3.1): length-prefixed names.
    static func alpnWireFormat(_ protocols: [String]) throws(TLSError) -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else { throw TLSError(.configuration, "ALPN name '\(name)' must be 1 to 255 bytes") }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        return wire
    }
}

/// Reasons that mean "no protocol version in common", from either side of the handshake.
let protocolVersionReasons: Set<Int32> = [
    SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
    SSL_R_WRONG_SSL_VERSION, SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH, SSL_R_WRONG_VERSION_NUMBER,
]

/// Classifies a failed handshake by OpenSSL's reasons.
func handshakeError(_ errors: [OpenSSLError]) -> TLSError {
    let kind: TLSError.Kind = errors.contains { $0.library == ERR_LIB_SSL && protocolVersionReasons.contains($0.reason) }
        ? .protocolVersion : .handshake
    let summary = errors.last?.description ?? "handshake failed"
    return TLSError(kind, summary, openSSLErrors: errors)
}
