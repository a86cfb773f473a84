// Where a transfer's body bytes go: a descriptor (a file or standard output), paced by
// --limit-rate, with curl's message for a failed write.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer's body goes: a descriptor, written chunk by chunk, at most `limitRate`
/// bytes a second (sleeping on the transfer's queue, which holds the connection's reads back).
final class BodySink {
    /// The descriptor (1: standard output, not closed).
    let fd: Int32
    /// `--limit-rate`, bytes a second.
    private let limitRate: Int?
    /// Bytes written so far, for the pacing.
    private var written = 0
    /// When the first paced write started (monotonic seconds).
    private var start: Double?
    /// Whether a write failed.
    private var failed = false

    /// A sink writing to `fd`, paced by `limitRate` when given.
    init(fd: Int32, limitRate: Int?) {
        self.fd = fd
        self.limitRate = limitRate
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(fd) == 1 }

    /// Bytes handed to `write` so far.
    private var attempted = 0

    /// curl's message for a failed write. curl writes through stdio, whose buffer is the
    /// descriptor's block size: a failure while everything still fit in the buffer shows at
    /// close ("Failed writing body"), a later one in its write callback ("Failure writing output
    /// to destination", as for `fetch URL | head -c 10`).
    var failureMessage: String {
        var info = stat()
        let buffer = fstat(fd, &info) == 0 && info.st_blksize > 0 ? Int(info.st_blksize) : 4096
        return attempted > buffer ? "Failure writing output to destination" : "Failed writing body"
    }

    /// Writes every byte of `data`, paced; false on an error.
    func write(_ data: Data) -> Bool {
        attempted += data.count
        guard let limitRate, limitRate > 0 else {
            if !writeAll(fd, data) { failed = true }
            return !failed
        }
        let begin = start ?? Output.monotonicSeconds()
        start = begin
        let piece = max(1, min(limitRate, 16 * 1024))
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + piece, data.endIndex)
            guard writeAll(fd, data[offset..<end]) else { failed = true; return false }
            written += end - offset
            offset = end
            // Sleep until the bytes written so far are on schedule.
            let due = Double(written) / Double(limitRate) - (Output.monotonicSeconds() - begin)
            if due > 0 { usleep(UInt32(due * 1_000_000)) }
        }
        return true
    }

    /// Closes a file (not standard output); false when a write or the close failed.
    func close() -> Bool {
        if fd == 1 { return !failed }
        return Glibc.close(fd) == 0 && !failed
    }
}
