// ScriptedServer: a raw-bytes TCP server on loopback that follows a script per connection.
//
// For transcript and fault tests (STYLE.md §7, after hyper's tests/client.rs): expect exact request
// bytes, reply with canned bytes, sleep, close, reset, half-close. Blocking sockets on its own
// pthreads (Glibc only), so it shares nothing with the code under test.
//
// Threads: one acceptor (polls the listener every 20 ms so stop() is prompt), one thread per
// accepted connection (each read polls in 20 ms slices for the same reason). Finished connection
// threads are joined by the acceptor as it goes; stop() joins the rest and closes every fd, so a
// test can compare descriptor counts after it.
import CLinux
import Glibc
import Synchronization

/// A loopback TCP server whose connections each run a script of ``Step``s. Call ``stop()``.
public final class ScriptedServer: Sendable {
    /// What one accepted connection did.
    struct ConnectionRecord {
        var received: [UInt8] = []
        var requests: [[UInt8]] = []
        var finished = false
        var clientClosed = false
    }

    private struct State {
        var records: [ConnectionRecord] = []
        var failures: [String] = []
        var threads: [Int: TestThread] = [:]
    }

    /// The listening port.
    public let port: Int
    /// The loopback address family it listens on.
    public let family: LoopbackFamily
    /// How long each `expect…`/`waitForClientClose` step may wait.
    public let stepTimeout: Duration

    private let scripts: Scripts
    private let listenFD: Int32
    private let state = Mutex(State())
    let stopping = Atomic<Bool>(false)
    private let acceptor = Mutex<TestThread?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// Starts a server whose first connection (or, with `forEveryConnection`, every connection) runs `script`.
    ///
    /// - Parameters:
    ///   - script: The steps.
    ///   - forEveryConnection: `false` (default): only the first connection runs it, later ones are
    ///     closed and recorded as failures. `true`: every connection runs it.
    ///   - family: Loopback IPv4 (default) or IPv6.
    ///   - port: The port to listen on, 0 (default) for an ephemeral one.
    ///   - stepTimeout: Limit for each waiting step, 5 s by default.
    /// - Throws: ``TestServerError`` if it cannot listen.
    public convenience init(
        script: [Step], forEveryConnection: Bool = false,
        family: LoopbackFamily = .ipv4, port: Int = 0, stepTimeout: Duration = .seconds(5)
    ) throws(TestServerError) {
        try self.init(scripts: forEveryConnection ? .everyConnection(script) : .inOrder([script]),
                      family: family, port: port, stepTimeout: stepTimeout)
    }

    /// Starts a server; connection *n* follows `scripts` as described by ``Scripts``.
    ///
    /// - Parameters:
    ///   - scripts: Which script each connection runs.
    ///   - family: Loopback IPv4 (default) or IPv6.
    ///   - port: The port to listen on, 0 (default) for an ephemeral one.
    ///   - stepTimeout: Limit for each waiting step, 5 s by default.
    /// - Throws: ``TestServerError`` if it cannot listen.
    public init(
        scripts: Scripts, family: LoopbackFamily = .ipv4, port: Int = 0, stepTimeout: Duration = .seconds(5)
    ) throws(TestServerError) {
        let fd = try Loopback.boundSocket(family, port: port)
        guard listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw TestServerError(call: "listen", errno: code)
        }
        self.listenFD = fd
        self.port = Loopback.port(of: fd)
        self.family = family
        self.scripts = scripts
        self.stepTimeout = stepTimeout
        let thread = TestThread.start { [self] in acceptLoop() }
        acceptor.withLock { $0 = thread }
    }

    // MARK: observations

    /// How many connections were accepted so far.
    public var connectionCount: Int { state.withLock { $0.records.count } }

    /// Every byte received on connection `index` (0-based) so far.
    ///
    /// - Parameter index: The connection, in accept order.
    /// - Returns: The bytes, `[]` for an unknown index.
    public func receivedBytes(onConnection index: Int) -> [UInt8] {
        state.withLock { index < $0.records.count ? $0.records[index].received : [] }
    }

    /// The raw requests that `expectRequest` steps framed on connection `index`.
    ///
    /// - Parameter index: The connection, in accept order.
    /// - Returns: One element per request, `[]` for an unknown index.
    public func requests(onConnection index: Int) -> [[UInt8]] {
        state.withLock { index < $0.records.count ? $0.records[index].requests : [] }
    }

    /// Every framed request on every connection, in connection order.
    public var requests: [[UInt8]] { state.withLock { $0.records.flatMap(\.requests) } }

    /// Whether the client closed connection `index` (seen as end of stream or reset).
    ///
    /// - Parameter index: The connection, in accept order.
    /// - Returns: `true` once the server saw the client's close.
    public func clientClosed(connection index: Int) -> Bool {
        state.withLock { index < $0.records.count && $0.records[index].clientClosed }
    }

    /// Script failures so far (mismatches, timeouts, unexpected connections); empty when all went to plan.
    public var failures: [String] { state.withLock { $0.failures } }

    /// Blocks until at least `count` connections were accepted and, if `finished`, all of them are done.
    ///
    /// - Parameters:
    ///   - count: Connections to wait for.
    ///   - finished: Also wait for their scripts to end and their fds to close; `false` by default.
    ///   - timeout: Give up after this long, 5 s by default.
    /// - Returns: `true` if the condition was met in time.
    @discardableResult
    public func waitForConnections(_ count: Int, finished: Bool = false, timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let met = state.withLock { state in
                state.records.count >= count && (!finished || state.records.allSatisfy(\.finished))
            }
            if met { return true }
            usleep(1_000)
        }
        return false
    }

    // MARK: stopping

    /// Stops accepting, ends every connection (closing its fd), joins every thread and closes the
    /// listener. Idempotent; returns only when all of that is done.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stopping.store(true, ordering: .releasing)
        acceptor.withLock { $0.take() }?.join()
        let remaining = state.withLock { state -> [TestThread] in
            defer { state.threads.removeAll() }
            return Array(state.threads.values)
        }
        for thread in remaining { thread.join() }
        close(listenFD)
    }

    // MARK: internals

    private func acceptLoop() {
        while !stopping.load(ordering: .acquiring) {
            reapFinishedThreads()
            guard Loopback.waitReadable(listenFD, milliseconds: 20) else { continue }
            // Close-on-exec from the accept itself: a child another test forks (fetch, curl)
            // between an accept and a later fcntl would keep the connection open until it exits.
            let fd = lariat_accept_cloexec(listenFD)
            guard fd >= 0 else { continue }
            let index = state.withLock { state -> Int in
                state.records.append(ConnectionRecord())
                return state.records.count - 1
            }
            guard let script = scripts.script(forConnection: index) else {
                recordFailure(connection: index, "unexpected connection: no script left")
                close(fd)
                update(index) { $0.finished = true }
                continue
            }
            let thread = TestThread.start { [self] in
                var connection = ScriptedConnection(server: self, fd: fd, index: index)
                connection.run(script)
                update(index) { $0.finished = true }
            }
            state.withLock { $0.threads[index] = thread }
        }
    }

    private func reapFinishedThreads() {
        let done = state.withLock { state -> [TestThread] in
            let indices = state.threads.keys.filter { state.records[$0].finished }
            return indices.compactMap { state.threads.removeValue(forKey: $0) }
        }
        for thread in done { thread.join() }
    }

    func update(_ index: Int, _ change: (inout ConnectionRecord) -> Void) {
        state.withLock { change(&$0.records[index]) }
    }

    func recordFailure(connection index: Int, _ message: String) {
        state.withLock { $0.failures.append("connection #\(index): \(message)") }
    }
}
