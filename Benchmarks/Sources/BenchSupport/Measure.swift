// Timing, latency percentiles and memory readings shared by every peer.
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`), for intervals only.
@inline(__always)
public func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// Per-request latencies of one measurement, in nanoseconds.
///
/// Storage is reserved up front so recording never allocates inside the timed loop.
public struct LatencyRecorder: Sendable {
    private var samples: [UInt64]

    /// Creates an empty recorder.
    /// - Parameter capacity: expected number of samples (reserved, not a limit).
    public init(capacity: Int) {
        samples = []
        samples.reserveCapacity(capacity)
    }

    /// Adds one latency.
    /// - Parameter nanos: the request's duration in nanoseconds.
    @inline(__always)
    public mutating func record(_ nanos: UInt64) { samples.append(nanos) }

    /// Appends every sample of another recorder (used to merge per-worker recorders).
    /// - Parameter other: the recorder to merge in.
    public mutating func merge(_ other: LatencyRecorder) { samples.append(contentsOf: other.samples) }

    /// Number of samples recorded.
    public var count: Int { samples.count }

    /// Nearest-rank percentiles in microseconds.
    /// - Parameter percentiles: values in 0...100, e.g. `[50, 99]`.
    /// - Returns: one value per requested percentile, in order; empty if there are no samples.
    public func percentilesMicros(_ percentiles: [Double]) -> [Double] {
        guard !samples.isEmpty else { return [] }
        let sorted = samples.sorted()
        return percentiles.map { p in
            // Nearest rank: the smallest sample with at least p% of samples at or below it.
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
            let index = min(max(rank, 1), sorted.count) - 1
            return Double(sorted[index]) / 1_000
        }
    }
}

/// Peak resident set size of this process so far (`VmHWM` in `/proc/self/status`), in KiB.
/// - Returns: the value, or nil if the file cannot be read (not Linux).
public func peakResidentKiB() -> Int? {
    guard let status = readSmallFile("/proc/self/status") else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
        return Int(digits)
    }
    return nil
}

/// Size of a regular file in bytes.
/// - Parameter path: the file.
/// - Returns: its size, or nil if `stat` fails.
public func fileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_size)
}

/// Reads a small text file (such as a `/proc` entry) with plain POSIX calls.
func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
