// ConnectDriver: carries out HappyEyeballsStateMachine's actions on the loop (see Connector.swift).

/// Loop-confined I/O side of one connect operation; also the handler of its in-flight sockets.
final class ConnectDriver: SocketHandler {
    /// What `connect` knows before starting.
    enum Target {
        /// Connect to these (override or IP literal); no lookup.
        case addresses([SocketAddress])
        /// Resolve the host name first.
        case resolve
        /// Fail at once (bad port).
        case invalid(SocketError)
    }

    private let host: String
    private let port: Int
    private let loop: EventLoop
    private let connector: Connector
    private var completion: ((Result<Socket, SocketError>) -> Void)?
    private var machine = HappyEyeballsStateMachine()
    /// In-flight attempts; at most a handful, so a linear scan beats a dictionary.
    private var attempts: [(id: AttemptID, socket: Socket)] = []
    private var overallTimer: TimerID?
    private var nextAttemptTimer: TimerID?
    /// `true` while `start` runs, so a synchronous outcome is delivered on the next tick instead.
    private var isStarting = false

    init(host: String, port: Int, loop: EventLoop, connector: Connector,
         completion: @escaping (Result<Socket, SocketError>) -> Void) {
        self.host = host
        self.port = port
        self.loop = loop
        self.connector = connector
        self.completion = completion
    }

    /// Arms the overall timeout and performs the first action.
    func start(_ target: Target) {
        isStarting = true
        defer { isStarting = false }
        let now = Deadline.now()
        let limit = min(now + connector.timeout, connector.deadline)
        guard limit > now else {
            // No time at all (a zero or negative timeout, or a deadline already past): fail
            // without opening a socket. Delivered on the next tick, as `isStarting` is set.
            perform(machine.abort(SocketError(kind: .timedOut, syscall: "connect", host: host)))
            return
        }
        overallTimer = loop.scheduleTimer(at: limit) { [self] in
            overallTimer = nil
            abort(SocketError(kind: .timedOut, syscall: "connect", host: host))
        }
        switch target {
        case .addresses(let addresses): perform(machine.start(addresses: addresses))
        case .resolve: perform(machine.start(addresses: nil))
        case .invalid(let error): perform(machine.abort(error))
        }
    }

    /// Timeout, cancel or shutdown.
    func abort(_ error: SocketError) {
        perform(machine.abort(error))
    }

    // MARK: SocketHandler (in-flight attempts only)

    func socketReadable(_ socket: Socket) {}

    func socketWritable(_ socket: Socket) {
        guard let id = attemptID(of: socket) else { return }
        if let error = socket.takePendingError() {
            attemptDidFail(id, error: error)
        } else {
            perform(machine.attemptSucceeded(id))
        }
    }

    func socketHungUp(_ socket: Socket, error: SocketError?) {
        guard let id = attemptID(of: socket) else { return }
        if let error, error.kind == .eventLoopShutdown {
            perform(machine.abort(error))
        } else {
            attemptDidFail(id, error: error ?? SocketError(kind: .connectionReset, syscall: "connect"))
        }
    }

    /// Closes a failed attempt's socket, then lets the machine pick the next step.
    private func attemptDidFail(_ id: AttemptID, error: SocketError) {
        close([id])
        perform(machine.attemptFailed(id, error: error))
    }

    // MARK: actions

    private func perform(_ first: HappyEyeballsStateMachine.Action) {
        var action = first
        while true {
            switch action {
            case .none:
                return
            case .resolve:
                let bound = LoopBound(self, loop: loop)
                let started = Deadline.now()
                Resolver.shared.resolve(host: host, port: port) { [loop] result in
                    let ended = Deadline.now()
                    loop.execute { bound.value.resolutionFinished(result, started: started, ended: ended) }
                }
                return
            case .startAttempt(let id, let address, let armTimer):
                rearmNextAttemptTimer(armTimer)
                do {
                    let (socket, connected) = try Socket.startConnecting(to: address, setup: connector.socketSetup, on: loop)
                    attempts.append((id, socket))
                    guard connected else {
                        socket.handler = self
                        return
                    }
                    action = machine.attemptSucceeded(id)
                } catch {
                    action = machine.attemptFailed(id, error: error)
                }
            case .succeed(let winner, let losers):
                cancelTimers()
                close(losers)
                guard let index = attempts.firstIndex(where: { $0.id == winner }) else {
                    preconditionFailure("winning attempt \(winner) has no socket")
                }
                let socket = attempts.remove(at: index).socket
                socket.handler = nil
                socket.setWriteInterest(false)
                finish(.success(socket))
                return
            case .fail(let error, let closing):
                cancelTimers()
                close(closing)
                finish(.failure(error))
                return
            }
        }
    }

    private func resolutionFinished(_ result: Result<[SocketAddress], SocketError>, started: Deadline, ended: Deadline) {
        connector.resolutionObserver?(started, ended)
        switch result {
        case .success(let addresses): perform(machine.resolved(addresses))
        case .failure(let error): perform(machine.resolutionFailed(error))
        }
    }

    private func finish(_ result: Result<Socket, SocketError>) {
        guard let completion else { preconditionFailure("connect completed twice") }
        self.completion = nil
        if isStarting {
            loop.executeLocal { completion(result) }
        } else {
            completion(result)
        }
    }

    private func attemptID(of socket: Socket) -> AttemptID? {
        attempts.first { $0.socket === socket }?.id
    }

    private func close(_ ids: [AttemptID]) {
        for id in ids {
            guard let index = attempts.firstIndex(where: { $0.id == id }) else { continue }
            attempts.remove(at: index).socket.close()
        }
    }

    private func rearmNextAttemptTimer(_ arm: Bool) {
        if let timer = nextAttemptTimer { loop.cancelTimer(timer) }
        nextAttemptTimer = nil
        guard arm else { return }
        nextAttemptTimer = loop.scheduleTimer(after: connector.attemptDelay) { [self] in
            nextAttemptTimer = nil
            perform(machine.nextAttemptTimerFired())
        }
    }

    private func cancelTimers() {
        rearmNextAttemptTimer(false)
        if let timer = overallTimer { loop.cancelTimer(timer) }
        overallTimer = nil
    }
}
