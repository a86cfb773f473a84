import TLS

/// Moves bytes between an in-process client and server until both sides settle.
struct Pump {
    let client: TLSClientConnection
    let server: TLSServerConnection

    enum Outcome {
        case complete
        case failed(TLSError)
        case pending

        var error: TLSError? {
            if case .failed(let error) = self { return error }
            return nil
        }
        var isPending: Bool {
            if case .pending = self { return true }
            return false
        }
        var isComplete: Bool {
            if case .complete = self { return true }
            return false
        }
    }

    /// Shuttles all pending ciphertext both ways; returns whether any byte moved.
    @discardableResult
    func shuttle() -> Bool {
        var moved = false
        let toServer = client.takeCiphertext()
        if !toServer.isEmpty {
            moved = true
            precondition(server.receiveCiphertext(toServer) == toServer.count, "server inbound buffer full")
        }
        let toClient = server.takeCiphertext()
        if !toClient.isEmpty {
            moved = true
            precondition(client.receiveCiphertext(toClient) == toClient.count, "client inbound buffer full")
        }
        return moved
    }

    /// Runs both handshakes until neither side changes nor any byte moves (bounded: 50 rounds).
    func handshake() -> (client: Outcome, server: Outcome) {
        var clientOutcome = Outcome.pending
        var serverOutcome = Outcome.pending
        for _ in 0..<50 {
            let before = (clientOutcome.isPending, serverOutcome.isPending)
            if clientOutcome.isPending {
                switch client.handshake() {
                case .complete: clientOutcome = .complete
                case .failed(let error): clientOutcome = .failed(error)
                case .incomplete: break
                }
            }
            if serverOutcome.isPending {
                switch server.handshake() {
                case .complete: serverOutcome = .complete
                case .failed(let error): serverOutcome = .failed(error)
                case .incomplete: break
                }
            }
            let moved = shuttle()
            let changed = before != (clientOutcome.isPending, serverOutcome.isPending)
            if !moved && !changed { break }
        }
        return (clientOutcome, serverOutcome)
    }

    /// Reads what the client can decrypt right now.
    func clientRead() -> (bytes: [UInt8], result: TLSReadResult) {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = buffer.withUnsafeMutableBytes { client.read(into: $0) }
            guard case .bytes(let count) = result else { return (collected, result) }
            collected += buffer.prefix(count)
        }
    }

    /// Reads what the server can decrypt right now.
    func serverRead() -> (bytes: [UInt8], result: TLSReadResult) {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = buffer.withUnsafeMutableBytes { server.read(into: $0) }
            guard case .bytes(let count) = result else { return (collected, result) }
            collected += buffer.prefix(count)
        }
    }
}

/// Builders shared by the handshake tests.
enum Fixture {
    static func clientContext(
        trusting roots: [Certificate] = [PKI.shared.root.certificate],
        cache: TLSSessionCache? = nil,
        _ adjust: (inout TLSConfiguration) -> Void = { _ in }
    ) throws -> TLSClientContext {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .certificates(roots)
        adjust(&configuration)
        return try TLSClientContext(configuration: configuration, sessionCache: cache)
    }

    static func serverContext(
        _ identity: PKI.Identity, chain: [Certificate] = [PKI.shared.intermediate.certificate],
        _ adjust: (inout TLSServerContext.Options) -> Void = { _ in }
    ) throws -> TLSServerContext {
        var options = TLSServerContext.Options(certificateChain: [identity.certificate] + chain, privateKey: identity.key)
        adjust(&options)
        return try TLSServerContext(options)
    }

    static func pump(
        client context: TLSClientContext, server: TLSServerContext, host: String = "localhost", port: Int = 443,
        evaluator: TrustEvaluator? = nil
    ) throws -> Pump {
        Pump(
            client: try TLSClientConnection(context: context, serverName: host, port: port, evaluator: evaluator),
            server: try TLSServerConnection(context: server))
    }
}
