internal import COpenSSL

// The trust decision, driven from three OpenSSL callbacks and from the end of the handshake.
//
//   certificate verify callback ─► certificateReceived   awaitingCertificate → chainChecked | rejected
//   OCSP status callback        ─► decide(stapled:)       chainChecked → accepted | rejected
//   handshake finished          ─► finishHandshake        resumed: awaitingCertificate → … → accepted | rejected
//                                                         (and chainChecked → decide, should the status
//                                                         callback not have run)
//   new session callback        ─► sessionIssued          store now if accepted, else hold until accepted
//
// OpenSSL 3.0 invokes the status callback after processing the server's certificate (and, in
// TLS 1.2, its CertificateStatus message), before the client sends anything further, for full
// *and resumed* handshakes of TLS 1.2 and 1.3, whenever status_request was sent (always, here).
// Tests pin this down: a rejection leaves the server with an alert, never a completed handshake
// (EvaluatorTests.rejectionIsTypedAndHappensBeforeFinished, HandshakeTests.rejectedResumptionEvictsTheSession).
extension TLSClientConnection {
    /// Records the presented chain and runs the default evaluation.
    ///
    /// - Returns: `false` to abort the handshake now (no evaluator and the default policy failed).
    func certificateReceived(_ chain: [Certificate], resumed: Bool) -> Bool {
        guard case .awaitingCertificate = trust else {
            // A second certificate in one handshake cannot happen (renegotiation is disabled);
            // refuse rather than trap, since it would be driven by the peer.
            trust = .rejected(TLSError(.handshake, "unexpected second server certificate"))
            return false
        }
        let configuration = context.configuration
        let needsDefault = evaluator != nil || configuration.verification == .full
        let result = needsDefault ? context.trustStore.evaluate(chain: chain, policy: configuration.trustPolicy(host: serverName)) : nil
        if evaluator == nil, configuration.verification == .full, let failure = result?.failure {
            trust = .rejected(.trust(failure))
            return false
        }
        trust = .chainChecked(PeerChain(certificates: chain, defaultResult: result, resumed: resumed))
        return true
    }

    /// Makes the final decision once the stapled OCSP response (if any) is known.
    ///
    /// - Returns: whether the server is trusted.
    func decide(stapled response: [UInt8]?) -> Bool {
        switch trust {
        case .accepted: return true
        case .rejected, .awaitingCertificate: return false
        case .chainChecked(let peer):
            if let error = verdict(on: peer, stapled: response) {
                trust = .rejected(error)
                pendingSessions.removeAll()
                return false
            }
            trust = .accepted(peer, stapledOCSP: response)
            storePendingSessions()
            return true
        }
    }

    private func verdict(on peer: PeerChain, stapled response: [UInt8]?) -> TLSError? {
        let configuration = context.configuration
        if let evaluator {
            let evaluation = TrustEvaluationContext(
                host: serverName, port: port, peerCertificates: peer.certificates,
                chainResult: peer.defaultResult, stapledOCSPResponse: response, isResumedSession: peer.resumed,
                trustStore: context.trustStore, configuration: configuration)
            do {
                try evaluator(evaluation)
                return nil
            } catch {
                return TLSError(.evaluatorRejected, "the trust evaluator refused \(serverName): \(error)", evaluatorError: error)
            }
        }
        guard configuration.verification == .full, let chainResult = peer.defaultResult else { return nil }
        let result = TrustEvaluationContext.withStapledOCSP(
            chainResult, response: response, policy: configuration.ocspStapling, store: context.trustStore,
            presented: peer.certificates)
        return result.failure.map { TLSError.trust($0) }
    }

    /// The OCSP status callback: the decision point of full and resumed handshakes alike.
    ///
    /// - Returns: whether the handshake may continue.
    func statusStageReached() -> Bool {
        if case .awaitingCertificate = trust, engine.sessionReused { evaluateResumedSession() }
        return decide(stapled: currentStapledResponse())
    }

    /// Resumption: no certificate on the wire, so re-evaluate what was verified when the
    /// session was established (chain and stapled response stored with it in the cache).
    private func evaluateResumedSession() {
        guard let entry = offeredSession else {
            trust = .rejected(TLSError(.handshake, "server resumed a session we did not offer"))
            return
        }
        if certificateReceived(entry.peerChain, resumed: true) { _ = decide(stapled: entry.stapledOCSPResponse) }
    }

    /// Completes `.handshaking` → `.established` once OpenSSL's handshake finished.
    func finishHandshake() -> TLSHandshakeResult {
        // Fallbacks in case OpenSSL did not call the status callback (it does in 3.0 for full and
        // resumed handshakes of TLS 1.2 and 1.3, but the decision must not depend on it).
        if case .awaitingCertificate = trust {
            if engine.sessionReused {
                evaluateResumedSession()
            } else {
                trust = .rejected(TLSError(.handshake, "handshake finished without a verified server certificate"))
            }
        }
        if case .chainChecked = trust { _ = decide(stapled: currentStapledResponse()) }
        switch trust {
        case .accepted:
            phase = .established
            return .complete
        case .rejected(let error):
            // Our Finished is in the outbound buffer; it must not reach the server.
            engine.discardOutput()
            return .failed(fail(error))
        case .awaitingCertificate, .chainChecked:
            preconditionFailure("trust decision still pending after the handshake")
        }
    }

    /// Keeps a copy of a session the server issued (OpenSSL keeps its own reference).
    func sessionIssued(_ session: OpaquePointer) {
        guard context.sessionCache != nil, let handle = SessionHandle.copying(session) else { return }
        pendingSessions.append(handle)
        if pendingSessions.count > TLSClientConnection.maxPendingSessions { pendingSessions.removeFirst() }
        if case .accepted = trust { storePendingSessions() }
    }

    private func storePendingSessions() {
        guard let cache = context.sessionCache, case .accepted(let peer, let response) = trust, let newest = pendingSessions.last else { return }
        cache.store(
            TLSSessionCache.Entry(session: newest, peerChain: peer.certificates, stapledOCSPResponse: response),
            for: context.sessionKey(host: serverName, port: port))
        pendingSessions.removeAll()
    }

    /// The connection owning `ssl`, when it is one of ours.
    static func owning(_ ssl: OpaquePointer?) -> TLSClientConnection? {
        guard let ssl else { return nil }
        return OpenSSLAccessors.object(SSL_get_ex_data(ssl, connectionExDataIndex), as: TLSClientConnection.self)
    }
}

// MARK: OpenSSL callbacks (C function pointers: no captures; state comes from ex_data)

/// `SSL_CTX_set_cert_verify_callback`: replaces OpenSSL's chain verification with ours.
func clientCertificateVerifyCallback(_ storeContext: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let storeContext,
        let connection = TLSClientConnection.owning(lariat_X509_STORE_CTX_get0_ssl(storeContext)),
        let leafPointer = X509_STORE_CTX_get0_cert(storeContext)
    else { return 0 }
    var chain = [Certificate(retaining: leafPointer)]
    if let untrusted = X509_STORE_CTX_get0_untrusted(storeContext) {
        for index in 0..<lariat_sk_X509_num(untrusted) {
            guard let pointer = lariat_sk_X509_value(untrusted, index), pointer != leafPointer else { continue }
            chain.append(Certificate(retaining: pointer))
        }
    }
    if connection.certificateReceived(chain, resumed: false) { return 1 }
    var code = X509_V_ERR_APPLICATION_VERIFICATION
    if case .rejected(let error) = connection.trust, let failure = error.trustFailure, failure.code != 0 { code = failure.code }
    // The code picks the alert OpenSSL sends (for example certificate_expired).
    X509_STORE_CTX_set_error(storeContext, code)
    return 0
}

/// `SSL_CTX_set_tlsext_status_cb`, client side: 1 continues, 0 aborts with bad_certificate_status_response.
func clientStatusCallback(_ ssl: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let connection = TLSClientConnection.owning(ssl) else { return 0 }
    return connection.statusStageReached() ? 1 : 0
}

/// `SSL_CTX_sess_set_new_cb`: returns 0 because we keep a copy, not OpenSSL's reference.
func clientNewSessionCallback(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
    guard let session, let connection = TLSClientConnection.owning(ssl) else { return 0 }
    connection.sessionIssued(session)
    return 0
}
