// Resolver: getaddrinfo on a small pool of worker threads, never on a loop.
//
// getaddrinfo blocks (files, DNS, NSS modules) and cannot be cancelled, so it runs on up to
// `maxThreads` workers, started on demand and kept for the process. A caller who no longer
// cares (timeout, cancel) simply ignores the answer when it arrives.
//
// Queueing: one POSIX semaphore post per job; a worker waits on the semaphore, then pops a
// job under the mutex. A new worker is started only when queued jobs outnumber idle workers.
internal import CLinux
internal import Glibc
import Synchronization

/// Resolves host names to socket addresses off the event loops.
final class Resolver: Sendable {
    /// The process-wide resolver (at most 4 threads).
    static let shared = Resolver(maxThreads: 4)

    typealias Completion = @Sendable (Result<[SocketAddress], SocketError>) -> Void

    private struct Job {
        let host: String
        let port: Int
        let completion: Completion
    }

    private struct State {
        var jobs: [Job] = []
        var idle = 0
        var threads = 0
    }

    /// A heap-allocated `sem_t` (it must not move).
    private final class Semaphore: @unchecked Sendable {
        // @unchecked Sendable: sem_t is designed for concurrent sem_post/sem_wait.
        let raw: UnsafeMutablePointer<sem_t> = .allocate(capacity: 1)
        init() { sem_init(raw, 0, 0) }
        func post() { sem_post(raw) }
        func wait() { while sem_wait(raw) != 0 && errno == EINTR {} }
        // Never deinitialized: the shared resolver lives for the process.
    }

    private let state = Mutex(State())
    private let semaphore = Semaphore()
    private let maxThreads: Int

    init(maxThreads: Int) {
        self.maxThreads = maxThreads
    }

    /// Looks up `host` on a worker thread and calls `completion` there with addresses carrying `port`.
    ///
    /// Addresses keep getaddrinfo's order (RFC 6724 preference), without duplicates.
    func resolve(host: String, port: Int, _ completion: @escaping Completion) {
        let startWorker = state.withLock { state -> Bool in
            state.jobs.append(Job(host: host, port: port, completion: completion))
            guard state.jobs.count > state.idle, state.threads < maxThreads else { return false }
            state.threads += 1
            return true
        }
        semaphore.post()
        if startWorker {
            LoopThread.start(name: "lariat-resolver") { [self] in workerLoop() }.detach()
        }
    }

    private func workerLoop() {
        while true {
            state.withLock { $0.idle += 1 }
            semaphore.wait()
            let job = state.withLock { state -> Job in
                state.idle -= 1
                return state.jobs.removeFirst()
            }
            job.completion(Self.lookup(host: job.host, port: job.port))
        }
    }

    /// The blocking lookup itself (also used directly by tests).
    static func lookup(host: String, port: Int) -> Result<[SocketAddress], SocketError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        // No AI_ADDRCONFIG: glibc ignores loopback when applying it, so "localhost" could lose ::1
        // on a host whose only IPv6 address is loopback.
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else { return .failure(error(code: code, errno: errno, host: host)) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr.flatMap({ SocketAddress(sockaddr: $0, length: entry.pointee.ai_addrlen) }) {
                let withPort = address.withPort(port)
                if !addresses.contains(withPort) { addresses.append(withPort) }
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(SocketError(kind: .hostNotFound, syscall: "getaddrinfo", host: host))
        }
        return .success(addresses)
    }

    /// Maps a getaddrinfo failure. "No such name", "no address", "try again" and "permanent
    /// failure" all mean the host cannot be found now; EAI_SYSTEM carries an errno.
    static func error(code: Int32, errno: Int32, host: String) -> SocketError {
        let eaiNoData: Int32 = -5       // glibc's EAI_NODATA, hidden behind __USE_GNU
        let eaiAddressFamily: Int32 = -9 // glibc's EAI_ADDRFAMILY, likewise
        switch code {
        case EAI_NONAME, EAI_AGAIN, EAI_FAIL, eaiNoData, eaiAddressFamily:
            return SocketError(kind: .hostNotFound, syscall: "getaddrinfo", host: host, resolverCode: code)
        case EAI_SYSTEM:
            return SocketError(kind: ErrnoClass.kind(of: errno), errno: errno, syscall: "getaddrinfo", host: host, resolverCode: code)
        default:
            return SocketError(kind: .other, syscall: "getaddrinfo", host: host, resolverCode: code)
        }
    }
}
