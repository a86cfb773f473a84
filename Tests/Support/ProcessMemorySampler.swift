// ProcessMemorySampler: a child process's peak resident and anonymous memory, read from
// /proc/PID/status while it runs (Glibc only, like the rest of this target). Shared by the
// streaming-memory tests of fetch (FetchStreamingTests) and LariatTransport (StreamingMemoryTests),
// which check that a 64 MiB body is streamed, never held.
import Glibc
import Synchronization

/// Samples a process's `VmHWM` (peak resident) and `RssAnon` (resident anonymous memory: the heap,
/// where a held body would be) every millisecond until stopped, keeping the largest of each.
///
/// It samples on a thread of its own, not the cooperative pool, which other tests' blocking waits
/// can starve. Anonymous memory is what a held body would take; `VmHWM` also counts the shared
/// libraries' file pages, which vary with the page cache. Once the process is gone, reads fail and
/// the largest values already seen stand.
public final class ProcessMemorySampler: Sendable {
    /// The largest `VmHWM` and `RssAnon` seen (KiB), and whether to stop.
    private let state = Mutex((peak: 0, anonymous: 0, stopping: false))
    /// The sampling thread, joined once by `stop()`.
    private let thread = Mutex<TestThread?>(nil)

    /// Starts sampling `pid` at once.
    ///
    /// - Parameter pid: The process to watch, typically a `Process` the test just started.
    public init(pid: Int32) {
        let started = TestThread.start { [self] in
            while !state.withLock({ $0.stopping }) {
                if let sample = Self.memoryKiB(pid) {
                    state.withLock { ($0.peak, $0.anonymous) = (max($0.peak, sample.peak), max($0.anonymous, sample.anonymous)) }
                }
                usleep(1000)
            }
        }
        thread.withLock { $0 = started }
    }

    /// Stops sampling and waits for the sampling thread.
    ///
    /// - Returns: The largest `VmHWM` (`peak`) and `RssAnon` (`anonymous`) seen, in KiB; zero
    ///   when no sample was read (the process had already ended).
    public func stop() -> (peak: Int, anonymous: Int) {
        state.withLock { $0.stopping = true }
        thread.withLock { $0.take() }?.join()
        return state.withLock { ($0.peak, $0.anonymous) }
    }

    /// One reading of `/proc/PID/status`.
    ///
    /// - Parameter pid: The process.
    /// - Returns: `VmHWM` and `RssAnon` in KiB, or nil when the process is gone or the file lacks
    ///   either field.
    public static func memoryKiB(_ pid: Int32) -> (peak: Int, anonymous: Int)? {
        let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // The file is about 1.5 KiB; read until end of file in case it ever grows.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        let status = String(decoding: bytes, as: UTF8.self)
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { Int(String($0.dropFirst(name.count).filter(\.isNumber))) }
        }
        guard let peak = field("VmHWM:"), let anonymous = field("RssAnon:") else { return nil }
        return (peak, anonymous)
    }
}
