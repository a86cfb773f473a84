// ScriptedConnection: runs one accepted connection's steps on its own thread.
import Glibc
import Synchronization

/// One accepted connection of a ``ScriptedServer``; owns and closes its fd.
struct ScriptedConnection {
    private enum ReadOutcome {
        case bytes
        case endOfStream
        case failed(Int32)
        case timedOut
        case stopped
    }

    let server: ScriptedServer
    private var fd: Int32
    private let index: Int
    /// Received bytes not yet consumed by an `expect…` step.
    private var pending: [UInt8] = []

    init(server: ScriptedServer, fd: Int32, index: Int) {
        self.server = server
        self.fd = fd
        self.index = index
    }

    /// Runs `script`; afterwards, if still open, waits for the client to close (or the server to
    /// stop), then closes the fd.
    mutating func run(_ script: [ScriptedServer.Step]) {
        for (number, step) in script.enumerated() {
            if let problem = perform(step) {
                server.recordFailure(connection: index, "step #\(number) \(step): \(problem)")
                break
            }
            if fd < 0 { break }
        }
        guard fd >= 0 else { return }
        while case .bytes = readMore(until: nil) {}
        close(fd)
        fd = -1
    }

    /// Performs one step; returns a failure message or nil.
    private mutating func perform(_ step: ScriptedServer.Step) -> String? {
        switch step {
        case .expectRequest:
            let deadline = ContinuousClock.now + server.stepTimeout
            while true {
                switch RequestFramer.frame(pending) {
                case .complete(let length):
                    let request = Array(pending.prefix(length))
                    pending.removeFirst(length)
                    server.update(index) { $0.requests.append(request) }
                    return nil
                case .malformed(let reason):
                    return "malformed request (\(reason))"
                case .incomplete:
                    // Read first, then describe: `describe(readMore(…))` would copy `self` (and the
                    // pending buffer) for the non-mutating call, making every append O(n).
                    let outcome = readMore(until: deadline)
                    if let problem = describe(outcome, waitingFor: "a complete request") { return problem }
                }
            }
        case .expectBytes(let expected):
            let deadline = ContinuousClock.now + server.stepTimeout
            while pending.count < expected.count {
                let outcome = readMore(until: deadline)
                if let problem = describe(outcome, waitingFor: "\(expected.count) bytes") { return problem }
            }
            let actual = Array(pending.prefix(expected.count))
            pending.removeFirst(expected.count)
            guard actual == expected else {
                return "expected \(String(decoding: expected, as: UTF8.self).debugDescription), got \(String(decoding: actual, as: UTF8.self).debugDescription)"
            }
            return nil
        case .receive(let count):
            let deadline = ContinuousClock.now + server.stepTimeout
            while pending.count < count {
                let outcome = readMore(until: deadline)
                if let problem = describe(outcome, waitingFor: "\(count) bytes") { return problem }
            }
            return nil
        case .send(let bytes):
            return Loopback.sendAll(fd, bytes) ? nil : "send failed: errno \(errno)"
        case .sleep(let duration):
            let deadline = ContinuousClock.now + duration
            while ContinuousClock.now < deadline && !server.stopping.load(ordering: .acquiring) {
                usleep(2_000)
            }
            return nil
        case .close:
            // FIN first; then let the client close too (bounded), so unread bytes cannot make
            // close() send a reset instead.
            shutdown(fd, Int32(SHUT_WR))
            let deadline = ContinuousClock.now + .seconds(1)
            while case .bytes = readMore(until: deadline) {}
            close(fd)
            fd = -1
            return nil
        case .reset:
            Loopback.reset(fd)
            fd = -1
            return nil
        case .shutdownWrite:
            shutdown(fd, Int32(SHUT_WR))
            return nil
        case .respondToEachRequest(let bytes, let delay):
            while true {
                let deadline = ContinuousClock.now + server.stepTimeout
                // The client closing between requests ends the step; mid-request it is a failure.
                while case .incomplete = RequestFramer.frame(pending) {
                    switch readMore(until: deadline) {
                    case .bytes: continue
                    case .endOfStream, .failed: return pending.isEmpty ? nil : "client closed during a request (had \(pending.count) bytes)"
                    case .timedOut: return "timed out waiting for the next request"
                    case .stopped: return nil
                    }
                }
                if let problem = perform(.expectRequest) { return problem }
                if delay > .zero, let problem = perform(.sleep(delay)) { return problem }
                if let problem = perform(.send(bytes)) { return problem }
            }
        case .waitForClientClose:
            let deadline = ContinuousClock.now + server.stepTimeout
            while true {
                switch readMore(until: deadline) {
                case .bytes: continue
                case .endOfStream, .failed: return nil
                case .timedOut: return "timed out waiting for the client to close"
                case .stopped: return "server stopped while waiting for the client to close"
                }
            }
        }
    }

    private func describe(_ outcome: ReadOutcome, waitingFor what: String) -> String? {
        switch outcome {
        case .bytes: return nil
        case .endOfStream: return "client closed while waiting for \(what) (had \(pending.count) bytes)"
        case .failed(let code): return "recv failed with errno \(code) while waiting for \(what)"
        case .timedOut: return "timed out waiting for \(what) (had \(pending.count) bytes)"
        case .stopped: return "server stopped while waiting for \(what)"
        }
    }

    /// Reads once (waiting until `deadline`, or forever if nil, in 20 ms slices that check for stop).
    private mutating func readMore(until deadline: ContinuousClock.Instant?) -> ReadOutcome {
        while true {
            if server.stopping.load(ordering: .acquiring) { return .stopped }
            if let deadline, ContinuousClock.now >= deadline { return .timedOut }
            guard Loopback.waitReadable(fd, milliseconds: 20) else { continue }
            guard let bytes = Loopback.receive(fd) else {
                let code = errno
                server.update(index) { $0.clientClosed = true }
                return .failed(code)
            }
            if bytes.isEmpty {
                server.update(index) { $0.clientClosed = true }
                return .endOfStream
            }
            pending.append(contentsOf: bytes)
            server.update(index) { $0.received.append(contentsOf: bytes) }
            return .bytes
        }
    }
}
