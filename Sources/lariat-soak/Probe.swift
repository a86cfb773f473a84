// Probe: the process's own resource counts (Linux /proc), and the soak's error type.
import EventLoop  // directoryEntryNames(in:): d_name read in place (CDirent)
import Glibc

/// A failure that stops the soak: setup, or an assertion that did not hold.
struct SoakError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    /// Wraps a message.
    init(_ description: String) { self.description = description }
}

/// One reading of the process's descriptors, memory and threads.
struct Snapshot: CustomStringConvertible {
    /// Open file descriptors (entries of `/proc/self/fd`, minus the one used to list it).
    var descriptors: Int
    /// Resident set size in bytes (`/proc/self/statm`, second field, times the page size).
    var residentBytes: Int
    /// Threads (entries of `/proc/self/task`).
    var threads: Int

    /// Reads the current values.
    static func take() -> Snapshot {
        Snapshot(descriptors: entries(in: "/proc/self/fd") - 1, residentBytes: residentBytes(), threads: entries(in: "/proc/self/task"))
    }

    /// `fds=… rss=…KiB threads=…`.
    var description: String { "fds=\(descriptors) rss=\(residentBytes / 1024)KiB threads=\(threads)" }

    /// The number of entries of a /proc directory, without `.` and `..`.
    private static func entries(in path: String) -> Int {
        directoryEntryNames(in: path)?.count ?? -1
    }

    /// RSS from `/proc/self/statm`.
    private static func residentBytes() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return -1 }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Polls `condition` every 50 ms for at most `limit`; returns whether it became true.
func eventually(within limit: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}

/// Returns glibc's freed memory at the top of the heaps to the system (so RSS readings compare
/// live memory, not what the allocator keeps cached), then reads a snapshot.
func settledSnapshot() -> Snapshot {
    // glibc's malloc_trim is not in the Glibc module's headers; RTLD_DEFAULT is a null handle.
    if let symbol = dlsym(nil, "malloc_trim") {
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
    }
    return Snapshot.take()
}
