// File: a regular file read or written with blocking calls, for request bodies streamed from
// disk (uploads) and response bodies streamed to disk (downloads).
//
// Regular files never return EAGAIN (epoll cannot watch them), so reads and writes block; on a
// loop thread they take page-cache time (memory-copy speed), and keep memory bounded: a download
// writes each chunk before the next read from the socket, an upload reads the next chunk only
// when the socket took the last one.
internal import CLinux
internal import Glibc

/// An open regular file, closed on `close()` or deinit.
///
/// Not thread-safe by itself: one owner at a time. It is `Sendable` so an owner can keep it
/// inside its own lock (a download's sink is written on a loop and closed on a queue).
public final class File: @unchecked Sendable {
    /// How to open a file.
    public enum Mode: Sendable {
        /// Read only; the file must exist.
        case read
        /// Write only; created with mode 0644 if missing, truncated if present.
        case createOrTruncate
        /// Write only; a new file with mode 0600, failing with EEXIST if the name exists (also as
        /// a symbolic link): for temporary files in a directory other users can write to.
        case createNewPrivate
        /// Write only, appending; the file must exist and must not be a symbolic link (a
        /// resumed download's partial file).
        case appendExisting
    }

    private var fd: Int32
    /// The path the file was opened with.
    public let path: String

    /// Opens `path`.
    /// - Parameters:
    ///   - path: The file's path.
    ///   - mode: ``Mode/read`` or ``Mode/createOrTruncate``.
    /// - Throws: `SocketError` with `syscall == "open"` and the errno (ENOENT, EACCES…).
    public init(path: String, mode: Mode) throws(SocketError) {
        let (flags, permissions): (Int32, mode_t) = switch mode {
        case .read: (O_RDONLY | O_CLOEXEC, 0)
        case .createOrTruncate: (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        case .createNewPrivate: (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        case .appendExisting: (O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0)
        }
        var opened: Int32 = -1
        repeat {
            opened = Glibc.open(path, flags, permissions)
        } while opened < 0 && errno == EINTR
        guard opened >= 0 else { throw SocketError(errno: errno, syscall: "open") }
        self.fd = opened
        self.path = path
    }

    deinit { close() }

    /// The file's size in bytes.
    /// - Throws: `SocketError` from `fstat`.
    public func size() throws(SocketError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SocketError(errno: errno, syscall: "fstat") }
        return Int(info.st_size)
    }

    /// What identifies the open file: its device and inode, its owner, and whether it is a
    /// regular file (a resumed download checks that its partial file is the one it wrote).
    /// - Throws: `SocketError` from `fstat`.
    public func identity() throws(SocketError) -> (device: UInt64, inode: UInt64, owner: UInt32, isRegular: Bool) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SocketError(errno: errno, syscall: "fstat") }
        return (UInt64(info.st_dev), UInt64(info.st_ino), info.st_uid, (info.st_mode & S_IFMT) == S_IFREG)
    }

    /// Cuts the file to `length` bytes (appends then continue from there).
    /// - Throws: `SocketError` from `ftruncate`.
    public func truncate(to length: Int) throws(SocketError) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw SocketError(errno: errno, syscall: "ftruncate") }
    }

    /// Reads up to `buffer.count` bytes at the current position.
    /// - Returns: The number of bytes read; 0 at the end of the file.
    /// - Throws: `SocketError` from `read`, or `.socketClosed` after `close()`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int {
        guard fd >= 0 else { throw SocketError(kind: .socketClosed, syscall: "read") }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw SocketError(errno: errno, syscall: "read") }
        }
    }

    /// Writes all of `bytes` at the current position. A FIFO or socket whose reader left fails
    /// with EPIPE and raises no SIGPIPE in the process (see ``withoutSIGPIPE(_:)``).
    /// - Throws: `SocketError` from `write` (ENOSPC, EIO, EPIPE…), or `.socketClosed` after `close()`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) {
        guard fd >= 0 else { throw SocketError(kind: .socketClosed, syscall: "write") }
        if pipeLike == nil {
            var info = stat()
            pipeLike = fstat(fd, &info) == 0 && ((info.st_mode & S_IFMT) == S_IFIFO || (info.st_mode & S_IFMT) == S_IFSOCK)
        }
        guard pipeLike == true else { return try writeAll(bytes) }
        try File.withoutSIGPIPE { () throws(SocketError) in try writeAll(bytes) }
    }

    /// Whether the descriptor is a FIFO or a socket (a destination such as `/dev/stdout` given
    /// as a path), where `write(2)` raises SIGPIPE once the reader left; found on the first write.
    private var pipeLike: Bool?

    /// Runs `body` with SIGPIPE blocked on this thread; a SIGPIPE it raised is taken from the
    /// pending set before the mask is restored, so the host process never receives it (a
    /// regular file never raises one, so plain files skip this). One already pending is left.
    static func withoutSIGPIPE<T>(_ body: () throws(SocketError) -> T) throws(SocketError) -> T {
        var block = sigset_t(), previous = sigset_t(), pending = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        sigpending(&pending)
        let pendingBefore = sigismember(&pending, SIGPIPE) == 1
        defer {
            sigpending(&pending)
            if !pendingBefore, sigismember(&pending, SIGPIPE) == 1 {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&block, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SocketError) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, next, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw SocketError(errno: errno, syscall: "write")
            }
            next += n
            left -= n
        }
    }

    /// Closes the file; later calls do nothing.
    public func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }
}
